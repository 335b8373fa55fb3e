// ---- the presenter view: a second window of the teacher's (reveal.js's speaker view is the
// model) with the speaker notes, this and the next slide's titles, the clocks and the live
// quiz tally, and Previous / Next / Reveal. The projector's window holds the class (its
// Streamlit session has the lesson, its socket is the class's), so the two windows talk over
// a BroadcastChannel of this browser: the projector tells its state, the presenter asks it
// to move, and the projector moves as its own buttons would (the lesson's Previous / Next,
// the class's reveal). Both ends are keyed: the presenter opens only in the browser that
// holds the class's teacher key, and the projector obeys only a message carrying that key.
// Every text (notes, titles, pairs) reaches the page through textContent.

const PRESENTER_CHANNEL = "bpeviz-presenter-"; // + the class's code
const CLASS_STARTED = "bpeviz-class-started-"; // localStorage: + code -> when the lesson began (ms)

const presenterAddress = (code) => `${location.origin}/?presenter=${code}`;

// mm:ss (or h:mm:ss) of a number of milliseconds.
function clock(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  const two = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

function classStarted(code) {
  try {
    const kept = Number(localStorage.getItem(CLASS_STARTED + code));
    if (kept) return kept;
    localStorage.setItem(CLASS_STARTED + code, String(Date.now()));
  } catch {
    // storage off: the lesson's clock starts with this page
  }
  return Date.now();
}

// ---- the projector's end: called by the class bar on each of the teacher's draws. `info` is
// the app's {slide, slides, title, next_title, notes, minutes, lesson_minutes} (null with no
// lesson on).
function tellPresenter(link, info) {
  if (typeof BroadcastChannel !== "function") return;
  if (!link.presenter) {
    const channel = new BroadcastChannel(PRESENTER_CHANNEL + link.code);
    link.presenter = { channel, info: null, slide: null, since: Date.now(), started: classStarted(link.code) };
    channel.onmessage = (event) => obeyPresenter(link, event.data || {});
  }
  const side = link.presenter;
  side.info = info || null;
  const slide = side.info ? side.info.slide : null;
  if (slide !== side.slide) {
    side.slide = slide;
    side.since = Date.now();
  }
  side.channel.postMessage(presenterState(link));
}

function presenterState(link) {
  const side = link.presenter;
  const question = link.question;
  const record = link.stepView && link.stepView.root.isConnected ? link.stepView.record : null;
  return {
    type: "state",
    code: link.code,
    lesson: side.info,
    since: side.since,
    started: side.started,
    connected: link.connected,
    status: link.status,
    question: question && {
      step: question.step,
      answered: question.answered,
      spread: question.spread,
      right_rows: question.right_rows,
      pairs: record ? quizOffered(record, question.step) : null,
      unit: record ? quizUnit(record) : "merge",
    },
  };
}

// What the presenter asks, done as the projector's own controls do it.
function obeyPresenter(link, message) {
  if (message.key !== link.key) return; // not the teacher's (the key is this browser's)
  if (message.type === "hello") {
    link.presenter.channel.postMessage(presenterState(link));
    return;
  }
  if (message.type !== "do") return;
  if (message.what === "next" || message.what === "previous") {
    const control = document.querySelector(`.st-key-lesson_${message.what} button`);
    if (control && !control.disabled) control.click();
  } else if (message.what === "restart") {
    link.presenter.started = Date.now();
    try {
      localStorage.setItem(CLASS_STARTED + link.code, String(link.presenter.started));
    } catch {
      // storage off: the clock restarts for this page only
    }
    link.presenter.channel.postMessage(presenterState(link));
  } else if (message.what === "reveal") {
    const question = link.question;
    const view = link.stepView;
    if (question && !question.right_rows && view && view.root.isConnected) link.reveal(view.record, question.step);
  }
}

// ---- the presenter's window (``?presenter=CODE``) ----
function mountPresenter(root, data) {
  const code = data.code;
  const key = storedTeacherKey(code);
  if (root.bpevizPresenter) root.bpevizPresenter.stop();
  if (!key || typeof BroadcastChannel !== "function") {
    root.replaceChildren(el("p", "bpe-note bpe-presenter-refused", "This window is not the teacher's: open the presenter view from the teacher's class bar, in the browser that started the class."));
    root.dataset.ready = "true";
    return;
  }
  const channel = new BroadcastChannel(PRESENTER_CHANNEL + code);
  const ask = (what) => channel.postMessage({ type: "do", what, key });
  const parts = presenterParts(code, ask);
  let state = null;
  const draw = () => drawPresenter(parts, state);
  channel.onmessage = (event) => {
    if (!event.data || event.data.type !== "state") return;
    state = event.data;
    draw();
  };
  const onKey = (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const what = { PageDown: "next", ArrowRight: "next", PageUp: "previous", ArrowLeft: "previous" }[event.key];
    if (!what) return;
    event.preventDefault();
    ask(what);
  };
  document.addEventListener("keydown", onKey);
  const ticking = setInterval(draw, 1000);
  root.bpevizPresenter = {
    stop() {
      clearInterval(ticking);
      document.removeEventListener("keydown", onKey);
      channel.close();
    },
  };
  root.replaceChildren(parts.box);
  draw();
  channel.postMessage({ type: "hello", key });
  root.dataset.ready = "true";
}

function presenterParts(code, ask) {
  const box = el("section", "bpe-presenter");
  box.setAttribute("aria-label", "Presenter view");
  const clockBox = (label) => {
    const part = el("div", "bpe-presenter-clock");
    const value = el("span", "bpe-presenter-clock-value");
    const detail = el("span", "bpe-presenter-clock-detail");
    part.append(el("span", "bpe-presenter-clock-label", label), value, detail);
    return { part, value, detail };
  };
  const parts = {
    box,
    waiting: el("p", "bpe-note bpe-presenter-waiting", `Waiting for the window of class ${code} in this browser…`),
    now: el("h1", "bpe-presenter-now"),
    next: el("p", "bpe-presenter-next"),
    wall: clockBox("Time"),
    lesson: clockBox("Lesson"),
    slide: clockBox("This slide"),
    pace: el("p", "bpe-presenter-pace"),
    clocks: el("div", "bpe-presenter-clocks"),
    notes: el("div", "bpe-presenter-notes"),
    tally: el("div", "bpe-presenter-tally"),
    ready: el("p", "bpe-presenter-ready"),
    previous: button("← Previous", "The class's previous slide (or Page Up, ←).", () => ask("previous")),
    nextButton: button("Next slide →", "The class's next slide (or Page Down, →).", () => ask("next"), true),
    reveal: button("Reveal the answer", "Show everyone the answer and how the class voted.", () => ask("reveal")),
    restart: button("Restart the lesson clock", "Count the lesson's time from now.", () => ask("restart")),
  };
  parts.clocks.setAttribute("role", "group");
  parts.clocks.setAttribute("aria-label", "Clocks");
  parts.clocks.append(parts.wall.part, parts.lesson.part, parts.slide.part);
  parts.tally.setAttribute("aria-live", "polite");
  parts.notes.tabIndex = 0; // a long note scrolls with the keyboard too
  parts.notes.setAttribute("aria-labelledby", "bpe-presenter-notes-heading");
  const head = el("header", "bpe-presenter-head");
  const titles = el("div", "bpe-presenter-titles");
  titles.append(parts.now, parts.next);
  head.append(titles, parts.clocks);
  const notesHeading = el("h2", "bpe-presenter-heading", "Speaker notes");
  notesHeading.id = "bpe-presenter-notes-heading";
  const main = el("div", "bpe-presenter-main");
  main.append(notesHeading, parts.notes);
  const controls = el("div", "bpe-presenter-controls");
  controls.append(parts.previous, parts.nextButton, parts.reveal);
  const side = el("aside", "bpe-presenter-side");
  side.setAttribute("aria-label", "The class");
  side.append(controls, parts.tally, parts.pace, parts.ready, parts.restart);
  box.append(parts.waiting, head, main, side);
  return parts;
}

const minutes = (count) => counted(count, "minute");

function drawPresenter(parts, state) {
  parts.waiting.hidden = Boolean(state);
  const lesson = state && state.lesson;
  const now = Date.now();
  const date = new Date(now);
  parts.wall.value.textContent = `${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;
  const lessonTime = state ? now - state.started : 0;
  parts.lesson.value.textContent = state ? clock(lessonTime) : "–";
  parts.lesson.detail.textContent = lesson && lesson.lesson_minutes ? `of ${minutes(lesson.lesson_minutes)}` : "";
  parts.restart.disabled = !state;
  if (!lesson) {
    parts.now.textContent = state ? "No lesson on: start one in the class's window" : "";
    parts.next.textContent = "";
    parts.notes.textContent = "";
    parts.slide.value.textContent = "–";
    parts.slide.detail.textContent = "";
    parts.pace.textContent = "";
    parts.ready.textContent = "";
  } else {
    const slideTime = now - state.since;
    parts.now.textContent = `Slide ${number(lesson.slide)} of ${number(lesson.slides)}: ${lesson.title}`;
    parts.next.textContent = lesson.next_title ? `Next: ${lesson.next_title}` : "Next: the end of the lesson";
    parts.slide.value.textContent = clock(slideTime);
    parts.slide.detail.textContent = lesson.minutes ? `of ${minutes(lesson.minutes)} planned` : "no time planned";
    const over = Boolean(lesson.minutes) && slideTime > lesson.minutes * 60000;
    parts.slide.part.classList.toggle("bpe-presenter-over", over);
    const pace = pacing(lessonTime, lesson);
    parts.pace.textContent = pace.text;
    parts.pace.dataset.pace = pace.kind;
    parts.ready.textContent = preparedLine(lesson.prepared);
    if (parts.shownNotes !== lesson.notes) {
      parts.shownNotes = lesson.notes;
      parts.notes.replaceChildren(...noteParagraphs(lesson.notes || "This slide has no notes."));
      parts.notes.scrollTop = 0;
    }
    parts.notes.classList.toggle("bpe-presenter-empty", !lesson.notes);
  }
  parts.previous.disabled = !lesson || lesson.slide <= 1;
  parts.nextButton.disabled = !lesson || lesson.slide >= lesson.slides;
  const question = state && state.question;
  parts.reveal.disabled = !question || Boolean(question.right_rows);
  parts.tally.replaceChildren(...tallyLines(question, state ? state.connected : 0));
}

// A lesson file's notes are wrapped at its editor's width: a blank line starts a paragraph,
// a single line break is a space (as the lesson bar's Markdown reads them).
function noteParagraphs(notes) {
  return notes
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, " ").trim())
    .filter(Boolean)
    .map((paragraph) => el("p", "", paragraph));
}

// Where the lesson stands against its plan (reveal.js's pacing timer): the slides before
// this one planned `planned_before` minutes, this one `minutes` more.
function pacing(lessonTime, lesson) {
  if (!lesson.lesson_minutes) return { kind: "none", text: "" };
  const early = lesson.planned_before * 60000;
  const late = early + lesson.minutes * 60000;
  const by = (ms) => minutes(Math.max(1, Math.round(ms / 60000)));
  if (lessonTime > late + 30000) return { kind: "behind", text: `${by(lessonTime - late)} behind the plan` };
  if (lessonTime < early - 30000) return { kind: "ahead", text: `${by(early - lessonTime)} ahead of the plan` };
  return { kind: "on", text: "On the plan" };
}

// The lesson's slides computed in the server's background (bpeviz/app/lesson/prepare.py).
function preparedLine(prepared) {
  if (!prepared) return "";
  const [done, all] = prepared;
  return done >= all ? `All ${number(all)} slides ready` : `Preparing the slides: ${number(done)} of ${number(all)} ready`;
}

// The live tally, as the presenter alone sees it while the question is open: the spread.
function tallyLines(question, connected) {
  if (!question) return [el("p", "bpe-presenter-quiet", `${counted(connected, "student")} connected. No question open.`)];
  const heading = `Class quiz, ${question.unit || "merge"} ${number(question.step + 1)}${question.right_rows ? " (revealed)" : ""}`;
  const lines = [el("h2", "bpe-presenter-heading", heading), el("p", "bpe-presenter-answered", `${number(question.answered)} of ${counted(connected, "student")} answered`)];
  const list = el("ol", "bpe-presenter-spread");
  const most = Math.max(1, ...(question.spread || [0]));
  (question.pairs || []).forEach((pair, row) => {
    const votes = question.spread ? question.spread[row] || 0 : 0;
    const right = Boolean(question.right_rows && question.right_rows.includes(row));
    const item = el("li", right ? "bpe-presenter-choice bpe-presenter-right" : "bpe-presenter-choice");
    const bar = el("span", "bpe-presenter-bar");
    bar.style.width = `${(100 * votes) / most}%`;
    item.append(el("span", "bpe-presenter-pair", pair), el("span", "bpe-presenter-votes", `${right ? "✓ right · " : ""}${counted(votes, "answer")}`), bar);
    list.append(item);
  });
  if (question.pairs) lines.push(list);
  return lines;
}

// The class bar's way to the presenter's window: a link (to copy, or to open in a tab) that
// opens one named window, brought back to the front when clicked again.
function presenterButton(code) {
  const link = el("a", "bpe-button bpe-presenter-open", "Presenter view");
  link.href = presenterAddress(code);
  link.target = `bpeviz-presenter-${code}`;
  link.title = "Speaker notes, the next slide, the clocks and the quiz's spread, in a second window that drives the class.";
  link.addEventListener("click", (event) => {
    event.preventDefault();
    const opened = window.open(link.href, link.target, "popup,width=960,height=720");
    if (opened) opened.focus();
  });
  return link;
}
