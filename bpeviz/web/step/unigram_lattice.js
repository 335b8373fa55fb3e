// ---- Unigram: one word's lattice, its Viterbi table, every segmentation, and sampling ------
// Pure functions of a word and a round's log probabilities (a Map piece -> ln P), the same
// recipe as bpeviz/engine/unigram_lattice.py and UnigramModel.viterbi_log, held equal to them
// by tests/test_unigram_web.py. A word is indexed by code points, as Python indexes it. Ties
// go to the piece that starts earliest (a later start must score strictly higher), as in
// SentencePiece and the tokenizers library.

const MAX_SEGMENTATIONS = 10000; // as bpeviz.engine.unigram_lattice: more are not listed

// The log probabilities of round `r` of a Unigram record: its first `known` pieces.
export function roundLogProbs(record, r) {
  const round = record.rounds[r];
  const probs = new Map();
  for (let i = 0; i < round.known; i++) probs.set(record.pieces[i], round.log_probs[i]);
  return probs;
}

// A byte fallback piece, as SentencePiece names it: `<0xE3>`.
export function bytePieces(text) {
  return [...new TextEncoder().encode(text)].map((byte) => `<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`);
}

// Position `end` of a word: the best log score of its first `end` characters and the piece
// ending there on that best path (`start` -1: none reaches it). `unknown` scores a character
// no piece covers (undefined: it has none).
export function viterbiCells(chars, logProbs, maxLength, unknown) {
  const cells = [{ end: 0, score: 0, piece: "", start: -1 }];
  for (let end = 1; end <= chars.length; end++) {
    let best = -Infinity;
    let bestStart = -1;
    for (let start = Math.max(0, end - maxLength); start < end; start++) {
      const piece = chars.slice(start, end).join("");
      let value = logProbs.get(piece);
      if (value === undefined && end - start === 1 && unknown !== undefined) value = unknown;
      if (value === undefined) continue;
      const before = cells[start].score;
      if (before === -Infinity) continue;
      const score = before + value;
      if (bestStart < 0 || score > best) {
        best = score;
        bestStart = start;
      }
    }
    cells.push({ end, score: best, piece: bestStart >= 0 ? chars.slice(bestStart, end).join("") : "", start: bestStart });
  }
  return cells;
}

// The best path read back from the cells: [{piece, start, end}], empty when none reaches the end.
export function bestPath(cells) {
  const path = [];
  let end = cells.length - 1;
  while (end > 0) {
    const cell = cells[end];
    if (cell.start < 0) return [];
    path.push({ piece: cell.piece, start: cell.start, end });
    end = cell.start;
  }
  return path.reverse();
}

// A word cut as UnigramModel.viterbi_log cuts it: {pieces, score}; characters no piece covers
// come out as their UTF-8 bytes (`<0xE3>`), scored `unknown` each.
export function viterbi(word, logProbs, maxLength, unknown) {
  const chars = Array.from(word);
  const cells = viterbiCells(chars, logProbs, maxLength, unknown);
  const pieces = [];
  let run = "";
  for (const { piece } of bestPath(cells)) {
    if (logProbs.has(piece)) {
      pieces.push(...bytePieces(run), piece);
      run = "";
    } else {
      run += piece;
    }
  }
  pieces.push(...bytePieces(run));
  return { pieces, score: cells[cells.length - 1].score };
}

// For each end position, the start positions of the pieces ending there (ascending).
function latticeStarts(chars, logProbs, maxLength) {
  const found = [[]];
  for (let end = 1; end <= chars.length; end++) {
    const here = [];
    for (let start = Math.max(0, end - maxLength); start < end; start++) {
      if (logProbs.has(chars.slice(start, end).join(""))) here.push(start);
    }
    found.push(here);
  }
  return found;
}

const logAdd = (a, b) => (a === -Infinity ? b : b === -Infinity ? a : Math.max(a, b) + Math.log1p(Math.exp(-Math.abs(a - b))));

