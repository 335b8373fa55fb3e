// bpeviz in the browser: token spans and the Step page's view, drawn from the record that
// bpeviz.stepdata.payload computes (its docstring is the schema).
//
// One file, plain JavaScript, no build step and nothing fetched. Streamlit mounts it as a
// component (the default export); an exported HTML page calls the same `mount` itself.
// Every piece of user or token text reaches the page through `textContent` or an
// attribute, never as markup.

const PALETTE_SIZE = 8;
const REPORT_AFTER_MS = 600; // the server hears of the step once stepping stops this long
const SLIDE_MS = 260; // the animated merge (CSS, at most 300 ms)
const PACES = [
  [0.05, "20 / s"],
  [0.2, "5 / s"],
  [0.5, "0.5 s"],
  [1, "1 s"],
  [2, "2 s"],
  [3, "3 s"],
];
const KIND_END_OF_WORD = 1;
const KIND_SPECIAL = 2;
const CONTINUATION = (byte) => byte >= 0x80 && byte < 0xc0;

// ---- small DOM helpers ---------------------------------------------------------------------

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

const number = (value) => Number(value).toLocaleString("en-US");

function counted(count, noun) {
  return `${number(count)} ${count === 1 ? noun : noun + "s"}`;
}

// ---- the vocabulary: what the record leaves to be joined -----------------------------------

// stepdata.vocab_entries leaves a merged token's bytes (and a long token's label) for the
// browser to join from its parents'. Parents always have smaller ids, so one pass in id
// order fills every entry in place. parentsOf(id) gives [left, right] or null.
export function completeVocab(vocab, parentsOf) {
  const ids = Object.keys(vocab).map(Number).sort((a, b) => a - b);
  for (const id of ids) {
    const entry = vocab[id];
    const parents = entry[5] === "" || entry[0] === null ? parentsOf(id) : null;
    if (!parents) continue;
    const [left, right] = parents.map((parent) => vocab[parent]);
    if (entry[5] === "") entry[5] = left[5] + right[5];
    if (entry[0] === null) entry[0] = labelText(left[0]) + labelText(right[0]);
    if (entry[3] === 1) entry[3] = entry[2] === KIND_END_OF_WORD ? entry[5].slice(0, -8) : entry[5];
  }
  return vocab;
}

// ---- the text at step k, as History.segmentation cuts it -----------------------------------

