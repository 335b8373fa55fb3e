// ---- entry points: the app's component (the default export), an exported page (mountPage),
// and the spans of any list of tokens (mountTokens) -----------------------------------------

// Say in the view why a record cannot be drawn; true when it was refused.
function refused(root, record) {
  const problem = schemaProblem(record);
  if (!problem) return false;
  root.replaceChildren(el("p", "bpe-note bpe-refused", problem));
  root.dataset.ready = "true";
  return true;
}

const views = new WeakMap(); // per mounted element: the view, its record and its start

// A view the student left before it told the server (a page switch within REPORT_AFTER_MS
// of stepping: Streamlit then drops the report and the address): kept for this tab, and
// taken by the next view mounted, which starts there when the server says it resumes
// (mounted afresh, no view named by the link) the same record.
const UNSENT = "bpeviz-unsent-view";

function keepUnsent(key, state) {
  try {
    sessionStorage.setItem(UNSENT, JSON.stringify({ key, state }));
  } catch {
    // no storage (a sandboxed frame): the view is lost, as before
  }
}

function takeUnsent(key) {
  try {
    const kept = JSON.parse(sessionStorage.getItem(UNSENT) || "null");
    sessionStorage.removeItem(UNSENT);
    return kept && kept.key === key && kept.state ? kept.state : null;
  } catch {
    return null;
  }
}

// Draw the step view of `data` ({key, payload: the record or its JSON, link: the app's link
// names, when the view writes the address; resume: whether a view left unsent may start it
// instead}) in `root`, starting at start {step, when, quiz, pieces}; report(state) hears
// where a student stopped.
export function mount(root, data, start, report) {
  start = start || {};
  const id = `${data.key}|${start.step}|${start.when}|${start.quiz}|${start.pieces}`;
  const held = views.get(root);
  if (held && held.id === id) return held.view;
  if (held && held.view) held.view.destroy();
  let record = held && held.key === data.key ? held.record : null;
  if (!record) {
    const sent = typeof data.payload === "string" ? JSON.parse(data.payload) : data.payload;
    if (refused(root, sent)) {
      views.delete(root);
      return null;
    }
    // the record with its vocabulary completed; the record sent is left as it came (a
    // Unigram record has none: its pieces are its vocabulary)
    record = sent.algorithm === "unigram" ? sent : { ...sent, vocab: completeVocab(sent.vocab, (id) => stepParents(sent, id)) };
  }
  const send = report || (() => {});
  const talk = (state, how) => (how && how.unsent ? keepUnsent(data.key, state) : send(state));
  const unsent = takeUnsent(data.key);
  const fields = ["step", "when", "quiz", "pieces"];
  const resumed = data.resume && unsent && fields.some((f) => String(unsent[f]) !== String(start[f])) ? unsent : null;
  const view = record.algorithm === "unigram" ? new UnigramView(root, record, resumed || start, talk) : new StepView(root, record, resumed || start, talk, data.link || null);
  if (resumed) view.scheduleReport(); // the server learns where the student stopped
  views.set(root, { id, key: data.key, record, view });
  return view;
}

// An exported page (bpeviz.web.step_page): the record is in the page, the step in its #hash.
export function mountPage() {
  const params = new URLSearchParams(location.hash.slice(1));
  const data = { key: "page", payload: document.getElementById("bpeviz-run").textContent };
  const start = { step: params.get("step"), when: params.get("when") };
  const remember = (state) => history.replaceState(null, "", `#step=${state.step}&when=${state.when}`);
  window.bpevizStepView = mount(document.getElementById("bpeviz-root"), data, start, remember);
}

