// Unigram's lattice in the browser (bpeviz/web/step/unigram_lattice.js) on the Hugging Face
// course's walk-through (LLM course, chapter 6, "Unigram tokenization"), worked by hand.
// Run by tests/test_web_js.py, which writes the script to $BPEVIZ_JS_CASES.
//
// The corpus ("hug",10) ("pug",5) ("pun",12) ("bun",4) ("hugs",5), seeded with all strict
// substrings and their frequencies (summing to 210):
//   h 15, u 36, g 20, hu 15, ug 20, p 17, pu 17, n 16, un 16, b 4, bu 4, s 5, hug 15,
//   gs 5, ugs 5.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

const folder = process.env.BPEVIZ_JS_CASES;
assert.ok(folder, "BPEVIZ_JS_CASES is not set: run these through tests/test_web_js.py");
const web = await import(join(folder, "bpeviz.mjs"));

const SEED = { h: 15, u: 36, g: 20, hu: 15, ug: 20, p: 17, pu: 17, n: 16, un: 16, b: 4, bu: 4, s: 5, hug: 15, gs: 5, ugs: 5 };
const TOTAL = 210;
const logProbs = new Map(Object.entries(SEED).map(([piece, n]) => [piece, Math.log(n / TOTAL)]));
const close = (actual, expected, tolerance = 1e-12) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} is not ${expected} (± ${tolerance})`);

test("pug: [p, ug] at 17/210 x 20/210 (the course prints 5/210 for p, which occurs 17 times)", () => {
  // [p ug] and [pu g] tie at 340/44100; the earlier start of the last piece wins ("ug" at 1).
  const { pieces, score } = web.viterbi("pug", logProbs, 16);
  assert.deepEqual(pieces, ["p", "ug"]);
  close(Math.exp(score), (17 / 210) * (20 / 210));
});

test("hugs: [h, ugs], the first of three segmentations tied at 75/44100", () => {
  // h+ugs, hu+gs and hug+s all give 15 x 5 / 210^2: the last piece starting earliest wins.
  const { pieces, score } = web.viterbi("hugs", logProbs, 16);
  assert.deepEqual(pieces, ["h", "ugs"]);
  close(Math.exp(score), 75 / 44100);
});

test("the Viterbi table of hug: the best piece ending at each position", () => {
  // end 1: h (15/210); end 2: hu (15/210) beats h+u (15*36/210^2); end 3: hug (15/210).
  const cells = web.viterbiCells([..."hug"], logProbs, 16);
  assert.deepEqual(cells.map((cell) => [cell.end, cell.piece, cell.start]), [[0, "", -1], [1, "h", 0], [2, "hu", 0], [3, "hug", 0]]);
  close(Math.exp(cells[2].score), 15 / 210);
  assert.deepEqual(web.bestPath(cells).map((step) => step.piece), ["hug"]);
});

test("every segmentation of hug, with its probability and share", () => {
  // In units of 1/210^3: hug 15*210^2 = 661500, hu+g and h+ug 15*20*210 = 63000 each,
  // h+u+g 15*36*20 = 10800; the word's total 798300.
  const { count, list } = web.segmentations("hug", logProbs, 16);
  assert.equal(count, 4);
  assert.deepEqual(list.map((row) => row.pieces.join(" ")), ["hug", "hu g", "h ug", "h u g"]);
  const units = [661500, 63000, 63000, 10800];
  list.forEach((row, i) => {
    close(row.probability, units[i] / 210 ** 3);
    close(row.share, units[i] / 798300);
  });
});

test("at temperature 2 the shares follow the square roots of the probabilities", () => {
  const roots = [15 / 210, 300 / 44100, 300 / 44100, 10800 / 9261000].map(Math.sqrt);
  const sum = roots.reduce((a, b) => a + b, 0);
  const { list } = web.segmentations("hug", logProbs, 16, 2);
  list.forEach((row, i) => close(row.share, roots[i] / sum));
});

test("sampling hug at temperature 1 draws each segmentation about as often as its share", () => {
  const draws = 20000;
  const counts = web.sampleCounts("hug", logProbs, 16, 1, draws, web.seededRandom(33));
  const share = Object.fromEntries(counts.map((row) => [row.pieces.join(" "), row.count / draws]));
  // hand shares 0.8286, 0.0789, 0.0789, 0.0135; binomial sd at 20,000 draws is at most 0.0036
  close(share["hug"], 661500 / 798300, 0.015);
  close(share["hu g"], 63000 / 798300, 0.015);
  close(share["h ug"], 63000 / 798300, 0.015);
  close(share["h u g"], 10800 / 798300, 0.015);
  assert.equal(counts.reduce((sum, row) => sum + row.count, 0), draws);
});

test("near temperature 0 every draw is the Viterbi path; very hot, every segmentation alike", () => {
  const cold = web.sampleCounts("hug", logProbs, 16, 0.05, 500, web.seededRandom(1));
  assert.deepEqual(cold.map((row) => [row.pieces.join(" "), row.count]), [["hug", 500]]);
  const hot = web.sampleCounts("hug", logProbs, 16, 1000, 8000, web.seededRandom(2));
  assert.equal(hot.length, 4);
  for (const row of hot) close(row.count / 8000, 0.25, 0.03);
});

test("the same seed draws the same samples", () => {
  const a = web.sampleCounts("hugs", logProbs, 16, 1, 50, web.seededRandom(7));
  const b = web.sampleCounts("hugs", logProbs, 16, 1, 50, web.seededRandom(7));
  assert.deepEqual(a, b);
});

test("a character no piece covers falls back to its UTF-8 bytes, <0xE8><0xAA><0x9E> for 語", () => {
  const unknown = Math.log(4 / 210) - 10; // the least likely piece's score, minus 10
  const { pieces } = web.viterbi("hug語", logProbs, 16, unknown);
  assert.deepEqual(pieces, ["hug", "<0xE8>", "<0xAA>", "<0x9E>"]);
});

test("a temperature of 0 or less is refused", () => {
  assert.throws(() => web.sampleSegmentation("hug", logProbs, 16, 0, Math.random), RangeError);
});
