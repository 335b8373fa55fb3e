// ---- DOM helpers: elements, numbers, buttons, chips ---------------------------------------
// Every piece of user or token text reaches the page through `textContent` or an attribute,
// never as markup: `el` is the one way text becomes an element.

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

// How often something happened, as a person says it: "once", "2 times".
export const timesWord = (count) => (count === 1 ? "once" : `${number(count)} times`);

function button(label, title, onClick, primary) {
  const node = el("button", primary ? "bpe-button bpe-primary" : "bpe-button", label);
  node.type = "button";
  node.title = title;
  node.addEventListener("click", onClick);
  return node;
}

// A labelled checkbox: [label, box]; on(checked) runs on every change.
function checkbox(name, title, checked, on) {
  const box = el("input");
  box.type = "checkbox";
  box.checked = checked;
  box.addEventListener("change", () => on(box.checked));
  const label = el("label", "bpe-field", "");
  label.title = title;
  label.append(box, ` ${name}`);
  return [label, box];
}

function reducedMotion() {
  return typeof window.matchMedia === "function" && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// A CSS time variable of `node` (`--bpe-slide: 260ms`) in milliseconds; 0 when unset.
function cssMilliseconds(node, name) {
  const value = getComputedStyle(node).getPropertyValue(name).trim();
  const amount = parseFloat(value);
  if (!Number.isFinite(amount)) return 0;
  return value.endsWith("ms") ? amount : amount * 1000;
}

// The palette colour of a token: the same id keeps its colour wherever it is drawn.
const colourClass = (id) => `bpe-c${colourIndex(id)}`;

// A token drawn by itself (a chip): its full label in its colour. The one chip of every
// view: the merge card, the quiz's choices, the inspector and the build tree.
function chip(vocab, id, className = "bpe-chip") {
  const entry = vocab[id];
  if (entry[VOCAB.kind] !== KIND.CONTINUATION) return el("span", `${className} ${colourClass(id)}`, fullLabel(vocab, id) || "\u200b");
  const node = el("span", `${className} ${colourClass(id)}`);
  node.append(el("span", "bpe-cont", CONTINUATION_MARK), labelText(entry[VOCAB.label]));
  return node;
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

// Give `node` the children of `fresh` (a new drawing of it), keeping each child that did not
// change, and each one whose text alone changed (its text set): the control with focus stays
// the same node, and a live region the one a screen reader listens to.
function patchChildren(node, fresh) {
  const textOnly = (child) => child.nodeType === Node.ELEMENT_NODE && child.childElementCount === 0;
  const kept = [...fresh.childNodes].map((child, index) => {
    const old = node.childNodes[index];
    if (!old) return child;
    if (old.isEqualNode(child)) return old;
    if (textOnly(old) && textOnly(child) && old.cloneNode(false).isEqualNode(child.cloneNode(false))) {
      old.textContent = child.textContent;
      return old;
    }
    return child;
  });
  reconcile(node, kept);
}

// `node`, focusable by script but no Tab stop: where focus can go when the control that had
// it is gone (a card's title, a quiz's verdict).
function focusable(node) {
  node.tabIndex = -1;
  return node;
}

// Whether `node` is drawn whole on screen below `cover` px (what a sticky bar hides above).
function inSight(node, cover) {
  const box = node.getBoundingClientRect();
  return box.height > 0 && box.top >= cover && box.bottom <= window.innerHeight;
}

// Where a sticky bar (a phone's step controls) ends once stuck at the top of the screen, its
// `top` (Streamlit's header) included; null when the bar does not stick (a wide view).
function stuckBottom(bar) {
  const style = getComputedStyle(bar);
  return style.position === "sticky" ? (parseFloat(style.top) || 0) + bar.offsetHeight : null;
}

// Focus `target` in a card just redrawn (a quiz answered), the card kept in sight below a
// sticky `bar`: the browser's own scroll to the focus centred it and left the card's verdict
// or its choices under the bar. The card goes just below the bar, or its verdict when the
// whole card does not fit; nothing moves when both are in sight already.
function focusInCard(target, card, bar) {
  const cover = stuckBottom(bar);
  if (cover === null) {
    target.focus();
    return;
  }
  target.focus({ preventScroll: true });
  const verdict = card.querySelector(".bpe-verdict");
  const fits = card.getBoundingClientRect().height + 8 <= window.innerHeight - cover;
  const news = fits || !verdict ? card : verdict;
  if ([news, target].every((part) => inSight(part, cover))) return;
  news.style.scrollMarginTop = `${cover + 8}px`;
  news.scrollIntoView({ block: "start" });
}

// A box that scrolls: focusable (a keyboard can scroll it) and named (WCAG 2.1.1, 4.1.2).
function scrollBox(className, name) {
  const box = el("div", className);
  box.tabIndex = 0;
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", name);
  return box;
}
