// The class quiz's right answers (bpeviz/web/live.js rightRows), held to the engine's runs:
// the pair the trainer merged next, and every offered pair with as many occurrences.
// Run by tests/test_web_js.py (it writes the script and the cases to $BPEVIZ_JS_CASES).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const folder = process.env.BPEVIZ_JS_CASES;
assert.ok(folder, "BPEVIZ_JS_CASES is not set: run these through tests/test_web_js.py");
const web = await import(join(folder, "bpeviz.mjs"));
const cases = JSON.parse(readFileSync(join(folder, "cases.json"), "utf-8"));

for (const [name, want] of Object.entries(cases)) {
  test(`${name}: rightRows is the real next merge and every pair tied with it`, () => {
    let tied = 0;
    want.quiz.forEach((rows, k) => {
      const [left, right] = want.next_pairs[k];
      const merged = rows.find(([a, b]) => a === left && b === right);
      const expected = rows.flatMap(([, , count], index) => (count === merged[2] ? [index] : []));
      const choices = web.quizChoices(want.record, k);
      const got = web.rightRows(want.record, k).map((row) => choices.findIndex((choice) => choice.row === row));
      assert.deepEqual(got.sort(), expected.sort(), `step ${k}`);
      if (expected.length > 1) tied += 1;
    });
    // "the cat sat on the mat. " * 40: every pair of the sentence occurs 40 times, so ties abound
    if (name.startsWith("tokens longer")) assert.ok(tied > 0, "no tied choices were checked");
  });
}
