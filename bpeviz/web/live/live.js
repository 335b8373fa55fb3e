// ---- a live class: one socket per browser (bpeviz.classroom.routes). The teacher's view goes
// up it; each student's step view applies the teacher's view in the browser, with no server
// rerun, until the student explores alone. One ClassLink per page (window.bpevizClass),
// shared by the class bar (on every page) and the step view.

const CLASS_SOCKET = "/api/class/socket";
const TEACHER_KEYS = "bpeviz-teacher-keys"; // localStorage: code -> the teacher's key
const STUDENT_ID = "bpeviz-student-id"; // sessionStorage: this tab's id (a reload rejoins)
const SEND_EVERY_MS = 120; // the teacher's view, sent at most this often (autoplay at 20/s)
const RETRY_FIRST_MS = 500; // a lost socket's first retry, at most; each next waits twice as long
const RETRY_MOST_MS = 15000;
const PROBLEM_SHOWN_MS = 12000; // a refusal stays in the class bar this long (a new one replaces it)
const NO_SLIDE = { slide: 0, slides: 0, title: "" }; // a view outside a lesson
const NOT_SENT = "Not connected: your answer was not sent. Answer again when the class is back.";

function storedTeacherKey(code) {
  try {
    return JSON.parse(localStorage.getItem(TEACHER_KEYS) || "{}")[code] || null;
  } catch {
    return null;
  }
}

function storeTeacherKey(code, key) {
  try {
    const keys = JSON.parse(localStorage.getItem(TEACHER_KEYS) || "{}");
    keys[code] = key;
    localStorage.setItem(TEACHER_KEYS, JSON.stringify(keys));
  } catch {
    // storage off: the teacher's session still holds the key until the tab closes
  }
}

// A token of this page (this tab, this load): its reconnects say it, so the server lets the
// page's old socket go, perhaps half-open after a Wi-Fi drop, instead of counting a new page.
function pageToken() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function studentId() {
  let id = null;
  try {
    id = sessionStorage.getItem(STUDENT_ID);
  } catch {
    // storage off: a new id each page load
  }
  if (!id) {
    const bytes = crypto.getRandomValues(new Uint8Array(12));
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    try {
      sessionStorage.setItem(STUDENT_ID, id);
    } catch {
      // as above
    }
  }
  return id;
}

// How long to wait before retry number `tries` (from 0): doubling up to RETRY_MOST_MS, and
// between half and all of that by chance, so that 200 pages that lost the class at once (a
// server restart, the hall's Wi-Fi) do not all come back in the same instant.
export function retryDelay(tries, random = Math.random) {
  const most = Math.min(RETRY_FIRST_MS * 2 ** Math.min(tries, 16), RETRY_MOST_MS);
  return most / 2 + (random() * most) / 2;
}

// The class quiz's four choices at step k, by row, in words: BPE's pairs, or the tokens a
// Unigram round may remove (row 0 the one it does).
function quizOffered(record, k) {
  if (record.algorithm !== "unigram") return offeredPairs(record, k);
  const tokens = ["", "", "", ""];
  if (record.rounds[k] && record.rounds[k].quiz.length) for (const { row, label } of unigramQuizRows(record, k)) tokens[row] = label;
  return tokens;
}

// What the class quiz asks about at a step: the merge's pair, or the token a Unigram round
// removes (the presenter's heading and the class's results say it).
function quizUnit(record) {
  return record.algorithm === "unigram" ? "round" : "merge";
}

export class ClassLink {
  constructor(code, role, key) {
    this.code = code;
    this.role = role; // "teacher" or "student"
    this.key = key;
    this.following = true;
    this.view = null; // the teacher's view, as last heard
    this.run = ""; // the run this page shows (bpeviz.classroom.hubs.common.run_id), from the app
    this.slide = null; // the teacher's lesson slide {slide, slides, title}, from the app
    this.resumed = false; // a teacher's view taken from the server on connecting
    this.connected = 0;
    this.question = null; // {step, answered, spread, right_rows, mine, sending}: mine once the server took it
    this.score = { right: 0, answered: 0 };
    this.me = { right: 0, answered: 0, nick: "" };
    this.board = [];
    this.results = role === "teacher" ? storedResults(code) : []; // class_results.js
    this.offered = null; // what the question being revealed offered: {step, pairs, unit}
    this.status = "connecting";
    this.problem = ""; // the last refusal, for the class bar: said until PROBLEM_SHOWN_MS
    this.problemTimer = null;
    this.refused = false;
    this.ended = false;
    this.listeners = new Set();
    this.stepView = null;
    this.tries = 0;
    this.tab = pageToken();
    this.pending = null; // the teacher's latest view, waiting for SEND_EVERY_MS
    this.sentAt = -Infinity; // never sent: the first view goes at once, however young the page
    this.connect();
  }

