// ---- the record: its version, the vocabulary it leaves to be joined, the text at step k ----
// Pure functions of the record (bpeviz.records.step.payload, bpeviz.records.tokens.tokens_data), no
// DOM: tests/js holds each one equal to the engine. Fields are read by the names that
// bpeviz.records.schema gives them (VOCAB, MERGE, TOP, ..., written above this file).

// Why a record cannot be drawn, in one sentence, or null when it can.
export function schemaProblem(record) {
  if (record && record.schema === SCHEMA) return null;
  const found = record && record.schema !== undefined ? `version ${record.schema}` : "no version";
  return `This record has ${found}, but this page draws version ${SCHEMA}: export the page again, or reload the app.`;
}

export function labelText(label) {
  return typeof label === "string" ? label : label.join("");
}

// A token's text as a reader names it, from its vocabulary entry: its label, `</w>` when it
// ends a word, `##` before it when it continues a WordPiece word.
export function entryLabel(entry) {
  const kind = entry[VOCAB.kind];
  const text = labelText(entry[VOCAB.label]);
  if (kind === KIND.CONTINUATION) return CONTINUATION_MARK + text;
  return text + (kind === KIND.END_OF_WORD ? END_OF_WORD : "");
}

export function fullLabel(vocab, id) {
  return entryLabel(vocab[id]);
}

// A pair in words, as the sentences name it: “a” + “b”.
export function pairWords(vocab, left, right) {
  return `${quoted(fullLabel(vocab, left))} + ${quoted(fullLabel(vocab, right))}`;
}

// A step record's merge `number` (1-based) by name: {left, right, made, count, replacements}.
export function mergeOf(record, number) {
  const row = record.merges[number - 1];
  return Object.fromEntries(Object.entries(MERGE).map(([name, index]) => [name, row[index]]));
}

// The rows of a flattened pair table (record.tops[k]) by name: [{left, right, count}], and a
// WordPiece record's {left_count, right_count} too (width SCORE_TOP_ROW).
export function pairRows(flat, width = TOP_ROW) {
  const rows = [];
  for (let at = 0; at < flat.length; at += width) {
    const row = { left: flat[at + TOP.left], right: flat[at + TOP.right], count: flat[at + TOP.count] };
    if (width === SCORE_TOP_ROW) {
      row.left_count = flat[at + SCORE_TOP.left_count];
      row.right_count = flat[at + SCORE_TOP.right_count];
    }
    rows.push(row);
  }
  return rows;
}

// Whether a step record is a WordPiece run's (bpeviz.records.wordpiece_step), and whether
// its merges go by score (else by count, as BPE's and WordPiece's frequency rule do).
export const isWordPiece = (record) => record.algorithm === "wordpiece";
export const byScore = (record) => isWordPiece(record) && record.score_rule === "score";

// The head of the pair table after k merges, by name.
export function topRows(record, k) {
  return pairRows(record.tops[k] || [], isWordPiece(record) ? SCORE_TOP_ROW : TOP_ROW);
}

function gcd(a, b) {
  while (b) [a, b] = [b, a % b];
  return a;
}

// A WordPiece row's score, count / (left_count × right_count), reduced: [numerator,
// denominator] (exact, as the trainer compares them).
export function scoreFraction(row) {
  const denominator = row.left_count * row.right_count;
  const common = gcd(row.count, denominator) || 1;
  return [row.count / common, denominator / common];
}

// A score as the card and the table write it: "1/20 ≈ 0.0500" (score_text in Python).
export function scoreText(row) {
  const [numerator, denominator] = scoreFraction(row);
  return `${numerator}/${denominator} ≈ ${(numerator / denominator).toFixed(4)}`;
}

// Whether two rows of a record's pair table tie under its rule: the same score (compared
// exactly, crosswise), or the same count.
export function sameValue(record, a, b) {
  if (!byScore(record)) return a.count === b.count;
  return a.count * b.left_count * b.right_count === b.count * a.left_count * a.right_count;
}

// The parents [left, right] a step record gives token `id`, or null (a byte, </w>, special,
// a WordPiece character).
export function stepParents(record, id) {
  if (id < record.base || id >= record.base + record.merge_count) return null;
  const merge = mergeOf(record, id - record.base + 1);
  return [merge.left, merge.right];
}

// The parents a tokens record (bpeviz.records.tokens) gives token `id` by name, {left, right,
// number} (number: the merge or the rank that builds it), or null (a byte, a special).
export function tokenParents(record, id) {
  const row = record.parents && record.parents[id];
  return row ? { left: row[PARENT.left], right: row[PARENT.right], number: row[PARENT.number] } : null;
}

// The record leaves a merged token's bytes (and a long token's label) for the browser to
// join from its parents'. Parents always have smaller ids, so one pass in id order fills
// every entry. Returns a new vocabulary: the record itself, perhaps shared, is not changed.
export function completeVocab(vocab, parentsOf) {
  const done = Array.isArray(vocab) ? [] : {};
  const ids = Object.keys(vocab).map(Number).sort((a, b) => a - b);
  for (const id of ids) {
    const entry = [...vocab[id]];
    done[id] = entry;
    const parents = entry[VOCAB.hex] === "" || entry[VOCAB.label] === null ? parentsOf(id) : null;
    if (!parents) continue;
    const [left, right] = parents.map((parent) => done[parent]);
    if (entry[VOCAB.hex] === "") entry[VOCAB.hex] = left[VOCAB.hex] + right[VOCAB.hex];
    if (entry[VOCAB.label] === null) entry[VOCAB.label] = labelText(left[VOCAB.label]) + labelText(right[VOCAB.label]);
    if (entry[VOCAB.broken] === JOINED) {
      const marker = entry[VOCAB.kind] === KIND.END_OF_WORD ? 2 * END_OF_WORD.length : 0;
      entry[VOCAB.broken] = entry[VOCAB.hex].slice(0, entry[VOCAB.hex].length - marker);
    }
  }
  return done;
}

