// How often a pair occurred, in the inspector's words (timesWord in bpeviz/web/core/dom.js).
// Run by tests/test_web_js.py, which writes the script to $BPEVIZ_JS_CASES.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

const folder = process.env.BPEVIZ_JS_CASES;
assert.ok(folder, "BPEVIZ_JS_CASES is not set: run these through tests/test_web_js.py");
const web = await import(join(folder, "bpeviz.mjs"));

test("a count of one is said once, more as a number of times", () => {
  assert.equal(web.timesWord(1), "once");
  assert.equal(web.timesWord(2), "2 times");
  assert.equal(web.timesWord(1500), "1,500 times");
});
