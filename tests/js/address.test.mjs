// The Step page's view in the address (linkSearch in bpeviz/web/step/address.js): the query the
// server writes for the same view from the same starting query (bpeviz.app.step.view:
// one st.query_params.update, which Python's urlencode turns into the query), worked by hand.
// Run by tests/test_web_js.py, which writes the script to $BPEVIZ_JS_CASES.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const folder = process.env.BPEVIZ_JS_CASES;
assert.ok(folder, "BPEVIZ_JS_CASES is not set: run these through tests/test_web_js.py");
const web = await import(join(folder, "bpeviz.mjs"));

// bpeviz.app.step.view.LINK, as the page gives it to the view (written by test_web_js.py)
const LINK = JSON.parse(readFileSync(join(folder, "link.json"), "utf-8"));
const view = (step, when = "after", quiz = false, pieces = false) => ({ step, when, quiz, pieces });

test("defaults are left out: step 0, after the merge, no quiz, no pieces", () => {
  assert.equal(web.linkSearch("", LINK, view(0)), "");
  assert.equal(web.linkSearch("?sample=ties", LINK, view(0)), "?sample=ties");
  assert.equal(web.linkSearch("?step=4&text_when=Before+merge", LINK, view(0)), "");
});

test("a new name goes at the end, in the link's order", () => {
  assert.equal(web.linkSearch("?sample=ties", LINK, view(3, "before", false, true)), "?sample=ties&step=3&text_when=Before+merge&pieces=1");
});

test("a name already there keeps its place; the rest is kept as written", () => {
  // urlencode({"quiz": "1", "sample": "ties", "step": "5"}) after the update
  assert.equal(web.linkSearch("?quiz=1&sample=ties&step=2", LINK, view(5, "after", true)), "?quiz=1&sample=ties&step=5");
  assert.equal(web.linkSearch("?step=2&paste=a+b%21", LINK, view(7)), "?step=7&paste=a+b%21");
});

test("one value set and another dropped in the same write", () => {
  assert.equal(web.linkSearch("?step=3&pieces=1&sample=ties", LINK, view(0, "after", true, true)), "?pieces=1&sample=ties&quiz=1");
});

test("a name written twice is written once, where it first was", () => {
  // parse_qs keeps step's values together at its first place; the update writes one
  assert.equal(web.linkSearch("?step=1&sample=ties&step=2", LINK, view(4)), "?step=4&sample=ties");
});