// The text at step k, as History.segmentation cuts it: a token starts where the boundary
// before a symbol is still there after k merges; its id is the one the last merge inside it
// made, else its first symbol's. {starts: symbol indices, ids}.
export function tokensAt(record, k) {
  const starts = [];
  const ids = [];
  const { symbols, death, base } = record;
  let start = 0;
  let inner = -1;
  for (let i = 0; i < symbols.length; i++) {
    if (i > 0 && death[i] > k) {
      starts.push(start);
      ids.push(inner > 0 ? base + inner - 1 : symbols[start]);
      start = i;
      inner = -1;
    } else if (i > 0 && death[i] > inner) {
      inner = death[i];
    }
  }
  if (symbols.length) {
    starts.push(start);
    ids.push(inner > 0 ? base + inner - 1 : symbols[start]);
  }
  return { starts, ids };
}

// What the Step page shows at step k, `when` "before" or "after" the merge: the tokens, one
// mark each ("" or one of MARK), the legend, and which tokens start a piece.
export function viewAt(record, k, when) {
  const view = cutAt(record, k, when);
  const starts = new Set(record.pieces);
  view.pieceStarts = new Set();
  view.starts.forEach((symbol, index) => {
    if (starts.has(symbol)) view.pieceStarts.add(index);
  });
  return view;
}

function cutAt(record, k, when) {
  if (k === 0 && record.merge_count === 0) {
    const shown = tokensAt(record, 0);
    return { ...shown, marks: shown.ids.map(() => ""), legend: null, merge: 0 };
  }
  if (k > 0 && when !== "before") {
    const shown = tokensAt(record, k);
    const made = mergeOf(record, k).made;
    return { ...shown, marks: shown.ids.map((id) => (id === made ? MARK.NEW : "")), legend: "new", merge: k };
  }
  const merge = Math.max(k, 1); // the pair of that merge, outlined just before it
  const shown = tokensAt(record, merge - 1);
  const n = shown.starts.length;
  const marks = new Array(n).fill("");
  for (let t = 0; t < n; t++) {
    const endsInPair = t + 1 < n && record.death[shown.starts[t + 1]] === merge;
    const startsInPair = t > 0 && record.death[shown.starts[t]] === merge;
    if (endsInPair) marks[t] = MARK.PAIR_START;
    else if (startsInPair) marks[t] = MARK.PAIR_END;
  }
  return { ...shown, marks, legend: "pair", merge };
}

// The quiz's choices for the merge after step k, in the order shown: {row, left, right,
// count}, row 0 being the real next merge (bpeviz.records.step.quiz_order made the order).
export function quizChoices(record, k) {
  const rows = topRows(record, k);
  return record.quiz[k].map((row) => ({ row, ...rows[row] }));
}

// Which quiz answers are right: the rows of `choices` ({row, count}, row 0 the real next
// merge) whose pair occurred as often as the merge's (in a WordPiece run by score: whose
// score is the merge's). When pairs tie, the rule decides which one merges (a convention, not
// something a student can see in the counts), so every tied pair counts as right. The live
// class's quiz marks answers with this too.
export function rightRows(choices, record = {}) {
  const merged = choices.find((choice) => choice.row === 0);
  if (!merged) return new Set();
  return new Set(choices.filter((choice) => sameValue(record, choice, merged)).map((choice) => choice.row));
}

// The palette colour of a token drawn by itself (a chip): the same id has the same colour
// wherever it is drawn (bpeviz.web.colour_index, for the chips Python draws).
export const colourIndex = (id) => id % PALETTE_SIZE;

// The palette index of each token of a text: the same id usually keeps its colour; neighbours
// never share one.
export function colourIndices(ids) {
  const colours = [];
  let previous = -1;
  for (const id of ids) {
    let colour = colourIndex(id);
    if (colour === previous) colour = (colour + 1) % PALETTE_SIZE;
    colours.push(colour);
    previous = colour;
  }
  return colours;
}

const CONTINUATION = (byte) => byte >= 0x80 && byte < 0xc0;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
}

// Runs of two or more tokens that only together make whole characters: a Map of the run's
// first index to [its end, the characters].
export function charGroups(vocab, ids) {
  const groups = new Map();
  const broken = (id) => vocab[id][VOCAB.broken];
  const firstByte = (id) => {
    if (broken(id)) return parseInt(broken(id).substr(0, 2), 16);
    return labelText(vocab[id][VOCAB.label]) ? 0 : -1; // whole characters start with a lead byte
  };
  let runStart = 0;
  for (let index = 1; index <= ids.length; index++) {
    const clean = index === ids.length || !CONTINUATION(firstByte(ids[index]));
    if (!clean) continue;
    if (index - runStart >= 2 && ids.slice(runStart, index).every(broken)) {
      const parts = ids.slice(runStart, index).map((id) => hexBytes(broken(id)));
      const joined = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
      let at = 0;
      for (const part of parts) {
        joined.set(part, at);
        at += part.length;
      }
      try {
        groups.set(runStart, [index, strictUtf8.decode(joined)]);
      } catch (error) {
        // not whole characters even together: no group
      }
    }
    runStart = index;
  }
  return groups;
}