// Spans of any tokenizer's ids (bpeviz.records.tokens: the Tokenize and Compare pages), with the
// step view's inspector and its reader of the tokens as text.
export function mountTokens(root, record) {
  if (refused(root, record)) return;
  const vocab = completeVocab(record.vocab, (id) => {
    const parents = tokenParents(record, id);
    return parents && [parents.left, parents.right];
  });
  const ids = record.ids;
  const showIds = record.show === "ids";
  const pieces = record.pieces ? new Set(record.pieces) : null;
  const spans = tokenSpans(vocab, ids, record.marks || null, { groupChars: record.group !== false && !showIds, pieces });
  if (showIds) {
    for (const span of spans.querySelectorAll(".bpe-t")) span.textContent = span.dataset.id;
  }
  const name = record.label || "The text, token by token";
  const scroll = record.scroll === false ? el("div", "bpe-tokens") : scrollBox("bpe-scroll bpe-tokens", name);
  scroll.append(spans);
  // A box of a text's tokens can be read as text too (not the trace's short inline rows).
  const reader = record.scroll === false ? null : tokenReader(`${name}, as text`);
  if (reader) reader.show(vocab, ids);
  const rule = el("p", "bpe-caption bpe-pieces-rule", record.pieces_rule || "");
  rule.hidden = !pieces || !record.pieces_rule;
  const panel = el("div", "bpe-inspector-box");
  const countLine = (made, hits) => `In this text: ${counted(hits, "time")}${hits ? ", outlined." : "."}`;
  if (record.inspect !== false) new Inspector(panel, spans, tokensSource(record, vocab), countLine).listen(scroll, panel);
  const key = record.legend ? legend(null, vocab, ids, { ids: showIds }) : "";
  const copies = record.copy ? copyButtons(vocab, ids) : "";
  root.replaceChildren(key, rule, scroll, copies, ...(reader ? [reader.element] : []), panel);
  root.dataset.ready = "true";
}

// The "why was this split" trace (token_view.show_trace): each row's name over its tokens,
// and a last line saying how many rows were left out (`more`, empty when none were).
function mountTrace(root, rows, more) {
  const lines = rows.map(({ label, record }) => {
    const tokens = el("div", "bpe-root");
    mountTokens(tokens, record);
    const line = el("div");
    line.append(el("span", "bpe-trace-label", label), tokens);
    return line;
  });
  if (more) lines.push(el("span", "bpe-trace-label", more));
  root.replaceChildren(...lines);
  root.dataset.ready = "true";
}

// "Copy ids" and "Copy tokens": the shown tokens' ids, and each token's text (its bytes as
// UTF-8, a broken character as U+FFFD), as JSON lists on the clipboard.
function copyButtons(vocab, ids) {
  const row = el("div", "bpe-buttons bpe-copy");
  const texts = () => ids.map((id) => new TextDecoder().decode(hexBytes(vocab[id][VOCAB.hex])));
  const copier = (what, list) => {
    const name = `Copy ${what}`;
    const copy = button(name, `The ${what} as a JSON list.`, async () => {
      copy.textContent = (await copyText(JSON.stringify(list()))) ? `Copied ${what}` : "Not copied: this browser refused";
      setTimeout(() => (copy.textContent = name), 2000);
    });
    return copy;
  };
  row.append(copier("ids", () => ids), copier("tokens", texts));
  return row;
}

// Put `text` on the clipboard: the Clipboard API where the page may use it (https or
// localhost), else the older copy command on a selected, hidden text box.
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const box = el("textarea", "bpe-sr-only");
    box.value = text;
    document.body.append(box);
    box.select();
    const done = document.execCommand("copy");
    box.remove();
    return done;
  }
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
    // A kept record comes as its JSON text (token_view.show_tokens), with the page's choices.
    const { record, ...choices } = data;
    mountTokens(root, typeof record === "string" ? { ...JSON.parse(record), ...choices } : data);
    return;
  }
  if (data.kind === "trace") {
    mountTrace(root, JSON.parse(data.rows), data.more);
    return;
  }
  if (data.kind === "class") {
    const report = (name, value) => (name === "teacher" ? setStateValue(name, value) : component.setTriggerValue(name, value));
    mountClassBar(root, data, report);
    return;
  }
  if (data.kind === "presenter") {
    mountPresenter(root, data);
    return;
  }
  const view = mount(root, data, data.start, (state) => setStateValue("view", state));
  window.bpevizStepView = view;
  if (view && window.bpevizClass) window.bpevizClass.attach(view);
}
