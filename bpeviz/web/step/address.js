// ---- the Step page's view in the page's address, written as it draws: a link copied right
// after a step is never stale. The app gives the link's names, order and defaults
// (bpeviz.app.step.view.LINK); the server writes the same values once the view reports, and
// the two queries must agree to the character (Streamlit adds a history entry when they differ).

// As Python's urllib.parse.quote_plus writes a name or a value.
function formEncode(text) {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

function formName(part) {
  const name = part.split("=")[0].replace(/\+/g, " ");
  try {
    return decodeURIComponent(name);
  } catch {
    return name; // a broken escape names nothing of ours
  }
}

// The query `search` ("?a=1&step=2", or "") with the view's values (state: {step, when, quiz,
// pieces}), as the server writes them into the same query: a name already there keeps its
// place, a new one goes at the end (in link.keys order), a default is left out, and every
// other part stays as it was written.
export function linkSearch(search, link, state) {
  let parts = search.replace(/^\?/, "").split("&").filter(Boolean);
  for (const [field, name, fallback] of link.keys) {
    const raw = field === "step" ? String(state.step) : field === "when" ? link.when[state.when === "before" ? "before" : "after"] : state[field] ? "1" : "0";
    const at = parts.findIndex((part) => formName(part) === name); // its first place, if any
    parts = parts.filter((part) => formName(part) !== name);
    if (raw !== fallback) parts.splice(at < 0 ? parts.length : at, 0, `${formEncode(name)}=${formEncode(raw)}`);
  }
  return parts.length ? `?${parts.join("&")}` : "";
}

// Browsers limit how often a page may rewrite its address (Safari: 100 times in 30 s, then an
// error): a burst of writes goes at once, then one every REFILL_MS, the last always written.
const ADDRESS_BURST = 20;
const ADDRESS_REFILL_MS = 500;

class AddressLink {
  constructor(link) {
    this.link = link;
    this.path = location.pathname; // the Step page's: never written into another page's
    this.tokens = ADDRESS_BURST;
    this.filledAt = performance.now();
    this.timer = null;
    this.state = null; // the view as last drawn
    this.reported = null; // the view as last told to the server
    // The server's answer to a report can arrive after the student moved on: Streamlit then
    // puts the reported view over the newer one. Where the browser says when the address
    // changes (the Navigation API), the newer view goes back at once; elsewhere the next
    // report, due anyway, puts it right.
    this.onEntry = (event) => {
      if (event.navigationType !== "push" && event.navigationType !== "replace") return;
      if (!this.reported || !this.state || location.pathname !== this.path) return;
      const told = linkSearch(location.search, this.link, this.reported);
      if (location.search === told && told !== linkSearch(location.search, this.link, this.state)) this.write(this.state);
    };
    if (window.navigation) window.navigation.addEventListener("currententrychange", this.onEntry);
  }

  write(state) {
    this.state = state;
    if (this.timer !== null) return; // a write is due; it takes the latest state
    const now = performance.now();
    this.tokens = Math.min(ADDRESS_BURST, this.tokens + (now - this.filledAt) / ADDRESS_REFILL_MS);
    this.filledAt = now;
    if (this.tokens >= 1) {
      this.flush();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.write(this.state);
    }, (1 - this.tokens) * ADDRESS_REFILL_MS);
  }

  flush() {
    if (location.pathname !== this.path) return;
    const search = linkSearch(location.search, this.link, this.state);
    if (search === location.search) return;
    this.tokens -= 1;
    try {
      history.replaceState(history.state, "", `${location.pathname}${search}${location.hash}`);
    } catch {
      // over a browser's limit after all: the server writes the link once the view reports
    }
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
    if (window.navigation) window.navigation.removeEventListener("currententrychange", this.onEntry);
  }
}
