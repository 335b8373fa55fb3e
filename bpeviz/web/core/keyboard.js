// ---- keyboard paths through many items: one Tab stop per box, arrows between its items ------
// Thousands of tokens as Tab stops would make a page unusable by keyboard; instead the box is
// one stop and the arrow keys move focus between its items (a "roving" tabindex: only the
// item focused carries one). Enter or Space acts on the focused item.

const MOVES = {
  ArrowRight: 1,
  ArrowDown: 1,
  ArrowLeft: -1,
  ArrowUp: -1,
  Home: -Infinity,
  End: Infinity,
};

// The item `event` starts on inside `box` (matching `selector`), or null.
function itemOf(box, selector, event) {
  const target = event.target && event.target.closest ? event.target.closest(selector) : null;
  return target && box.contains(target) ? target : null;
}

function focusItem(item) {
  if (!item.hasAttribute("tabindex")) {
    item.tabIndex = -1;
    item.addEventListener("blur", () => item.removeAttribute("tabindex"), { once: true });
  }
  item.focus();
}

// Arrow keys move focus between `selector`'s items inside `box`; Enter or Space calls
// activate(item). Handled keys are marked done (preventDefault): the step view's own keys
// (← → Home End) leave them alone.
function rovingKeys(box, selector, activate) {
  box.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const item = itemOf(box, selector, event);
    if (item && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      activate(item);
      return;
    }
    const move = MOVES[event.key];
    if (move === undefined) return;
    const items = [...box.querySelectorAll(selector)];
    if (!items.length) return;
    const at = item ? items.indexOf(item) : -1;
    let next;
    if (move === -Infinity) next = 0;
    else if (move === Infinity) next = items.length - 1;
    else if (at < 0) next = move > 0 ? 0 : items.length - 1;
    else next = Math.min(Math.max(at + move, 0), items.length - 1);
    event.preventDefault();
    focusItem(items[next]);
    items[next].scrollIntoView({ block: "nearest" });
  });
}
