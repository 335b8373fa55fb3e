// ---- token spans: every page's coloured tokens, and the legend that says what marks mean ---

function appendLabel(node, label) {
  if (typeof label === "string") {
    node.append(label);
    return;
  }
  label.forEach((run, index) => {
    if (!run) return;
    if (index % 2) node.append(el("span", "bpe-hex", run));
    else node.append(run);
  });
}

// What a mark means, in words: a screen reader says it where the eye sees an outline.
const MARK_NAMES = {
  [MARK.PAIR_START]: "start of the pair about to merge",
  [MARK.PAIR_END]: "end of the pair about to merge",
  [MARK.NEW]: "new token",
};

// A token's accessible name: its text, its id, and its mark in words.
function tokenName(entry, id, mark) {
  const text = entryLabel(entry);
  const special = entry[VOCAB.kind] === KIND.SPECIAL ? ", special token" : "";
  return `${text}, id ${id}${special}${mark ? `, ${MARK_NAMES[mark]}` : ""}`;
}

function tokenSpan(entry, id, colour, mark) {
  const special = entry[VOCAB.kind] === KIND.SPECIAL;
  const span = el("span", special ? "bpe-t bpe-special" : `bpe-t bpe-c${colour}`);
  if (mark) span.classList.add(`bpe-${mark}`);
  span.dataset.id = id;
  span.title = entry[VOCAB.title];
  span.setAttribute("role", "button"); // Enter or Space inspects it (keyboard.js)
  span.setAttribute("aria-label", tokenName(entry, id, mark));
  if (entry[VOCAB.kind] === KIND.CONTINUATION) span.append(el("span", "bpe-cont", CONTINUATION_MARK));
  appendLabel(span, entry[VOCAB.label]);
  if (entry[VOCAB.kind] === KIND.END_OF_WORD) span.append(el("span", "bpe-eow", END_OF_WORD));
  if (!span.textContent) span.append("\u200b");
  return span;
}

// A step redraws thousands of tokens of which a merge changes a few: a token at the same
// place with the same id, colour and mark keeps its element (a Map of at most one per place).
function cachedSpan(cache, key, entry, id, colour, mark) {
  const held = cache.get(key);
  if (held && held.node && held.id === id && held.colour === colour && held.mark === mark) {
    held.node.classList.remove("bpe-hit");
    held.node.removeAttribute("aria-current");
    return held.node;
  }
  const node = tokenSpan(entry, id, colour, mark);
  cache.set(key, { id, colour, mark, node });
  return node;
}

