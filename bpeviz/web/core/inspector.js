// ---- the token inspector: where a token came from, its build tree, and where it is --------
// One inspector for every view. A source says, for one record, where each token came from:
// sourceOf(vocab, unit, parentsOf), parentsOf(id) giving {left, right, number, count} (count
// null when unknown) for a token made by a merge (or built from a rank), else null.

// baseKind names what an unmerged token is when it is not a byte ("character": WordPiece's).
function sourceOf(vocab, unit, parentsOf, baseKind = null) {
  return {
    vocab,
    unit,
    baseKind,
    made(id) {
      const entry = vocab[id];
      if (entry[VOCAB.kind] === KIND.SPECIAL) return { kind: "special" };
      const parents = parentsOf(id);
      if (!parents) return { kind: baseKind || (entry[VOCAB.hex].length === 2 ? "byte" : "marker") };
      return { kind: "merge", ...parents };
    },
  };
}

// The step record's source: token base + m - 1 is made by merge m.
export function stepSource(record) {
  return sourceOf(record.vocab, "merge", (id) => {
    if (!stepParents(record, id)) return null;
    const number = id - record.base + 1;
    const { left, right, count } = mergeOf(record, number);
    return { left, right, number, count };
  }, isWordPiece(record) ? "character" : null);
}

// A tokens record's source (bpeviz.records.tokens): its parents table, by merge or by rank.
export function tokensSource(record, vocab) {
  return sourceOf(vocab, record.unit || "merge", (id) => {
    const parents = tokenParents(record, id);
    return parents && { ...parents, count: null };
  });
}

// The token's build tree down to single bytes: {id, number, kind, children}.
export function buildTree(source, id, depth = 0) {
  const made = source.made(id);
  if (made.kind !== "merge" || depth > 64) return { id, number: 0, kind: made.kind, children: [] };
  return { id, number: made.number, kind: "merge", children: [buildTree(source, made.left, depth + 1), buildTree(source, made.right, depth + 1)] };
}

function treeList(source, node) {
  const item = el("li");
  const face = el("span", "bpe-node");
  face.dataset.id = node.id;
  face.setAttribute("role", "button");
  face.append(chip(source.vocab, node.id, "bpe-t"));
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

function spacedHex(hex) {
  return (hex.match(/../g) || []).join(" ").toUpperCase();
}

function inspectorCard(source, id, countLine, close) {
  const box = el("div", "bpe-inspector");
  const head = el("div", "bpe-inspector-head");
  const closer = button("×", "Close the inspector (Escape).", close);
  closer.classList.add("bpe-close");
  closer.setAttribute("aria-label", "Close");
  head.append(el("b", "", `Token id ${id}`), closer);
  box.tabIndex = -1; // takes focus when it opens
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", `Token inspector: id ${id}, ${fullLabel(source.vocab, id)}`);
  box.append(head);
  const line = el("p", "bpe-inspector-token");
  line.append(chip(source.vocab, id), ` bytes ${spacedHex(source.vocab[id][VOCAB.hex])}`);
  box.append(line);
  const made = source.made(id);
  let where;
  if (made.kind === "special") where = "A special token: never split and never merged.";
  else if (made.kind === "byte") where = "A single byte: every text starts as these, before any merge.";
  else if (made.kind === "marker") where = `The ${END_OF_WORD} marker that ends each word.`;
  else if (made.kind === "character") where = source.vocab[id][VOCAB.kind] === KIND.CONTINUATION ? `A character inside a word (${CONTINUATION_MARK}): every word starts as its characters, before any merge.` : "A character at a word's start: every word starts as its characters, before any merge.";
  else {
    const parents = pairWords(source.vocab, made.left, made.right);
    where = source.unit === "rank" ? `Rank ${number(made.number)}: the encoder builds it from ${parents}.` : `Made by merge ${number(made.number)}: ${parents}.`;
    if (made.count !== null) where += ` When it was made, that pair occurred ${timesWord(made.count)} in the training text.`;
  }
  box.append(el("p", "", where));
  box.append(el("p", "bpe-inspector-count", countLine));
  if (made.kind === "merge") {
    box.append(el("p", "bpe-caption", `How it was built, down to single ${source.baseKind === "character" ? "characters" : "bytes"}:`));
    const tree = el("ul", "bpe-tree");
    tree.tabIndex = 0; // one Tab stop; arrows move between its nodes
    tree.setAttribute("aria-label", "Build tree: arrows move between tokens, Enter inspects one");
    tree.append(treeList(source, buildTree(source, id)));
    box.append(tree);
  }
  return box;
}

// The inspector of one view: a click on a token (or a tree node, or a vocabulary row) in a
// box it listens to opens it in `panel`, and outlines every place of that token in `text`.
// countLine(made, hits) says how often the token is in the text shown.
class Inspector {
  constructor(panel, text, source, countLine) {
    this.panel = panel;
    this.text = text;
    this.source = source;
    this.countLine = countLine;
    this.id = null;
  }

  // Clicks, and the keyboard (arrows between items, Enter or Space), open it from `boxes`.
  // Escape closes it: inside the panel, focus goes back where it was opened from; in a box
  // (a keyboard user went back to the text with it open), focus stays on the item it is on.
  listen(...boxes) {
    for (const box of boxes) {
      box.addEventListener("click", (event) => {
        const target = event.target.closest ? event.target.closest("[data-id]") : null;
        if (target && box.contains(target)) this.open(Number(target.dataset.id), target);
      });
      rovingKeys(box, "[data-id]", (item) => this.open(Number(item.dataset.id), item));
    }
    for (const box of new Set([...boxes, this.panel])) {
      box.addEventListener("keydown", (event) => {
        if (event.key !== "Escape" || this.id === null || event.defaultPrevented) return;
        event.preventDefault();
        this.close({ refocus: this.panel.contains(event.target) });
      });
    }
  }

  // Open on token `id` (null closes), focus in it; `from` (the item clicked or chosen) is
  // where focus returns when it closes.
  open(id, from) {
    if (id === null) {
      this.close();
      return;
    }
    if (from && !this.panel.contains(from)) this.returnTo = from;
    this.id = id;
    this.draw();
    const card = this.panel.firstChild;
    if (card) card.focus({ preventScroll: !(from && from === document.activeElement) });
  }

  // Close it, and give focus back to the item it was opened from (or its box), unless
  // `refocus` is false.
  close({ refocus = true } = {}) {
    this.id = null;
    this.draw();
    const back = this.returnTo && this.returnTo.isConnected ? this.returnTo : this.text;
    this.returnTo = null;
    if (!refocus || (back === this.text && !this.text.hasAttribute("tabindex"))) return;
    if (back.closest && back.closest("[data-id]") === back) focusItem(back);
    else back.focus();
  }

  // Draw it again (after the text was redrawn): outlines and counts follow the text shown.
  draw() {
    // The outline said in words too: a screen reader reads "current" on each place of it.
    for (const span of this.text.querySelectorAll(".bpe-hit")) {
      span.classList.remove("bpe-hit");
      span.removeAttribute("aria-current");
    }
    if (this.id === null || !this.source.vocab[this.id]) {
      this.panel.replaceChildren();
      return;
    }
    const hits = this.text.querySelectorAll(`.bpe-t[data-id="${Number(this.id)}"]`);
    for (const span of hits) {
      span.classList.add("bpe-hit");
      span.setAttribute("aria-current", "true");
    }
    const line = this.countLine(this.source.made(this.id), hits.length);
    this.panel.replaceChildren(inspectorCard(this.source, this.id, line, () => this.close()));
  }
}
