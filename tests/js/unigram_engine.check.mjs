// Not a test by itself: tests/test_unigram_web.py runs this with Node and compares what it
// prints with the engine. It reads $BPEVIZ_JS_CASES/unigram.json (Unigram step records) and
// prints, per record and round, every drawn word's Viterbi cut and log score, and for the
// words it names, every segmentation with its probability.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const folder = process.env.BPEVIZ_JS_CASES;
const web = await import(join(folder, "bpeviz.mjs"));
const cases = JSON.parse(readFileSync(join(folder, "unigram.json"), "utf-8"));
const out = {};
for (const [name, { record, listed }] of Object.entries(cases)) {
  const length = record.settings.max_piece_length;
  out[name] = record.rounds.map((round, r) => {
    const probs = web.roundLogProbs(record, r);
    return {
      cuts: record.words.map((word) => {
        const { pieces, score } = web.viterbi(word, probs, length, round.unknown);
        return [pieces, score];
      }),
      listed: listed.map((word) => web.segmentations(word, probs, length).list.map((row) => [row.pieces, row.probability])),
    };
  });
}
process.stdout.write(JSON.stringify(out));
