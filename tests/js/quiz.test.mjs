// The quiz's marking (rightRows in bpeviz/web/core/record.js) on hand-worked pair counts.
// Run by tests/test_web_js.py, which writes the script to $BPEVIZ_JS_CASES.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

const folder = process.env.BPEVIZ_JS_CASES;
assert.ok(folder, "BPEVIZ_JS_CASES is not set: run these through tests/test_web_js.py");
const web = await import(join(folder, "bpeviz.mjs"));

const rows = (set) => [...set].sort((a, b) => a - b);

test("no tie: only the real next merge is right", () => {
  // Wikipedia's aaabdaaabac before merge 1: aa 4 (overlaps counted), ab 2, then 1s.
  const choices = [
    { row: 2, count: 1 },
    { row: 0, count: 4 },
    { row: 3, count: 1 },
    { row: 1, count: 2 },
  ];
  assert.deepEqual(rows(web.rightRows(choices)), [0]);
});

test("a tie: every pair as frequent as the merge is right", () => {
  // aaabdaaabac after aa -> Z, i.e. ZabdZabac: Za 2 and ab 2 tie; bd, dZ, ba, ac once.
  const choices = [
    { row: 1, count: 2 },
    { row: 3, count: 1 },
    { row: 0, count: 2 },
    { row: 2, count: 1 },
  ];
  assert.deepEqual(rows(web.rightRows(choices)), [0, 1]);
});

test("all four tied: all four are right", () => {
  const choices = [0, 1, 2, 3].map((row) => ({ row, count: 7 }));
  assert.deepEqual(rows(web.rightRows(choices)), [0, 1, 2, 3]);
});

test("no choices (training stopped): nothing is right", () => {
  assert.deepEqual(rows(web.rightRows([])), []);
});
