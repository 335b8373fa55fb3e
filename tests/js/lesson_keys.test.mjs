// The lesson's clicker keys (bpeviz/web/step/lesson_keys.js): PageDown / PageUp move the slides,
// except while typing or with a modifier. Run by tests/test_web_js.py, which writes the module
// to $BPEVIZ_JS_CASES.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

const folder = process.env.BPEVIZ_JS_CASES;
assert.ok(folder, "BPEVIZ_JS_CASES is not set: run these through tests/test_web_js.py");
const keys = await import(join(folder, "lesson_keys.mjs"));

const element = (tagName, { editable = false, role = null } = {}) => ({
  tagName,
  isContentEditable: editable,
  getAttribute: (name) => (name === "role" ? role : null),
});
const press = (key, target = element("BODY"), extra = {}) => ({ key, target, ...extra });

test("PageDown is the next slide and PageUp the previous one", () => {
  assert.equal(keys.slideMove(press("PageDown")), 1);
  assert.equal(keys.slideMove(press("PageUp")), -1);
});

test("other keys are not slide changes (the step view's arrows stay its own)", () => {
  for (const key of ["ArrowRight", "ArrowLeft", "Home", "End", " ", "k"]) {
    assert.equal(keys.slideMove(press(key)), 0, key);
  }
});

test("keys typed in a box are the box's", () => {
  for (const target of [
    element("INPUT"),
    element("TEXTAREA"),
    element("SELECT"),
    element("DIV", { editable: true }),
    element("DIV", { role: "textbox" }),
    element("INPUT", { role: "combobox" }),
  ]) {
    assert.equal(keys.slideMove(press("PageDown", target)), 0, target.tagName);
  }
  assert.equal(keys.slideMove(press("PageDown", element("BUTTON"))), 1);
});

test("a modifier or a key already handled leaves the slide alone", () => {
  for (const extra of [{ ctrlKey: true }, { altKey: true }, { metaKey: true }, { shiftKey: true }, { defaultPrevented: true }]) {
    assert.equal(keys.slideMove(press("PageDown", element("BODY"), extra)), 0, JSON.stringify(extra));
  }
});