  get teacher() {
    return this.role === "teacher";
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}${CLASS_SOCKET}`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      const hello = { type: "hello", code: this.code, role: this.role };
      if (this.teacher) hello.key = this.key;
      else Object.assign(hello, { id: studentId(), nick: this.me.nick || "", tab: this.tab });
      socket.send(JSON.stringify(hello));
    });
    socket.addEventListener("message", (event) => this.hear(JSON.parse(event.data)));
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket || this.ended || this.closed) return;
      if (this.question && this.question.sending !== undefined) {
        delete this.question.sending; // the welcome says whether it arrived
      }
      if (event.reason && (event.code === 1008 || event.code === 1009)) this.tell(event.reason);
      this.status = this.refused ? "refused" : "reconnecting";
      this.changed();
      if (this.refused) return; // the server said why (a wrong code, a full class): no retry
      setTimeout(() => this.connect(), retryDelay(this.tries++));
    });
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
  }

  // Whether the message went (the socket is open); the server may still refuse it.
  send(message) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  // A problem for the class bar to say (a refusal, a limit), for PROBLEM_SHOWN_MS; the last
  // word of a connection that will not come back (refused, ended) stays.
  tell(sentence) {
    this.problem = sentence;
    clearTimeout(this.problemTimer);
    this.problemTimer = setTimeout(() => {
      if (this.refused || this.ended) return;
      this.problem = "";
      this.changed();
    }, PROBLEM_SHOWN_MS);
  }

  hear(message) {
    switch (message.type) {
      case "welcome": // the class is back (an open alone is not: the server reads the hello after)
        this.tries = 0;
        this.status = "live";
        this.connected = message.connected;
        this.score = message.score;
        this.question = message.question;
        if (message.me) this.me = { ...this.me, right: message.me.right, answered: message.me.answered, nick: message.me.nick || this.me.nick };
        // The teacher's own view stands (a reconnect, or one shown before the socket opened):
        // sent now, or by the send already pending (it sends this.view: keep it).
        if (this.teacher && this.view) {
          if (this.pending === null) this.send({ type: "view", view: this.view });
        } else {
          this.view = message.view;
          this.resumed = this.teacher; // a reloaded teacher's step view takes the class's step
        }
        if (!this.teacher && this.following) this.follow();
        break;
      case "view":
        // The teacher hears its own views back: its latest stands (an echo of an older one,
        // heard while the latest waited its turn, went out in its place).
        if (!this.teacher || !this.view) this.view = message.view;
        if (!this.teacher && this.following) this.applyView();
        break;
      case "counts":
        this.connected = message.connected;
        if (message.question === null) this.question = null;
        else if (!this.question || this.question.step !== message.question) this.question = { step: message.question, answered: message.answered, spread: null, right_rows: null };
        else this.question.answered = message.answered;
        break;
      case "spread":
        if (this.question && this.question.step === message.step) this.question.spread = message.spread;
        break;
      case "reveal":
        if (this.question && this.question.step === message.step) {
          Object.assign(this.question, { spread: message.spread, right_rows: message.right_rows, answered: message.answered });
          if (this.question.mine !== undefined) {
            this.me.answered += 1;
            if (message.right_rows.includes(this.question.mine)) this.me.right += 1;
          }
        }
        this.score = message.score;
        break;
      case "answered": // the server took this browser's answer: now it is in
        if (this.question && this.question.step === message.step) {
          this.question.mine = message.row;
          delete this.question.sending;
        }
        break;
      case "board":
        this.board = message.top;
        break;
      case "answers": // the teacher's record of a revealed question
        keepAnswers(this, message);
        break;
      case "ended":
        this.ended = true;
        this.status = "ended";
        this.problem = message.message || "";
        break;
      case "error":
        this.tell(message.message); // a refused message; fatal: the socket closes too
        if (message.refused === "answer" && this.question) delete this.question.sending;
        if (message.fatal) this.status = "refused";
        this.refused = Boolean(message.fatal);
        break;
    }
    if (this.stepView && ["counts", "spread", "reveal", "welcome", "answered", "error"].includes(message.type)) this.stepView.redrawQuiz();
    this.changed();
  }

  changed() {
    // A following student's view hides its step controls: the teacher drives; the bar's
    // "Explore on my own" gives them back.
    if (this.stepView) this.stepView.root.classList.toggle("bpe-class-following", !this.teacher && this.following);
    for (const listener of this.listeners) listener(this);
  }

  // ---- the teacher ----
  // The teacher's view (page, step, when, pieces, quiz, and the run it is of), sent at most
  // every SEND_EVERY_MS.
  show(view) {
    if (!this.teacher) return;
    view = { ...view, run: this.run, ...(this.slide || NO_SLIDE) };
    this.view = view;
    const wait = this.sentAt + SEND_EVERY_MS - performance.now();
    if (wait <= 0) {
      this.sentAt = performance.now();
      this.send({ type: "view", view });
      return;
    }
    if (this.pending === null) {
      this.pending = setTimeout(() => {
        this.pending = null;
        this.sentAt = performance.now();
        this.send({ type: "view", view: this.view });
      }, wait);
    }
  }

  reveal(record, k) {
    this.offered = { step: k, pairs: quizOffered(record, k), unit: quizUnit(record) };
    // Unigram's row 0 is the token the round removes (unigram_view.js), the one right answer.
    const right = record.algorithm === "unigram" ? [0] : [...rightRows(quizChoices(record, k), record)];
    this.send({ type: "reveal", step: k, right_rows: right });
  }

  end() {
    this.send({ type: "end" });
  }

  // ---- a student ----
  follow() {
    this.following = true;
    this.applyView();
    this.changed();
  }

  explore() {
    if (!this.following) return;
    this.following = false;
    this.changed();
  }

  // Whether the teacher's view is of this page's run (a view that names none is the class's
  // first run); if not, the class bar asks the app for the teacher's run.
  sameRun() {
    return Boolean(this.view) && (!this.view.run || this.view.run === this.run);
  }

  // The run this page shows, told by the class bar on each of the page's runs. A following
  // student's step view can be drawn before the bar hears a new run (the page switched to the
  // teacher's): it could not follow a view of another run then, so it follows now.
  showsRun(run) {
    if (this.run === run) return;
    this.run = run;
    if (!this.teacher && this.following) this.applyView();
  }

  applyView() {
    if (!this.view) return;
    if (this.stepView && this.view.page === "step" && this.sameRun()) this.stepView.follow(this.view);
    this.changed(); // the class bar moves to the teacher's page or run
  }

  // A student's answer: "in" (question.mine) only when the server says it took it
  // ("answered"); refused or lost, the class bar says why and the choices stay open.
  answer(step, row) {
    const question = this.question;
    if (!question || question.step !== step || question.mine !== undefined || question.sending !== undefined) return;
    if (this.send({ type: "answer", step, row })) question.sending = row;
    else this.tell(NOT_SENT);
    this.changed();
  }

  rename(nick) {
    this.me.nick = nick;
    this.send({ type: "nick", nick });
  }

  // ---- the step view ----
  attach(view) {
    this.stepView = view;
    view.classLink = this;
    this.changed();
    if (this.teacher) {
      // Once, after a reload: the class's step (from the server) over the link's. Otherwise
      // the teacher's own view leads (a slide's step, a new run's step 0).
      if (this.resumed && this.view.page === "step" && this.sameRun() && view.k !== this.view.step) view.follow(this.view);
      this.resumed = false;
      this.show(view.viewState());
    } else if (this.following && this.view && this.view.page === "step" && this.sameRun()) {
      view.follow(this.view);
    }
  }

  // What the step view hears from its own controls.
  moved(state) {
    if (this.teacher) this.show(state);
    else this.explore();
  }
}

// The page's one ClassLink for (code, role), made or kept.
function classLink(code, role, key) {
  const held = window.bpevizClass;
  if (held && held.code === code && held.role === role && !held.ended) return held;
  if (held) held.close();
  const link = (window.bpevizClass = new ClassLink(code, role, key));
  const view = window.bpevizStepView;
  if (view && view.root.isConnected) link.attach(view);
  return link;
}