export function tokensAt(p, k) {
  // A token starts where the boundary before a symbol is still there after k merges; its id
  // is the one the last merge inside it made, else its first symbol's.
  const starts = [];
  const ids = [];
  const { symbols, death, base } = p;
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

// What the Step page shows at step k: the tokens, one mark each ("", "ps", "pe", "new").
export function stepView(p, k, when) {
  const view = cutView(p, k, when);
  const starts = new Set(p.pieces);
  view.pieceStarts = new Set();
  view.starts.forEach((symbol, index) => {
    if (starts.has(symbol)) view.pieceStarts.add(index);
  });
  return view;
}

function cutView(p, k, when) {
  const merges = p.merge_count;
  if (k === 0 && merges === 0) {
    const shown = tokensAt(p, 0);
    return { ...shown, marks: shown.ids.map(() => ""), legend: null, merge: 0 };
  }
  if (k > 0 && when !== "before") {
    const shown = tokensAt(p, k);
    const made = p.merges[k - 1][2];
    return { ...shown, marks: shown.ids.map((id) => (id === made ? "new" : "")), legend: "new", merge: k };
  }
  const merge = Math.max(k, 1); // the pair of that merge, outlined just before it
  const shown = tokensAt(p, merge - 1);
  const n = shown.starts.length;
  const marks = new Array(n).fill("");
  for (let t = 0; t < n; t++) {
    const endsInPair = t + 1 < n && p.death[shown.starts[t + 1]] === merge;
    const startsInPair = t > 0 && p.death[shown.starts[t]] === merge;
    if (endsInPair) marks[t] = "ps";
    else if (startsInPair) marks[t] = "pe";
  }
  return { ...shown, marks, legend: "pair", merge };
}

// ---- token spans (every page's coloured tokens) --------------------------------------------

export function colourIndices(ids) {
  // The same id usually keeps its colour; neighbours never share one.
  const colours = [];
  let previous = -1;
  for (const id of ids) {
    let colour = id % PALETTE_SIZE;
    if (colour === previous) colour = (colour + 1) % PALETTE_SIZE;
    colours.push(colour);
    previous = colour;
  }
  return colours;
}

function labelText(label) {
  return typeof label === "string" ? label : label.join("");
}

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

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

// Runs of two or more tokens that only together make whole characters: [first, end, text].
export function charGroups(vocab, ids) {
  const groups = new Map();
  const firstByte = (id) => {
    const entry = vocab[id];
    if (entry[3]) return parseInt(entry[3].substr(0, 2), 16);
    return labelText(entry[0]) ? 0 : -1; // whole characters start with a lead byte
  };
  let runStart = 0;
  for (let index = 1; index <= ids.length; index++) {
    const clean = index === ids.length || !CONTINUATION(firstByte(ids[index]));
    if (!clean) continue;
    if (index - runStart >= 2 && ids.slice(runStart, index).every((id) => vocab[id][3])) {
      const parts = ids.slice(runStart, index).map((id) => hexBytes(vocab[id][3]));
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

function tokenSpan(entry, id, colour, mark) {
  const span = el("span", entry[2] === KIND_SPECIAL ? "bpe-t bpe-special" : `bpe-t bpe-c${colour}`);
  if (mark) span.classList.add(`bpe-${mark}`);
  span.dataset.id = id;
  span.title = entry[1];
  appendLabel(span, entry[0]);
  if (entry[2] === KIND_END_OF_WORD) span.append(el("span", "bpe-eow", "</w>"));
  if (!span.textContent) span.append("\u200b");
  return span;
}

// A step redraws thousands of tokens of which a merge changes a few: a token at the same
// place with the same id, colour and mark keeps its element (a Map of at most one per place).
function cachedSpan(cache, key, entry, id, colour, mark) {
  const held = cache.get(key);
  if (held && held.node && held.id === id && held.colour === colour && held.mark === mark) {
    held.node.classList.remove("bpe-hit");
    return held.node;
  }
  const node = tokenSpan(entry, id, colour, mark);
  cache.set(key, { id, colour, mark, node });
  return node;
}

// Spans for ids with one mark each; vocab entries as stepdata.vocab_entries makes them.
// options.pieces: a Set of the token indices that start a piece of the pre-tokenizer (each
// piece is then outlined); options.groupChars: false draws split characters ungrouped.
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
    if (piece) piece = open(line, `Q${key}`, "span", "bpe-piece bpe-piece-more");
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
    if (pieces && !piece) piece = open(line, `P${key}`, "span", "bpe-piece");
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
    pendingBreaks += entry[4] || 0;
  }
  if (pendingBreaks) {
    piece = null;
    newLines(`end${ids.length}`);
  }
  for (const [parent, children] of wanted) reconcile(parent, children);
  return box;
}

// Give parent exactly these children in this order, moving as few as possible.
function reconcile(parent, children) {
  const keep = new Set(children);
  for (const child of [...parent.childNodes]) {
    if (!keep.has(child)) child.remove();
  }
  let current = parent.firstChild;
  for (const child of children) {
    if (child === current) {
      current = current.nextSibling;
    } else {
      parent.insertBefore(child, current);
    }
  }
}

function legend(kind, vocab, ids) {
  const row = el("div", "bpe-legend");
  const item = (...nodes) => {
    const cell = el("span");
    cell.append(...nodes);
    row.append(cell);
  };
  const chip = (className, text) => el("span", `bpe-t ${className}`, text);
  if (kind === "pair") item(chip("bpe-c0 bpe-ps", "a"), chip("bpe-c1 bpe-pe", "b"), " the pair about to merge");
  if (kind === "new") item(chip("bpe-c0 bpe-new", "ab"), " the new token");
  const unique = [...new Set(ids)];
  if (unique.some((id) => vocab[id][2] === KIND_SPECIAL)) item(chip("bpe-special", "<|x|>"), " special token");
  if (unique.some((id) => vocab[id][3])) {
    const hex = chip("bpe-c2", "");
    hex.append(el("span", "bpe-hex", "<E3>"));
    item(hex, " a byte that is only part of a character");
  }
  item("␣ space · ↵ newline · ⇥ tab");
  return row;
}

// ---- the Step page's view ------------------------------------------------------------------

function chip(vocab, id, isNew) {
  const box = el("span", "bpe-chipbox");
  const entry = vocab[id];
  const text = labelText(entry[0]) + (entry[2] === KIND_END_OF_WORD ? "</w>" : "");
  const face = el("span", `bpe-chip bpe-c${id % PALETTE_SIZE}${isNew ? " bpe-new" : ""}`, text || "\u200b");
  box.append(face, el("span", "bpe-chipid", `id ${id}`));
  return box;
}

function card(p, k) {
  const box = el("div", "bpe-card");
  if (k === 0) {
    box.append(el("div", "bpe-card-title", "Step 0: no merges yet"), el("p", "", p.start[0]), el("p", "", p.start[1]));
    return box;
  }
  const [left, right, made] = p.merges[k - 1];
  const [counts, tie] = p.sentences[k - 1];
  const equation = el("div", "bpe-eq");
  equation.append(chip(p.vocab, left), el("span", "bpe-op", "+"), chip(p.vocab, right), el("span", "bpe-op", "→"), chip(p.vocab, made, true));
  box.append(el("div", "bpe-card-title", `Merge ${number(k)} of ${number(p.merge_count)}`), equation, el("p", "", counts));
  if (tie) {
    const sentence = el("p", "bpe-tie");
    sentence.append(el("b", "", "Tie."), " ", tie);
    box.append(sentence);
  }
  return box;
}

function metric(label, value, delta, help) {
  const box = el("div", "bpe-metric");
  box.append(el("div", "bpe-metric-label", label), el("div", "bpe-metric-value", value));
  if (delta) box.append(el("div", `bpe-metric-delta ${delta[1]}`, delta[0]));
  if (help) box.title = help;
  return box;
}

function counts(p, k) {
  const row = el("div", "bpe-metrics");
  const tokens = p.tokens[k];
  const ratio = (n) => (n ? p.text_bytes / n : 0);
  const merge = k ? p.merges[k - 1] : null;
  const change = ratio(tokens) - (k ? ratio(p.tokens[k - 1]) : 0);
  let perToken = "The text's bytes divided by its tokens.";
  if (p.end_of_word) perToken += " Each word's </w> marker is a token too, so this starts below 1.";
  row.append(
    metric("Tokens in the text", number(tokens), merge ? [`↓ ${number(merge[4])}`, "bpe-good"] : null),
    metric("Bytes per token", ratio(tokens).toFixed(3), merge ? [`${change >= 0 ? "↑ +" : "↓ "}${change.toFixed(3)}`, change >= 0 ? "bpe-good" : "bpe-bad"] : null, perToken),
    metric("Vocabulary size", number(p.base + k), null, "Base symbols + k merges"),
    metric("Merges done", `${number(k)} of ${number(p.merge_count)}`),
  );
  return row;
}

function pairTable(p, k) {
  const box = el("div", "bpe-pairs");
  const table = k ? k - 1 : 0;
  const chosen = p.merge_count ? p.merges[Math.max(k, 1) - 1] : null;
  box.append(el("h3", "", k ? `Pairs before merge ${number(k)}` : "Pairs now"));
  const flat = p.tops[table] || [];
  if (!flat.length) {
    box.append(el("p", "bpe-note", "No pairs: every piece of the text is a single token."));
    return box;
  }
  const grid = el("table", "bpe-pair-table");
  const head = el("tr");
  for (const name of ["#", "left + right", "count", ""]) head.append(el("th", "", name));
  grid.append(head);
  const top = flat[2];
  const tied = p.tied[table];
  for (let row = 0; row * 3 < flat.length; row++) {
    const [left, right, count] = flat.slice(row * 3, row * 3 + 3);
    const line = el("tr");
    line.dataset.pair = `${left},${right}`;
    let note = "";
    if (row === 0 && chosen && chosen[0] === left && chosen[1] === right) note = `◀ merge ${number(Math.max(k, 1))}`;
    else if (tied > 1 && count === top) note = "tied";
    const pair = el("td", "bpe-pair");
    pair.textContent = `${labelText(p.vocab[left][0])} + ${labelText(p.vocab[right][0])}`;
    const bar = el("td", "bpe-count");
    const fill = el("span", "bpe-bar");
    fill.style.width = `${Math.max(2, (100 * count) / top)}%`;
    bar.append(fill, el("span", "bpe-count-n", number(count)));
    line.append(el("td", "bpe-rank", row + 1), pair, bar, el("td", "bpe-note", note));
    grid.append(line);
  }
  box.append(grid);
  box.append(el("p", "bpe-caption", `Top ${flat.length / 3} pairs, best first: the top row is the pair the merge picks; ties are marked.`));
  return box;
}

function chart(p) {
  // Tokens in the text after each merge; the marker moves, the line is drawn once.
  const ns = "http://www.w3.org/2000/svg";
  const width = 360;
  const height = 150;
  const pad = { left: 56, right: 10, top: 10, bottom: 30 };
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "bpe-chart");
  svg.setAttribute("role", "img");
  const most = Math.max(...p.tokens, 1);
  const least = Math.min(...p.tokens);
  const x = (k) => pad.left + ((width - pad.left - pad.right) * k) / Math.max(p.merge_count, 1);
  const y = (n) => pad.top + ((height - pad.top - pad.bottom) * (most - n)) / Math.max(most - least, 1);
  const step = Math.max(1, Math.floor(p.tokens.length / 400));
  const points = [];
  for (let k = 0; k < p.tokens.length; k += step) points.push(`${x(k).toFixed(1)},${y(p.tokens[k]).toFixed(1)}`);
  points.push(`${x(p.merge_count).toFixed(1)},${y(p.tokens[p.merge_count]).toFixed(1)}`);
  const add = (tag, attributes, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  add("line", { x1: pad.left, y1: height - pad.bottom, x2: width - pad.right, y2: height - pad.bottom, class: "bpe-axis" });
  add("line", { x1: pad.left, y1: pad.top, x2: pad.left, y2: height - pad.bottom, class: "bpe-axis" });
  add("text", { x: pad.left - 4, y: pad.top + 8, "text-anchor": "end", class: "bpe-tick" }, number(most));
  add("text", { x: pad.left - 4, y: height - pad.bottom, "text-anchor": "end", class: "bpe-tick" }, number(least));
  add("text", { x: pad.left, y: height - 8, class: "bpe-tick" }, "0");
  add("text", { x: width - pad.right, y: height - 8, "text-anchor": "end", class: "bpe-tick" }, `${number(p.merge_count)} merges`);
  add("text", { x: (width + pad.left) / 2, y: height - 8, "text-anchor": "middle", class: "bpe-tick" }, "tokens in the text");
  add("polyline", { points: points.join(" "), class: "bpe-line" });
  const marker = add("circle", { r: 5, class: "bpe-marker" });
  return {
    svg,
    move(k) {
      marker.setAttribute("cx", x(k));
      marker.setAttribute("cy", y(p.tokens[k]));
    },
  };
}

const VOCAB_ROWS = 60;

function vocabTable(p, k, rows) {
  // rows: a Map of merge -> its <tr>, kept across steps (a row never changes).
  const box = el("div", "bpe-vocab");
  box.append(el("h3", "", "Vocabulary learned so far"));
  if (!k) {
    box.append(el("p", "bpe-caption", `Nothing learned yet: the vocabulary is the ${p.base} base symbols.`));
    return box;
  }
  const shown = Math.min(k, VOCAB_ROWS);
  const grid = el("table", "bpe-vocab-table");
  const head = el("tr");
  for (const name of ["merge", "id", "token", "left", "right", "count"]) head.append(el("th", "", name));
  grid.append(head);
  for (let merge = k; merge > k - shown; merge--) {
    let line = rows.get(merge);
    if (!line) {
      const [left, right, made, count] = p.merges[merge - 1];
      line = el("tr");
      line.dataset.id = made;
      line.title = "Inspect this token";
      for (const value of [number(merge), made, fullLabel(p.vocab, made), fullLabel(p.vocab, left), fullLabel(p.vocab, right), number(count)]) line.append(el("td", "", value));
      rows.set(merge, line);
    }
    grid.append(line);
  }
  const scroll = el("div", "bpe-vocab-scroll");
  scroll.append(grid);
  box.append(scroll);
  if (k > shown) box.append(el("p", "bpe-caption", `The newest ${shown} of ${counted(k, "merge")}; the CSV below has them all.`));
  return box;
}

// ---- the token inspector and the quiz ----------------------------------------------------

function fullLabel(vocab, id) {
  const entry = vocab[id];
  return labelText(entry[0]) + (entry[2] === KIND_END_OF_WORD ? "</w>" : "");
}

function spacedHex(hex) {
  return (hex.match(/../g) || []).join(" ").toUpperCase();
}

// Where a token came from: its merge (or rank) and parents, or what it is if never merged.
// A source says it for one view: the step view's record, or a tokenizer's parents table.
function recordSource(p) {
  return {
    vocab: p.vocab,
    unit: "merge",
    made(id) {
      const entry = p.vocab[id];
      if (entry[2] === KIND_SPECIAL) return { kind: "special" };
      if (id < p.base || id >= p.base + p.merge_count) return { kind: entry[5].length === 2 ? "byte" : "marker" };
      const merge = id - p.base + 1;
      const [left, right, , count] = p.merges[merge - 1];
      return { kind: "merge", number: merge, left, right, count };
    },
  };
}

function parentsSource(data) {
  return {
    vocab: data.vocab,
    unit: data.unit || "merge",
    made(id) {
      const entry = data.vocab[id];
      if (entry[2] === KIND_SPECIAL) return { kind: "special" };
      const parents = data.parents && data.parents[id];
      if (!parents) return { kind: entry[5].length === 2 ? "byte" : "marker" };
      return { kind: "merge", number: parents[2], left: parents[0], right: parents[1], count: null };
    },
  };
}

// The token's build tree down to single bytes: {id, number, children}.
export function buildTree(source, id, depth = 0) {
  const made = source.made(id);
  if (made.kind !== "merge" || depth > 64) return { id, number: 0, kind: made.kind, children: [] };
  return { id, number: made.number, kind: "merge", children: [buildTree(source, made.left, depth + 1), buildTree(source, made.right, depth + 1)] };
}

function treeList(source, node) {
  const item = el("li");
  const face = el("span", "bpe-node");
  face.dataset.id = node.id;
  face.append(el("span", `bpe-t bpe-c${node.id % PALETTE_SIZE}`, fullLabel(source.vocab, node.id) || "\u200b"));
  const note = node.kind === "merge" ? `${source.unit} ${number(node.number)}` : node.kind;
  face.append(el("span", "bpe-node-note", `id ${node.id} · ${note}`));
  item.append(face);
  if (node.children.length) {
    const list = el("ul");
    for (const child of node.children) list.append(treeList(source, child));
    item.append(list);
  }
  return item;
}

function inspector(source, id, countLine, close) {
  const box = el("div", "bpe-inspector");
  const head = el("div", "bpe-inspector-head");
  const closer = button("×", "Close the inspector.", close);
  closer.classList.add("bpe-close");
  head.append(el("b", "", `Token id ${id}`), closer);
  box.append(head);
  const line = el("p", "bpe-inspector-token");
  line.append(el("span", `bpe-chip bpe-c${id % PALETTE_SIZE}`, fullLabel(source.vocab, id) || "\u200b"), ` bytes ${spacedHex(source.vocab[id][5])}`);
  box.append(line);
  const made = source.made(id);
  let where;
  if (made.kind === "special") where = "A special token: never split and never merged.";
  else if (made.kind === "byte") where = "A single byte: every text starts as these, before any merge.";
  else if (made.kind === "marker") where = "The </w> marker that ends each word.";
  else {
    const parents = `“${fullLabel(source.vocab, made.left)}” + “${fullLabel(source.vocab, made.right)}”`;
    where = source.unit === "rank" ? `Rank ${number(made.number)}: the encoder builds it from ${parents}.` : `Made by merge ${number(made.number)}: ${parents}.`;
    if (made.count !== null) where += ` When it was made, that pair occurred ${counted(made.count, "time")} in the training text.`;
  }
  box.append(el("p", "", where));
  box.append(el("p", "bpe-inspector-count", countLine(made)));
  if (made.kind === "merge") {
    box.append(el("p", "bpe-caption", "How it was built, down to single bytes:"));
    const tree = el("ul", "bpe-tree");
    tree.append(treeList(source, buildTree(source, id)));
    box.append(tree);
  }
  return box;
}

// Spans of any tokenizer's ids (the Tokenize and Compare pages), with the same inspector.
function mountTokens(root, data) {
  completeVocab(data.vocab, (id) => (data.parents && data.parents[id] ? data.parents[id].slice(0, 2) : null));
  const ids = data.ids;
  const shownIds = data.show === "ids";
  const vocab = data.vocab;
  const pieces = data.pieces ? new Set(data.pieces) : null;
  const spans = tokenSpans(vocab, ids, data.marks || null, { groupChars: data.group !== false && !shownIds, pieces });
  if (shownIds) {
    for (const span of spans.querySelectorAll(".bpe-t")) span.textContent = span.dataset.id;
  }
  const scroll = el("div", data.scroll === false ? "bpe-tokens" : "bpe-scroll bpe-tokens");
  scroll.append(spans);
  const rule = el("p", "bpe-caption bpe-pieces-rule", data.pieces_rule || "");
  rule.hidden = !pieces || !data.pieces_rule;
  const panel = el("div", "bpe-inspector-box");
  const source = parentsSource(data);
  const show = (id) => {
    for (const span of spans.querySelectorAll(".bpe-hit")) span.classList.remove("bpe-hit");
    if (id === null || !vocab[id]) {
      panel.replaceChildren();
      return;
    }
    const hits = spans.querySelectorAll(`.bpe-t[data-id="${Number(id)}"]`);
    for (const span of hits) span.classList.add("bpe-hit");
    const line = () => `In this text: ${counted(hits.length, "time")}${hits.length ? ", outlined." : "."}`;
    panel.replaceChildren(inspector(source, id, line, () => show(null)));
  };
  const pick = (event) => {
    const target = event.target.closest ? event.target.closest("[data-id]") : null;
    if (target && root.contains(target)) show(Number(target.dataset.id));
  };
  if (data.inspect !== false) {
    scroll.addEventListener("click", pick);
    panel.addEventListener("click", pick);
  }
  const key = data.legend ? legend(null, vocab, ids) : "";
  root.replaceChildren(key, rule, scroll, panel);
  root.dataset.ready = "true";
}

function quizCard(p, k, answers, answer, next) {
  const box = el("div", "bpe-card bpe-quiz");
  const score = el("div", "bpe-score");
  const right = [...answers.values()].filter((row) => row === 0).length;
  score.textContent = `Score: ${right} of ${answers.size}`;
  if (k >= p.merge_count) {
    box.append(el("div", "bpe-card-title", "No merge left to guess"), el("p", "", "Training stopped here."), score);
    return box;
  }
  const flat = p.tops[k];
  const order = p.quiz[k];
  const chosen = answers.has(k) ? answers.get(k) : null;
  box.append(el("div", "bpe-card-title", `Guess merge ${number(k + 1)}`));
  box.append(el("p", "", `Which pair will merge ${number(k + 1)} join? The most frequent pair in the text below wins; a tie goes by the rule “${p.rule}”.`));
  const choices = el("div", "bpe-choices");
  for (const row of order) {
    const [left, right, count] = flat.slice(row * 3, row * 3 + 3);
    const choice = el("button", "bpe-choice");
    choice.type = "button";
    choice.dataset.row = row;
    choice.dataset.pair = `${left},${right}`;
    choice.append(el("span", `bpe-chip bpe-c${left % PALETTE_SIZE}`, fullLabel(p.vocab, left) || "\u200b"), el("span", "bpe-op", "+"), el("span", `bpe-chip bpe-c${right % PALETTE_SIZE}`, fullLabel(p.vocab, right) || "\u200b"));
    if (chosen !== null) {
      choice.disabled = true;
      choice.append(el("span", "bpe-choice-count", counted(count, "time")));
      if (row === 0) choice.classList.add("bpe-right");
      else if (row === chosen) choice.classList.add("bpe-wrong");
    } else {
      choice.addEventListener("click", () => answer(k, row));
    }
    choices.append(choice);
  }
  box.append(choices);
  if (chosen !== null) {
    const [left, right] = p.merges[k];
    const verdict = chosen === 0 ? "Right!" : `Not this one: merge ${number(k + 1)} joins “${fullLabel(p.vocab, left)}” + “${fullLabel(p.vocab, right)}”.`;
    box.append(el("p", chosen === 0 ? "bpe-verdict bpe-good" : "bpe-verdict bpe-bad", verdict));
    box.append(el("p", "", p.sentences[k][0]));
    if (p.sentences[k][1]) {
      const tie = el("p", "bpe-tie");
      tie.append(el("b", "", "Tie."), " ", p.sentences[k][1]);
      box.append(tie);
    }
    box.append(button(`Next question ›`, "Merge this pair and guess the one after.", next, true));
  }
  box.append(score);
  return box;
}

// ---- controls and the whole view -----------------------------------------------------------

function button(label, title, onClick, primary) {
  const node = el("button", primary ? "bpe-button bpe-primary" : "bpe-button", label);
  node.type = "button";
  node.title = title;
  node.addEventListener("click", onClick);
  return node;
}

function reducedMotion() {
  return typeof window.matchMedia === "function" && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

class StepView {
  constructor(root, p, start, report) {
    this.root = root;
    this.p = p;
    if (!p.completed) {
      completeVocab(p.vocab, (id) => (id >= p.base && id < p.base + p.merge_count ? p.merges[id - p.base].slice(0, 2) : null));
      p.completed = true;
    }
    this.report = report;
    this.k = Math.min(Math.max(Number(start.step) || 0, 0), p.merge_count);
    this.when = start.when === "before" ? "before" : "after";
    this.playing = false;
    this.pace = 1;
    this.animate = !reducedMotion();
    this.showPieces = false;
    this.quiz = false;
    this.answers = new Map(); // quiz: step -> the row chosen (0 is the real next merge)
    this.inspected = null;
    this.timers = {};
    this.build();
    this.show(this.k, this.when, { report: false });
  }

  build() {
    const p = this.p;
    this.root.replaceChildren();
    this.root.classList.add("bpe-step");
    const controls = el("div", "bpe-controls");
    this.slider = el("input", "bpe-slider");
    Object.assign(this.slider, { type: "range", min: 0, max: p.merge_count, step: 1 });
    this.slider.setAttribute("aria-label", "Step: merges done");
    this.slider.addEventListener("input", () => this.show(Number(this.slider.value), this.when));
    this.stepLabel = el("span", "bpe-step-label");
    const sliderRow = el("div", "bpe-slider-row");
    sliderRow.append(el("span", "bpe-step-name", "Step: merges done"), this.slider, this.stepLabel);
    this.first = button("⏮ First", "Reset: back to step 0, the raw bytes (Home).", () => this.show(0, this.when));
    this.previous = button("‹ Previous", "One merge back (←).", () => this.show(this.k - 1, this.when));
    this.next = button("Next ›", "The next merge (→).", () => this.show(this.k + 1, this.when), true);
    this.last = button("Last ⏭", "The last merge (End).", () => this.show(p.merge_count, this.when));
    this.play = button("▶ Play", "Step through the merges by themselves (K).", () => this.toggle());
    this.paceBox = el("select", "bpe-pace");
    this.paceBox.title = "Autoplay: time between steps.";
    for (const [seconds, name] of PACES) {
      const option = el("option", "", name);
      option.value = seconds;
      if (seconds === this.pace) option.selected = true;
      this.paceBox.append(option);
    }
    this.paceBox.addEventListener("change", () => {
      this.pace = Number(this.paceBox.value);
      if (this.playing) this.startTimer();
    });
    this.jump = el("input", "bpe-jump");
    Object.assign(this.jump, { type: "number", min: 0, max: p.merge_count, placeholder: `0–${number(p.merge_count)}` });
    this.jump.setAttribute("aria-label", "Go to step");
    this.jump.addEventListener("change", () => {
      if (this.jump.value !== "") this.show(Number(this.jump.value), this.when);
      this.jump.value = "";
    });
    const paceLabel = el("label", "bpe-field", "Pace ");
    paceLabel.append(this.paceBox);
    const jumpLabel = el("label", "bpe-field", "Go to step ");
    jumpLabel.append(this.jump);
    this.animateBox = el("input");
    this.animateBox.type = "checkbox";
    this.animateBox.checked = this.animate;
    this.animateBox.addEventListener("change", () => (this.animate = this.animateBox.checked));
    const animateLabel = el("label", "bpe-field", "");
    animateLabel.title = "Slide the two halves of each pair into one on Next (off when your system asks for reduced motion).";
    animateLabel.append(this.animateBox, " Animate merges");
    const toggle = (name, title, on) => {
      const box = el("input");
      box.type = "checkbox";
      box.addEventListener("change", () => on(box.checked));
      const label = el("label", "bpe-field", "");
      label.title = title;
      label.append(box, ` ${name}`);
      return [label, box];
    };
    let piecesLabel;
    [piecesLabel, this.piecesBox] = toggle("Show pieces", "Outline the pre-tokenizer's pieces: no merge ever crosses their edges.", (on) => {
      this.showPieces = on;
      this.show(this.k, this.when, { report: false });
    });
    let quizLabel;
    [quizLabel, this.quizBox] = toggle("Guess the next merge", "A quiz: the next merge is held back until you pick one of four pairs.", (on) => {
      this.quiz = on;
      if (on && this.playing) this.toggle();
      this.show(this.k, "after", { report: false });
    });
    const buttons = el("div", "bpe-buttons");
    buttons.append(this.first, this.previous, this.next, this.last, this.play, paceLabel, jumpLabel, animateLabel, piecesLabel, quizLabel);
    controls.append(sliderRow, buttons);

    this.cardBox = el("div", "bpe-card-box");
    this.countsBox = el("div", "bpe-counts-box");
    this.inspectorBox = el("div", "bpe-inspector-box");
    const panes = el("div", "bpe-panes");
    const textPane = el("div", "bpe-text-pane");
    const whenRow = el("div", "bpe-when");
    this.beforeButton = button("Before merge", "The text just before this merge, its pair outlined.", () => this.show(this.k, "before"));
    this.afterButton = button("After merge", "The text just after this merge, the new token outlined.", () => this.show(this.k, "after"));
    whenRow.append(this.beforeButton, this.afterButton);
    this.windowNote = el("p", "bpe-caption");
    this.piecesNote = el("p", "bpe-caption bpe-pieces-rule");
    this.legendBox = el("div");
    this.textBox = el("div", "bpe-scroll");
    textPane.append(el("h3", "", "The text, token by token"), whenRow, this.windowNote, this.piecesNote, this.legendBox, this.textBox);
    this.textBox.title = "";
    const inspect = (event) => {
      const target = event.target.closest ? event.target.closest("[data-id]") : null;
      if (target && this.root.contains(target)) this.inspect(Number(target.dataset.id));
    };
    this.textBox.addEventListener("click", inspect);
    const tablePane = el("div", "bpe-table-pane");
    this.pairsBox = el("div");
    this.chart = p.merge_count ? chart(p) : null;
    tablePane.append(this.pairsBox);
    if (this.chart) tablePane.append(this.chart.svg);
    panes.append(textPane, tablePane);
    this.vocabBox = el("div");
    this.root.append(controls, this.cardBox, this.countsBox, this.inspectorBox, panes, this.vocabBox);
    this.vocabBox.addEventListener("click", inspect);
    this.inspectorBox.addEventListener("click", (event) => {
      const node = event.target.closest ? event.target.closest(".bpe-node") : null;
      if (node) this.inspect(Number(node.dataset.id));
    });
    if (!p.window.whole) {
      const shown = p.window.from ? `bytes ${number(p.window.from + 1)}–${number(p.window.bytes)}` : `its first ${number(p.window.bytes)} bytes`;
      this.windowNote.textContent = `Long text: showing ${shown} of ${number(p.text_bytes)}; every count is of the whole text.`;
    }
    this.keys = (event) => this.onKey(event);
    document.addEventListener("keydown", this.keys);
  }

  destroy() {
    document.removeEventListener("keydown", this.keys);
    for (const timer of Object.values(this.timers)) {
      clearTimeout(timer);
      clearInterval(timer);
    }
  }

  onKey(event) {
    if (!this.root.isConnected) {
      document.removeEventListener("keydown", this.keys);
      return;
    }
    const target = event.composedPath ? event.composedPath()[0] : event.target;
    const tag = target && target.tagName ? target.tagName.toLowerCase() : "";
    if (["input", "textarea", "select"].includes(tag) || (target && target.isContentEditable)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const actions = {
      ArrowLeft: () => this.show(this.k - 1, this.when),
      ArrowRight: () => this.show(this.k + 1, this.when),
      Home: () => this.show(0, this.when),
      End: () => this.show(this.p.merge_count, this.when),
      k: () => this.toggle(),
      K: () => this.toggle(),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  }

  toggle() {
    this.playing = !this.playing;
    if (this.playing && this.k >= this.p.merge_count) this.show(0, this.when);
    if (this.playing) this.startTimer();
    else this.stopTimer();
    this.updateControls();
  }

  startTimer() {
    clearInterval(this.timers.play);
    this.timers.play = setInterval(() => {
      if (this.k >= this.p.merge_count) {
        this.playing = false;
        this.stopTimer();
        this.updateControls();
        return;
      }
      this.show(this.k + 1, this.when);
    }, this.pace * 1000);
  }

  stopTimer() {
    clearInterval(this.timers.play);
    this.scheduleReport();
  }

  updateControls() {
    const k = this.k;
    const last = this.p.merge_count;
    this.slider.value = k;
    this.stepLabel.textContent = `${number(k)} of ${number(last)}`;
    this.first.disabled = this.previous.disabled = k === 0;
    this.next.disabled = this.last.disabled = k >= last;
    this.play.textContent = this.playing ? "⏸ Pause" : "▶ Play";
    this.play.disabled = last === 0;
    this.beforeButton.parentElement.hidden = k === 0 || this.quiz;
    this.beforeButton.classList.toggle("bpe-on", this.when === "before");
    this.afterButton.classList.toggle("bpe-on", this.when !== "before");
  }

  show(k, when, options = {}) {
    const p = this.p;
    k = Math.min(Math.max(Math.round(k), 0), p.merge_count);
    const slide = !this.quiz && this.animate && !reducedMotion() && k === this.k + 1 && when === "after" && (!this.playing || this.pace >= 0.5);
    this.k = k;
    this.when = when;
    clearTimeout(this.timers.slide);
    this.root.dataset.ready = "false";
    this.root.classList.toggle("bpe-quiz-on", this.quiz);
    const answered = this.quiz && this.answers.has(k);
    if (this.quiz) {
      const answer = (step, row) => {
        this.answers.set(step, row);
        this.show(step, "after", { report: false });
      };
      this.cardBox.replaceChildren(quizCard(p, k, this.answers, answer, () => this.show(k + 1, "after")));
      this.pairsBox.replaceChildren(answered ? pairTable(p, k + 1) : el("p", "bpe-note", "The pair counts are hidden until you answer."));
    } else {
      this.cardBox.replaceChildren(card(p, k));
      this.pairsBox.replaceChildren(pairTable(p, k));
    }
    this.countsBox.replaceChildren(counts(p, k));
    if (this.chart) this.chart.move(k);
    this.vocabRows = this.vocabRows || new Map();
    this.vocabBox.replaceChildren(vocabTable(p, k, this.vocabRows));
    this.piecesNote.textContent = this.showPieces ? p.pieces_rule : "";
    this.piecesNote.hidden = !this.showPieces;
    this.updateControls();
    if (slide) {
      this.drawText(stepView(p, k, "before"), true);
      this.timers.slide = setTimeout(() => this.finish(k, when), SLIDE_MS);
    } else {
      this.finish(k, when);
    }
    if (options.report !== false) this.scheduleReport();
  }

  quizView(k) {
    // Before the answer: the text at step k, nothing outlined. After: the pair it merges next.
    if (this.answers.has(k) && k < this.p.merge_count) return stepView(this.p, k + 1, "before");
    const view = stepView(this.p, k, "after");
    view.marks = view.marks.map(() => "");
    view.legend = null;
    return view;
  }

  finish(k, when) {
    this.drawText(this.quiz ? this.quizView(k) : stepView(this.p, k, when), false);
    this.root.dataset.step = k;
    this.root.dataset.when = this.quiz ? "quiz" : k ? when : "now";
    this.root.dataset.ready = "true";
  }

  drawText(view, sliding) {
    this.spanCache = this.spanCache || new Map();
    const options = { pieces: this.showPieces ? view.pieceStarts : null, keys: view.starts, cache: this.spanCache };
    const spans = tokenSpans(this.p.vocab, view.ids, view.marks, options);
    spans.classList.toggle("bpe-sliding", Boolean(sliding));
    this.legendBox.replaceChildren(legend(view.legend, this.p.vocab, view.ids));
    const box = this.textBox;
    if (box.firstChild !== spans || box.childNodes.length !== 1) box.replaceChildren(spans);
    this.shownIds = view.ids;
    this.drawInspector();
    // Scroll to the first outlined token when it is out of sight, measured after the frame
    // is laid out (measuring now would force a second layout on every step).
    // Lines out of sight are laid out at an estimated height until drawn, so a scroll is
    // checked again on the next frames, once the lines around the mark have their size.
    cancelAnimationFrame(this.timers.scroll);
    const settle = (tries) => {
      const mark = spans.querySelector(".bpe-new, .bpe-ps");
      if (!mark || !spans.isConnected) return;
      const top = mark.getBoundingClientRect().top - box.getBoundingClientRect().top;
      if (top < 0 || top + mark.offsetHeight > box.clientHeight) box.scrollTop += top - box.clientHeight / 4;
      if (tries > 1) this.timers.scroll = requestAnimationFrame(() => settle(tries - 1));
    };
    this.timers.scroll = requestAnimationFrame(() => settle(4));
  }

  inspect(id) {
    this.inspected = id;
    this.drawInspector();
  }

  drawInspector() {
    const id = this.inspected;
    for (const span of this.textBox.querySelectorAll(".bpe-hit")) span.classList.remove("bpe-hit");
    if (id === null || !this.p.vocab[id]) {
      this.inspectorBox.replaceChildren();
      return;
    }
    const hits = this.textBox.querySelectorAll(`.bpe-t[data-id="${Number(id)}"]`);
    for (const span of hits) span.classList.add("bpe-hit");
    const close = () => this.inspect(null);
    const k = this.k;
    const line = (made) =>
      made.kind === "merge" && made.number > k
        ? `Not made yet at step ${number(k)}: merge ${number(made.number)} comes later.`
        : `In the text shown at step ${number(k)}: ${counted(hits.length, "time")}${hits.length ? ", outlined in the text." : "."}`;
    this.inspectorBox.replaceChildren(inspector(recordSource(this.p), id, line, close));
  }

  scheduleReport() {
    clearTimeout(this.timers.report);
    if (this.playing) return;
    this.timers.report = setTimeout(() => this.report({ step: this.k, when: this.when }), REPORT_AFTER_MS);
  }
}

// ---- entry points --------------------------------------------------------------------------

const views = new WeakMap(); // per mounted element: the view, its record and its start

export function mount(root, record, start, report) {
  start = start || {};
  const id = `${record.key}|${start.step}|${start.when}`;
  const held = views.get(root);
  if (held && held.id === id) return held.view;
  if (held) held.view.destroy();
  const sameRecord = held && held.key === record.key;
  const payload = sameRecord ? held.payload : typeof record.payload === "string" ? JSON.parse(record.payload) : record.payload;
  const view = new StepView(root, payload, start, report || (() => {}));
  views.set(root, { id, key: record.key, payload, view });
  return view;
}

// An exported page (bpeviz.web.step_page): the record is in the page, the step in its #hash.
export function mountPage() {
  const params = new URLSearchParams(location.hash.slice(1));
  const record = { key: "page", payload: document.getElementById("bpeviz-run").textContent };
  const start = { step: params.get("step"), when: params.get("when") };
  const remember = (state) => history.replaceState(null, "", `#step=${state.step}&when=${state.when}`);
  window.bpevizStepView = mount(document.getElementById("bpeviz-root"), record, start, remember);
}

// Streamlit's components v2 call this on every run with the data the server sent.
export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let root = parentElement.querySelector(".bpe-root");
  if (!root) {
    root = el("div", "bpe-root");
    parentElement.append(root);
  }
  if (data.kind === "tokens") {
    mountTokens(root, data);
    return;
  }
  const view = mount(root, data, data.start, (state) => setStateValue("view", state));
  if (typeof window !== "undefined") window.bpevizStepView = view;
}