// ln of the sums of every way to write each prefix, with log probabilities divided by
// `temperature` (1: the model's own).
function forwardSums(chars, logProbs, maxLength, temperature, lattice) {
  const alpha = [0, ...chars.map(() => -Infinity)];
  for (let end = 1; end <= chars.length; end++) {
    for (const start of lattice[end]) {
      alpha[end] = logAdd(alpha[end], alpha[start] + logProbs.get(chars.slice(start, end).join("")) / temperature);
    }
  }
  return alpha;
}

// Every segmentation with its log probability (score), probability and its share of the word's total probability
// (at `temperature`: P ** (1/T), renormalised), most probable first (equal ones in the
// order found: left pieces longest first), as all_segmentations; {count, list} with list
// null when there are more than MAX_SEGMENTATIONS.
export function segmentations(word, logProbs, maxLength, temperature = 1) {
  const chars = Array.from(word);
  const lattice = latticeStarts(chars, logProbs, maxLength);
  const counts = [1];
  for (let end = 1; end <= chars.length; end++) counts.push(lattice[end].reduce((sum, start) => sum + counts[start], 0));
  const count = counts[chars.length];
  if (count > MAX_SEGMENTATIONS) return { count, list: null };
  const ends = chars.map(() => []);
  lattice.forEach((from, end) => from.forEach((start) => ends[start].push(end)));
  const total = forwardSums(chars, logProbs, maxLength, temperature, lattice)[chars.length];
  const list = [];
  const extend = (position, pieces, score) => {
    if (position === chars.length) {
      list.push({ pieces: [...pieces], score, probability: Math.exp(score), share: Math.exp(score / temperature - total) });
      return;
    }
    for (const end of [...ends[position]].sort((a, b) => b - a)) {
      const piece = chars.slice(position, end).join("");
      pieces.push(piece);
      extend(end, pieces, score + logProbs.get(piece));
      pieces.pop();
    }
  };
  extend(0, [], 0);
  list.sort((a, b) => b.probability - a.probability); // stable: equal ones keep their order
  return { count, list };
}

// A generator of numbers in [0, 1) from a seed (mulberry32): the same draws for the same
// seed, so a class sees the same samples and a test can count them.
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One segmentation drawn with probability proportional to P(segmentation) ** (1/temperature)
// (subword regularisation; SentencePiece's alpha is 1/temperature): forward sums, then
// pieces drawn from the end backwards, as sample_segmentation.
export function sampleSegmentation(word, logProbs, maxLength, temperature, random) {
  if (!(temperature > 0)) throw new RangeError(`the temperature must be above 0, got ${temperature}`);
  const chars = Array.from(word);
  const lattice = latticeStarts(chars, logProbs, maxLength);
  const alpha = forwardSums(chars, logProbs, maxLength, temperature, lattice);
  if (alpha[chars.length] === -Infinity) throw new RangeError("no segmentation uses only pieces of the vocabulary");
  const pieces = [];
  let end = chars.length;
  while (end > 0) {
    const from = lattice[end];
    const weights = from.map((start) => Math.exp(alpha[start] + logProbs.get(chars.slice(start, end).join("")) / temperature - alpha[end]));
    let pick = random() * weights.reduce((sum, w) => sum + w, 0);
    let chosen = from[from.length - 1];
    for (let i = 0; i < from.length; i++) {
      pick -= weights[i];
      if (pick < 0) {
        chosen = from[i];
        break;
      }
    }
    pieces.push(chars.slice(chosen, end).join(""));
    end = chosen;
  }
  return pieces.reverse();
}

// Draw `draws` segmentations and count each: [{pieces, count}], most frequent first (equal:
// first drawn first).
export function sampleCounts(word, logProbs, maxLength, temperature, draws, random) {
  const found = new Map();
  for (let i = 0; i < draws; i++) {
    const pieces = sampleSegmentation(word, logProbs, maxLength, temperature, random);
    const key = JSON.stringify(pieces);
    const held = found.get(key) || { pieces, count: 0 };
    held.count += 1;
    found.set(key, held);
  }
  return [...found.values()].sort((a, b) => b.count - a.count);
}
