// The record's pure functions (bpeviz/web/core/record.js, inspector.js) held equal to the engine.
// Run by tests/test_web_js.py, which writes the script and the engine's cases to
// $BPEVIZ_JS_CASES; `node --test tests/js` alone has nothing to check against.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

const folder = process.env.BPEVIZ_JS_CASES;
assert.ok(folder, "BPEVIZ_JS_CASES is not set: run these through tests/test_web_js.py");
const web = await import(join(folder, "bpeviz.mjs"));
const cases = JSON.parse(readFileSync(join(folder, "cases.json"), "utf-8"));
const worked = JSON.parse(readFileSync(join(folder, "worked.json"), "utf-8"));

const completed = (record) => web.completeVocab(record.vocab, (id) => web.stepParents(record, id));
// A tokens record's parents of `id` as [left, right] (what completeVocab asks), or null.
const tokenParentPair = (tokens) => (id) => {
  const parents = web.tokenParents(tokens, id);
  return parents && [parents.left, parents.right];
};

describe("the Step page's outlines of aaabdaaabac, counted by hand (test_web_js.py)", () => {
  for (const [k, when, marks] of worked.outlines) {
    test(`step ${k}, ${when} the merge`, () => {
      assert.deepEqual(web.viewAt(worked.record, k, when).marks, marks);
    });
  }
});

for (const [name, want] of Object.entries(cases)) {
  const record = want.record;

  describe(name, () => {
    test("tokensAt cuts the text as History.segmentation does, at every step", () => {
      want.segmentation.forEach(([starts, ids], k) => {
        const shown = web.tokensAt(record, k);
        assert.deepEqual(shown.ids, ids, `ids at step ${k}`);
        assert.deepEqual(shown.starts.map((symbol) => record.offsets[symbol]), starts, `starts at step ${k}`);
      });
    });

    test("viewAt outlines what step_outline outlines, before and after each merge", () => {
      want.outlines.forEach(([before, after], k) => {
        assert.deepEqual(web.viewAt(record, k, "before").marks, before, `before, step ${k}`);
        assert.deepEqual(web.viewAt(record, k, "after").marks, after, `after, step ${k}`);
      });
    });

    test("completeVocab gives every token its whole entry, and leaves the record as it was", () => {
      const sent = JSON.stringify(record.vocab);
      assert.deepEqual(completed(record), want.entries);
      assert.equal(JSON.stringify(record.vocab), sent);
    });

    test("a tokens record's vocabulary completes to the same entries", () => {
      const tokens = want.tokens;
      const vocab = web.completeVocab(tokens.vocab, tokenParentPair(tokens));
      for (const [id, entry] of Object.entries(vocab)) assert.deepEqual(entry, want.entries[id], `token ${id}`);
    });

    test("quizChoices offers quiz_order's rows of the pair table, the real next merge among them", () => {
      want.quiz.forEach((rows, k) => {
        const choices = web.quizChoices(record, k);
        assert.deepEqual(choices.map(({ left, right, count }) => [left, right, count]), rows, `step ${k}`);
        const right = choices.find((choice) => choice.row === 0);
        assert.deepEqual([right.left, right.right], want.next_pairs[k], `the merge after step ${k}`);
      });
    });

    test("rightRows marks the next merge and every choice tied with it (History.tied_pairs)", () => {
      want.quiz.forEach((_, k) => {
        const choices = web.quizChoices(record, k);
        const tied = new Set([want.next_pairs[k], ...want.tied[k]].map((pair) => pair.join(",")));
        const expected = choices.filter(({ left, right }) => tied.has(`${left},${right}`)).map(({ row }) => row);
        assert.deepEqual([...web.rightRows(choices)].sort(), expected.sort(), `step ${k}`);
      });
    });

    test("buildTree builds each token from the merge list, for both records", () => {
      const strip = (node) => [node.id, node.children.map(strip)];
      const stepSource = web.stepSource({ ...record, vocab: completed(record) });
      const tokens = want.tokens;
      const tokensSource = web.tokensSource(tokens, web.completeVocab(tokens.vocab, tokenParentPair(tokens)));
      for (const [id, tree] of Object.entries(want.trees)) {
        assert.deepEqual(strip(web.buildTree(stepSource, Number(id))), tree, `token ${id}, step record`);
        assert.deepEqual(strip(web.buildTree(tokensSource, Number(id))), tree, `token ${id}, tokens record`);
      }
      assert.deepEqual(tokens.parents, want.parents);
    });

    test("charGroups groups the tokens that split a character under the characters they spell", { skip: want.groups === null }, () => {
      const ids = want.segmentation.at(-1)[1];
      const groups = [...web.charGroups(completed(record), ids)].map(([first, [end, text]]) => [first, end, text]);
      assert.deepEqual(groups, want.groups);
    });
  });
}

test("a record of another version is refused with a sentence that says what to do", () => {
  const record = Object.values(cases)[0].record;
  assert.equal(web.schemaProblem(record), null);
  const problem = web.schemaProblem({ ...record, schema: record.schema + 1 });
  assert.match(problem, new RegExp(`version ${record.schema + 1}.*draws version ${record.schema}: export the page again`));
  assert.match(web.schemaProblem({}), /no version/);
});

test("a token's colour is the one Python gives its chip (bpeviz.web.colour_index)", () => {
  const colours = JSON.parse(readFileSync(join(folder, "colours.json"), "utf-8"));
  assert.deepEqual(colours.map((_, id) => web.colourIndex(id)), colours);
});

test("colourIndices never gives two neighbours one colour", () => {
  const ids = Object.values(cases)[0].segmentation.at(-1)[1];
  const colours = web.colourIndices(ids);
  colours.forEach((colour, index) => {
    if (index) assert.notEqual(colour, colours[index - 1]);
  });
  assert.deepEqual(web.colourIndices([3, 3, 11, 4]), [3, 4, 3, 4]);
});