// Spans for ids with one mark each, from a completed vocabulary (completeVocab).
// options.pieces: a Set of the token indices that start a piece of the pre-tokenizer: each
// piece is kept whole on one line where it fits (a line breaks only between pieces, never
// inside a word), and outlined unless options.outline is false; options.groupChars: false
// draws split characters ungrouped.
export function tokenSpans(vocab, ids, marks, options = {}) {
  // Each line of the text is a block of its own. With options.cache (a Map kept across
  // steps, options.keys naming each token's place), every element whose content is
  // unchanged is kept where it is and only what a merge changed is touched: the browser
  // then restyles and repaints a handful of tokens, not thousands.
  const cache = options.cache || new Map();
  const keys = options.keys || ids.map((_, index) => index);
  const colours = colourIndices(ids);
  const groups = options.groupChars === false ? new Map() : charGroups(vocab, ids);
  const pieces = options.pieces || null;
  const [pieceKey, pieceClass] = options.outline === false ? ["W", "bpe-word"] : ["P", "bpe-piece"];
  const wanted = new Map(); // element -> the children it should have, in order
  const element = (key, tag, className) => {
    let node = cache.get(key);
    if (!node) {
      node = el(tag, className);
      cache.set(key, node);
    }
    wanted.set(node, []);
    return node;
  };
  const box = element("box", "div", "bpe-text");
  const add = (parent, node) => wanted.get(parent).push(node);
  const open = (parent, key, tag, className) => {
    const node = element(key, tag, className);
    add(parent, node);
    return node;
  };
  let line = open(box, `L${keys[0]}`, "div", "bpe-line");
  let piece = null;
  let group = null;
  let groupEnd = -1;
  let pendingBreaks = 0;
  const newLines = (key) => {
    for (let n = 1; n < pendingBreaks; n++) {
      const empty = open(box, `E${key}-${n}`, "div", "bpe-line bpe-empty");
      add(empty, element(`B${key}-${n}`, "br"));
    }
    pendingBreaks = 0;
    line = open(box, `L${key}`, "div", "bpe-line");
    if (piece) piece = open(line, `${pieceKey}Q${key}`, "span", `${pieceClass} bpe-piece-more`);
  };
  for (let index = 0; index < ids.length; index++) {
    const key = keys[index];
    if (index === groupEnd) {
      group = null;
      groupEnd = -1;
    }
    if (pieces && pieces.has(index)) {
      group = null;
      groupEnd = -1;
      piece = null;
    }
    if (!group && pendingBreaks) newLines(key);
    if (pieces && !piece) piece = open(line, `${pieceKey}${key}`, "span", pieceClass);
    if (groups.has(index)) {
      const [end, text] = groups.get(index);
      groupEnd = end;
      const shown = text.replace(/\u00a0/g, "\u237d");
      group = open(piece || line, `G${key}-${keys[end - 1]}`, "span", "bpe-g");
      if (group.getAttribute("data-char") !== shown) {
        group.setAttribute("data-char", shown);
        group.title = `${end - index} tokens spell ${shown}`;
      }
    }
    const id = ids[index];
    const entry = vocab[id];
    const mark = marks ? marks[index] : "";
    add(group || piece || line, cachedSpan(cache, `T${key}`, entry, id, colours[index], mark));
    pendingBreaks += entry[VOCAB.newlines] || 0;
  }
  if (pendingBreaks) {
    piece = null;
    newLines(`end${ids.length}`);
  }
  for (const [parent, children] of wanted) reconcile(parent, children);
  return box;
}

// What the outlines and odd spans of a text mean; kind "pair", "new" or null. With
// options.ids (the spans show ids, not text) byte pieces and whitespace are not drawn, so
// their keys are left out; whitespace's key shows only when some token draws it.
function legend(kind, vocab, ids, options = {}) {
  const row = el("div", "bpe-legend");
  const item = (...nodes) => {
    const cell = el("span");
    cell.append(...nodes);
    row.append(cell);
  };
  const example = (className, text) => el("span", `bpe-t ${className}`, text);
  if (kind === "pair") item(example(`bpe-c0 bpe-${MARK.PAIR_START}`, "a"), example(`bpe-c1 bpe-${MARK.PAIR_END}`, "b"), " the pair about to merge");
  if (kind === "new") item(example(`bpe-c0 bpe-${MARK.NEW}`, "ab"), " the new token");
  const unique = [...new Set(ids)];
  if (unique.length) {
    item(example("bpe-c3", "a"), example("bpe-c5", "b"), " colour = token id; the same token, the same colour");
    row.lastChild.title = "Eight colours, reused; two tokens side by side never share one.";
  }
  if (unique.some((id) => vocab[id][VOCAB.kind] === KIND.SPECIAL)) item(example("bpe-special", "<|x|>"), " special token");
  if (unique.some((id) => vocab[id][VOCAB.kind] === KIND.CONTINUATION)) {
    const inner = example("bpe-c4", "ug");
    inner.prepend(el("span", "bpe-cont", CONTINUATION_MARK));
    item(example("bpe-c1", "h"), inner, ` ${CONTINUATION_MARK}: continues the word before it (a token without ${CONTINUATION_MARK} starts a word)`);
  }
  if (options.ids) return row;
  if (unique.some((id) => vocab[id][VOCAB.broken])) {
    const hex = example("bpe-c2", "");
    hex.append(el("span", "bpe-hex", "<E3>"));
    item(hex, " a byte that is only part of a character");
  }
  // Whitespace symbols (WHITESPACE, bpeviz.engine.readable's table): each one drawn is keyed.
  const drawn = new Set(unique.flatMap((id) => [...labelText(vocab[id][VOCAB.label])]));
  const keys = Object.keys(WHITESPACE).filter((symbol) => drawn.has(symbol));
  if (keys.length) item(keys.map((symbol) => `${symbol} ${WHITESPACE[symbol]}`).join(" · "));
  return row;
}
