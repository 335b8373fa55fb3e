// A presenter's clicker sends PageDown / PageUp: they move the lesson to the next or previous
// slide (the server does the move: this only reports it). Keys pressed while typing in a box
// are the box's, and a key with a modifier is the browser's.

const EDITABLE = new Set(["INPUT", "TEXTAREA", "SELECT"]);

// Whether a key pressed in this element belongs to someone typing.
export function isTyping(target) {
  if (!target) return false;
  if (EDITABLE.has(target.tagName) || target.isContentEditable) return true;
  const role = target.getAttribute ? target.getAttribute("role") : null;
  return role === "textbox" || role === "combobox" || role === "spinbutton";
}

// +1 for the next slide, -1 for the previous one, 0 when the key is not a slide change.
export function slideMove(event) {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return 0;
  if (event.key !== "PageDown" && event.key !== "PageUp") return 0;
  if (isTyping(event.target)) return 0;
  return event.key === "PageDown" ? 1 : -1;
}

// Streamlit's components v2 call this on every run; the cleanup removes the last run's listener.
export default function (component) {
  const { parentElement, setTriggerValue } = component;
  const doc = parentElement.ownerDocument;
  const onKey = (event) => {
    const move = slideMove(event);
    if (!move) return;
    event.preventDefault();
    setTriggerValue("move", move);
  };
  doc.addEventListener("keydown", onKey);
  return () => doc.removeEventListener("keydown", onKey);
}
