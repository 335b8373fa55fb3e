// A WordPiece run in the step view (bpeviz/web/core/record.js): scores, ties and the text cut
// at each step, on the Hugging Face course's corpus ("hug" 10, "pug" 5, "pun" 12, "bun" 4,
// "hugs" 5), worked by hand. Run by tests/test_web_js.py, which writes the script and the
// run's record (wordpiece.json) to $BPEVIZ_JS_CASES.
//
// By hand, by score count(ab) / (count(a) × count(b)): the words start h ##u ##g, p ##u ##g,
// p ##u ##n, b ##u ##n, h ##u ##g ##s, so h 15, p 17, b 4, ##u 36, ##g 20, ##n 16, ##s 5.
// Merge 1: ##g + ##s, 5 / (20 × 5) = 1/20; every other pair scores 1/36 (h + ##u 15 / (15 ×
// 36), ##u + ##g 20 / (36 × 20), ...). Merge 2: the six pairs left all score 1/36 (##g is now
// 15, and ##u + ##g occurs 15 times), a tie the rule "first" gives to h + ##u, the first in
// the text. Merge 3: hu + ##gs, 5 / (15 × 5) = 1/15, beats hu + ##g, 10 / (15 × 15) = 2/45:
// the course says these two tie, and they do not.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const folder = process.env.BPEVIZ_JS_CASES;
assert.ok(folder, "BPEVIZ_JS_CASES is not set: run these through tests/test_web_js.py");
const web = await import(join(folder, "bpeviz.mjs"));
const record = JSON.parse(readFileSync(join(folder, "wordpiece.json"), "utf-8"));
const rows = (set) => [...set].sort((a, b) => a - b);

test("a score is written as its reduced fraction and a decimal", () => {
  assert.equal(web.scoreText({ count: 5, left_count: 20, right_count: 5 }), "1/20 ≈ 0.0500");
  assert.equal(web.scoreText({ count: 10, left_count: 15, right_count: 15 }), "2/45 ≈ 0.0444");
  assert.equal(web.scoreText({ count: 5, left_count: 15, right_count: 5 }), "1/15 ≈ 0.0667");
  assert.deepEqual(web.scoreFraction({ count: 20, left_count: 36, right_count: 20 }), [1, 36]);
});

test("the pair table's rows carry their tokens' counts, best score first", () => {
  const labels = (row) => `${web.fullLabel(record.vocab, row.left)} + ${web.fullLabel(record.vocab, row.right)}`;
  const first = web.topRows(record, 0)[0];
  assert.equal(labels(first), "##g + ##s");
  assert.deepEqual([first.count, first.left_count, first.right_count], [5, 20, 5]);
  const third = web.topRows(record, 2);
  assert.equal(labels(third[0]), "hu + ##gs");
  const hug = third.find((row) => labels(row) === "hu + ##g");
  assert.deepEqual([hug.count, hug.left_count, hug.right_count], [10, 15, 15]);
  assert.equal(web.sameValue(record, third[0], hug), false, "1/15 and 2/45 do not tie");
});

test("merge 2's tie: six pairs at 1/36, all marked, the first in the text merged", () => {
  assert.equal(record.tied[1], 6);
  const table = web.topRows(record, 1);
  assert.equal(table.length, 6);
  assert.ok(table.every((row) => web.sameValue(record, row, table[0])));
  const merge = web.mergeOf(record, 2);
  assert.equal(`${web.fullLabel(record.vocab, merge.left)} + ${web.fullLabel(record.vocab, merge.right)}`, "h + ##u");
});

test("the quiz marks the best score right, not the most frequent pair", () => {
  // Before merge 1: ##g + ##s (5 times) has the best score; ##u + ##g (20 times) does not.
  const choices = web.quizChoices(record, 0);
  const right = web.rightRows(choices, record);
  assert.deepEqual(rows(right), [0]);
  const frequent = choices.find((choice) => choice.count === 20);
  assert.ok(frequent && !right.has(frequent.row), "the most frequent pair is a wrong answer");
  // Before merge 2 every offered pair ties at 1/36: all are right.
  assert.deepEqual(rows(web.rightRows(web.quizChoices(record, 1), record)), [0, 1, 2, 3]);
});

test("by frequency the same choices are marked by count", () => {
  const frequency = { ...record, score_rule: "frequency" };
  const choices = [
    { row: 0, count: 20, left_count: 36, right_count: 20 },
    { row: 1, count: 5, left_count: 20, right_count: 5 },
  ];
  assert.deepEqual(rows(web.rightRows(choices, frequency)), [0]);
  assert.deepEqual(rows(web.rightRows(choices, record)), [0]);
  choices[1].count = 20;
  assert.deepEqual(rows(web.rightRows(choices, frequency)), [0, 1]);
});

test("the text is cut at each step as the merges cut it, ## tokens named with ##", () => {
  const words = (k) => {
    const cut = web.tokensAt(record, k);
    const names = cut.ids.map((id) => web.fullLabel(record.vocab, id));
    const pieces = new Set(record.pieces);
    const out = [];
    cut.starts.forEach((symbol, index) => {
      if (pieces.has(symbol)) out.push([]);
      out[out.length - 1].push(names[index]);
    });
    return out;
  };
  assert.deepEqual(words(0)[0], ["h", "##u", "##g"]);
  assert.deepEqual(words(0).at(-1), ["h", "##u", "##g", "##s"]);
  assert.deepEqual(words(1).at(-1), ["h", "##u", "##gs"]);
  assert.deepEqual(words(2)[0], ["hu", "##g"]);
  assert.deepEqual(words(2).at(-1), ["hu", "##gs"]);
  assert.deepEqual(words(3).at(-1), ["hugs"]);
  assert.deepEqual(words(3)[10], ["p", "##u", "##g"]);
  assert.equal(words(3).length, 36);
});

test("a continuation token's entry keeps ## apart from its label", () => {
  const id = web.mergeOf(record, 1).made;
  assert.equal(record.vocab[id][0], "gs");
  assert.equal(web.fullLabel(record.vocab, id), "##gs");
});
