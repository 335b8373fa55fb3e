// ---- the Step page's view: controls, panels, the text at step k, the inspector -------------
// Drawn from one record (its vocabulary completed by mount), with no server round trip: the
// address follows every change at once (in the app: address.js), and the server hears where
// the student stopped once stepping pauses for REPORT_AFTER_MS.

const REPORT_AFTER_MS = 600;

class StepView {
  // report(state) hears where the student stopped, once stepping pauses: {step, when, quiz,
  // pieces}; link (the app's names and defaults, bpeviz.app.step.view.LINK) puts every change
  // into the address at once.
  constructor(root, record, start, report, link) {
    this.root = root;
    this.record = record;
    // What the student chose, read by the controls, the keys and a live class; show() draws it.
    this.k = Math.min(Math.max(Number(start.step) || 0, 0), record.merge_count);
    this.when = start.when === "before" ? "before" : "after";
    this.playing = false;
    this.pace = 1; // seconds between autoplay steps
    this.animate = !reducedMotion();
    this.showPieces = start.pieces === true;
    this.quiz = start.quiz === true;
    this.classLink = null; // a live class's ClassLink (live.js), once attached
    // Talking to the server: where the student stopped, heard once stepping pauses.
    this.talk = { report, address: link ? new AddressLink(link) : null };
    for (const name of ["reportDue", "reported", "reportedAt"]) delete root.dataset[name]; // an earlier view's
    // The quiz: the solo quiz's answers (step -> the row chosen, 0 the real next merge), and
    // whether the card drawn shows its answer.
    this.quizState = { answers: new Map(), revealed: false };
    // Kept across steps, so that a step touches only what changed; slideMs: how long a merge
    // slides, the stylesheet's --bpe-slide, read when needed.
    this.kept = { spans: new Map(), vocabRows: new Map(), slideMs: 0 };
    this.timers = { play: null, slide: null, report: null, scroll: null };
    this.build(); // this.parts, this.boxes, this.widgets, this.listeners
    this.show(this.k, this.quiz ? "after" : this.when, { report: false });
  }

  // Where the view stands, as the app's link and report say it.
  state() {
    return { step: this.k, when: this.when, quiz: this.quiz, pieces: this.showPieces };
  }

  build() {
    const record = this.record;
    this.root.replaceChildren();
    this.root.classList.add("bpe-step");
    this.root.classList.toggle("bpe-wordpiece", isWordPiece(record));
    // A click anywhere in the view puts focus in it, where its keys act (WCAG 2.1.4).
    this.root.tabIndex = -1;
    const controls = stepControls(this);
    const box = (className) => el("div", className);
    // The controls' inputs and buttons, and the switch between before and after the merge.
    this.parts = {
      ...controls.parts,
      before: button("Before merge", "The text just before this merge, its pair outlined.", () => this.show(this.k, "before")),
      after: button("After merge", "The text just after this merge, the new token outlined.", () => this.show(this.k, "after")),
    };
    // What each step draws into; live: each step and the quiz's verdict, said by a screen
    // reader (not shown).
    this.boxes = {
      card: box("bpe-card-box"),
      counts: box("bpe-counts-box"),
      inspector: box("bpe-inspector-box"),
      pairs: box(),
      vocab: box(),
      legend: box("bpe-legend-box"),
      text: scrollBox("bpe-scroll", "The text, token by token"),
      windowNote: el("p", "bpe-caption"),
      piecesNote: el("p", "bpe-caption bpe-pieces-rule"),
      live: el("p", "bpe-sr-only"),
    };
    const boxes = this.boxes;
    boxes.live.setAttribute("aria-live", "polite");
    const countLine = (made, hits) =>
      made.kind === "merge" && made.number > this.k
        ? `Not made yet at step ${number(this.k)}: merge ${number(made.number)} comes later.`
        : `In the text shown at step ${number(this.k)}: ${counted(hits, "time")}${hits ? ", outlined in the text." : "."}`;
    // The parts that keep their own state: the text read as text, the chart and the inspector.
    this.widgets = {
      reader: tokenReader(),
      chart: record.merge_count ? chart(record) : null,
      inspector: new Inspector(boxes.inspector, boxes.text, stepSource(record), countLine),
    };
    const { reader, chart: merges, inspector } = this.widgets;
    const whenRow = box("bpe-when");
    whenRow.append(this.parts.before, this.parts.after);
    const textPane = box("bpe-text-pane");
    textPane.append(el("h2", "", "The text, token by token"), whenRow, boxes.windowNote, boxes.piecesNote, boxes.legend, boxes.text, reader.element);
    const tablePane = box("bpe-table-pane");
    tablePane.append(boxes.pairs);
    if (merges) tablePane.append(merges.element);
    const panes = box("bpe-panes");
    panes.append(textPane, tablePane);
    // The inspector comes last: opening it never moves the text, and the stylesheet holds it
    // at the bottom of the screen, over the text's lower part (a bottom sheet).
    this.bar = controls.bar;
    this.root.append(controls.bar, controls.element, boxes.card, boxes.counts, panes, boxes.vocab, boxes.inspector, boxes.live);
    inspector.listen(boxes.text, boxes.vocab, boxes.inspector);
    if (!record.window.whole) {
      const { from, bytes } = record.window;
      const shown = from ? `bytes ${number(from + 1)}–${number(bytes)}` : `its first ${number(bytes)} bytes`;
      boxes.windowNote.textContent = `Long text: showing ${shown} of ${number(record.text_bytes)}; every count is of the whole text.`;
    }
    this.listen();
  }

  // The document's keys, and leaving the page: a report sent then would reach the next page's
  // run (which drops it) or, before that run starts, take the student back; the address keeps
  // the view instead.
  listen() {
    const address = this.talk.address;
    this.listeners = {
      keydown: (event) => this.onKey(event),
      leaving: (event) => {
        const away = event.type === "popstate" ? address && location.pathname !== address.path : this.leavesPage(event.target);
        if (away) this.stopTalking();
      },
    };
    document.addEventListener("keydown", this.listeners.keydown);
    document.addEventListener("click", this.listeners.leaving, true);
    window.addEventListener("popstate", this.listeners.leaving);
  }

  // Whether a click on `target` follows a link to another of the app's pages.
  leavesPage(target) {
    const link = target instanceof Element ? target.closest("a[href]") : null;
    return Boolean(link) && !this.root.contains(link) && link.origin === location.origin && !link.target;
  }

  stopTalking() {
    // A view not yet told to the server is handed over as unsent (the app keeps it for the
    // view mounted next: main.js), not dropped.
    if (this.root.dataset.reportDue) this.talk.report(this.state(), { unsent: true });
    clearTimeout(this.timers.report);
    delete this.root.dataset.reportDue;
    if (this.talk.address) this.talk.address.stop();
  }

  destroy() {
    document.removeEventListener("keydown", this.listeners.keydown);
    document.removeEventListener("click", this.listeners.leaving, true);
    window.removeEventListener("popstate", this.listeners.leaving);
    if (this.talk.address) this.talk.address.stop();
    clearInterval(this.timers.play);
    clearTimeout(this.timers.slide);
    clearTimeout(this.timers.report);
    cancelAnimationFrame(this.timers.scroll);
  }

  onKey(event) {
    if (!this.root.isConnected) {
      document.removeEventListener("keydown", this.listeners.keydown);
      return;
    }
    const target = event.composedPath ? event.composedPath()[0] : event.target;
    if (event.defaultPrevented || !(target instanceof Node) || !this.root.contains(target)) return;
    const tag = target && target.tagName ? target.tagName.toLowerCase() : "";
    if (["input", "textarea", "select"].includes(tag) || (target && target.isContentEditable)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const action = keyAction(this, event.key);
    if (!action) return;
    event.preventDefault();
    action();
  }

  setPace(seconds) {
    this.pace = seconds;
    if (this.playing) this.startTimer();
  }

  setPieces(on) {
    this.showPieces = on;
    this.show(this.k, this.when);
  }

  setQuiz(on) {
    this.quiz = on;
    if (on && this.playing) this.toggle();
    this.show(this.k, "after");
  }

  // ---- a live class (live.js): the view as the class sees it, and the teacher's view applied

  viewState() {
    return { page: "step", step: this.k, when: this.when, pieces: this.showPieces, quiz: this.quiz };
  }

  // Apply the teacher's view: drawn here, never reported to the server (no rerun).
  follow(view) {
    this.showPieces = this.parts.pieces.checked = Boolean(view.pieces);
    if (Boolean(view.quiz) !== this.quiz) {
      this.quiz = this.parts.quiz.checked = Boolean(view.quiz);
      if (this.quiz && this.playing) this.toggle();
    }
    this.show(view.step, view.quiz ? "after" : view.when, { report: false, applied: true });
  }

  // The class quiz's counts or reveal changed: the card again (the text too, once revealed).
  redrawQuiz() {
    if (!this.quiz || !this.classQuiz()) return;
    const question = this.classLink.question;
    const revealed = Boolean(question && question.step === this.k && question.right_rows);
    if (revealed !== this.quizState.revealed) this.show(this.k, "after", { report: false, applied: true });
    else this.drawCard(() => patchChildren(this.boxes.card.firstChild, this.quizCard())); // the same step: in place
  }

  // Whether the quiz is the class's (the teacher's, or a student following), not a solo one.
  classQuiz() {
    return Boolean(this.classLink && (this.classLink.teacher || this.classLink.following));
  }

  quizCard() {
    const k = this.k;
    if (this.classQuiz()) return classQuizCard(this.record, k, this.classLink, () => this.show(k + 1, "after"));
    const answer = (step, row) => {
      this.quizState.answers.set(step, row);
      this.show(step, "after", { report: false });
    };
    return quizCard(this.record, k, this.quizState.answers, answer, () => this.show(k + 1, "after"));
  }

  // The steps a quiz shows as answered: the solo quiz's answers, or the class's revealed step.
  quizAnswers() {
    if (!this.classQuiz()) return this.quizState.answers;
    const question = this.classLink.question;
    return new Map(question && question.right_rows ? [[question.step, question.mine]] : []);
  }

  toggle() {
    this.playing = !this.playing;
    if (this.playing && this.k >= this.record.merge_count) this.show(0, this.when);
    if (this.playing) this.startTimer();
    else this.stopTimer();
    this.updateControls();
  }

  startTimer() {
    clearInterval(this.timers.play);
    this.timers.play = setInterval(() => {
      if (this.k >= this.record.merge_count) {
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
    const { slider, stepLabel, first, previous, next, last, play, before, after } = this.parts;
    const k = this.k;
    const merges = this.record.merge_count;
    // an answered quiz question has revealed merge k + 1: the slider and the line say so, as
    // the card and Merges done do
    const done = this.quiz && this.quizAnswers().has(k) && k < merges ? k + 1 : k;
    slider.value = done;
    stepLabel.textContent = `${number(done)} of ${number(merges)}`;
    this.parts.mergeLine.textContent = mergeLine(this.record, done);
    slider.setAttribute("aria-valuetext", `${number(done)} of ${number(merges)}`);
    first.disabled = previous.disabled = k === 0;
    next.disabled = last.disabled = k >= merges;
    // After a quiz answer the card's "Next question" is the one way on.
    next.hidden = this.quiz && this.quizAnswers().has(k);
    play.textContent = this.playing ? "⏸ Pause" : "▶ Play";
    play.disabled = merges === 0;
    before.parentElement.hidden = k === 0 || this.quiz;
    before.classList.toggle("bpe-on", this.when === "before");
    after.classList.toggle("bpe-on", this.when !== "before");
    before.setAttribute("aria-pressed", String(this.when === "before"));
    after.setAttribute("aria-pressed", String(this.when !== "before"));
  }

  // Draw step k, `when` "before" or "after" its merge. options.report: false for a step the
  // student did not take (nothing reported, nothing scrolled into sight); options.applied: the
  // teacher's view drawn here, not told to the class again.
  show(k, when, options = {}) {
    const { record, boxes } = this;
    k = Math.min(Math.max(Math.round(k), 0), record.merge_count);
    const slide = !this.quiz && this.animate && !reducedMotion() && k === this.k + 1 && when === "after" && (!this.playing || this.pace >= 0.5);
    this.k = k;
    this.when = when;
    // the class hears the teacher's step before this screen redraws (their wait is shorter)
    if (this.classLink && !options.applied) this.classLink.moved(this.viewState());
    if (this.talk.address) this.talk.address.write(this.state());
    clearTimeout(this.timers.slide);
    this.root.dataset.ready = "false";
    this.root.classList.toggle("bpe-quiz-on", this.quiz);
    const answered = this.quiz && this.quizAnswers().has(k);
    this.updateControls(); // before the card: drawCard measures the step bar
    if (this.quiz) {
      this.quizState.revealed = answered;
      this.drawCard(() => boxes.card.replaceChildren(this.quizCard()));
      boxes.pairs.replaceChildren(answered ? pairTable(record, k + 1) : el("p", "bpe-note", "The pair counts are hidden until you answer."));
    } else {
      this.drawCard(() => boxes.card.replaceChildren(card(record, k)));
      boxes.pairs.replaceChildren(pairTable(record, k));
    }
    // An answered question has revealed merge k + 1: the numbers are those after it.
    boxes.counts.replaceChildren(counts(record, answered && k < record.merge_count ? k + 1 : k));
    if (this.widgets.chart) this.widgets.chart.move(k);
    boxes.vocab.replaceChildren(vocabTable(record, k, this.kept.vocabRows));
    boxes.piecesNote.textContent = this.showPieces ? record.pieces_rule : "";
    boxes.piecesNote.hidden = !this.showPieces;
    // A step the student took shows what it changed, on the page too (a phone's screen
    // holds the text or the card, seldom both); opening the view scrolls nothing.
    const reveal = options.report !== false;
    if (slide && !this.kept.slideMs) this.kept.slideMs = cssMilliseconds(this.root, "--bpe-slide");
    if (slide && this.kept.slideMs > 0) {
      this.drawText(viewAt(record, k, "before"), true, reveal);
      this.timers.slide = setTimeout(() => this.finish(k, when, reveal), this.kept.slideMs);
    } else {
      this.finish(k, when, reveal);
    }
    if (options.report !== false) this.scheduleReport();
  }

  finish(k, when, reveal) {
    this.drawText(this.quiz ? quizView(this.record, k, this.quizAnswers()) : viewAt(this.record, k, when), false, reveal);
    this.root.dataset.step = k;
    this.root.dataset.when = this.quiz ? "quiz" : k ? when : "now";
    this.boxes.live.textContent = this.quiz ? quizAnnouncement(this.record, k, this.quizAnswers()) : stepAnnouncement(this.record, k, when);
    this.root.dataset.ready = "true";
  }

  // Redraw the card with draw(), the keyboard's focus kept in it (WCAG 2.4.3): on the same
  // control when it is still there (a choice, the card's button), else on the card's next
  // thing to do ("Next question" once a choice is made, the first choice of a new question),
  // its verdict or its title, made focusable for it. A live class redraws the card on every
  // answer counted.
  drawCard(draw) {
    const box = this.boxes.card;
    const had = box.contains(document.activeElement) ? document.activeElement : null;
    const same = had && had.dataset.row !== undefined ? `.bpe-choice[data-row="${had.dataset.row}"]` : had && had.classList.contains("bpe-primary") ? ".bpe-primary" : null;
    draw();
    if (!had || box.contains(document.activeElement)) return;
    const then = [".bpe-primary", ".bpe-choice:not(:disabled)", ".bpe-verdict", ".bpe-card-title"];
    const target = (same ? [same, ...then] : then).map((selector) => box.querySelector(selector)).find((found) => found && !found.disabled);
    if (!target) return;
    if (!target.hasAttribute("tabindex") && target.tabIndex < 0) focusable(target);
    focusInCard(target, box.firstElementChild || target, this.bar);
  }

  drawText(view, sliding, reveal) {
    const options = { pieces: view.pieceStarts, outline: this.showPieces, keys: view.starts, cache: this.kept.spans };
    const spans = tokenSpans(this.record.vocab, view.ids, view.marks, options);
    spans.classList.toggle("bpe-sliding", Boolean(sliding));
    this.boxes.legend.replaceChildren(legend(view.legend, this.record.vocab, view.ids));
    if (!sliding) this.widgets.reader.show(this.record.vocab, view.ids);
    const box = this.boxes.text;
    if (box.firstChild !== spans || box.childNodes.length !== 1) box.replaceChildren(spans);
    this.widgets.inspector.draw();
    // Scroll to the first outlined token when it is out of sight, measured after the frame
    // is laid out (measuring now would force a second layout on every step).
    // Lines out of sight are laid out at an estimated height until drawn, so a scroll is
    // checked again on the next frames, once the lines around the mark have their size.
    cancelAnimationFrame(this.timers.scroll);
    // A box out of the window's sight has every line at its estimate: its lines are then
    // laid out for the measure (the class is dropped once settled; each line keeps its size).
    const settle = (tries) => {
      const mark = spans.querySelector(`.bpe-${MARK.NEW}, .bpe-${MARK.PAIR_START}`);
      if (!mark || !spans.isConnected) return;
      const seen = box.getBoundingClientRect();
      if (tries === 4 && (seen.top >= window.innerHeight || seen.bottom <= 0)) spans.classList.add("bpe-laid-out");
      if (tries <= 1) spans.classList.remove("bpe-laid-out");
      const top = mark.getBoundingClientRect().top - box.getBoundingClientRect().top;
      if (top < 0 || top + mark.offsetHeight > box.clientHeight) box.scrollTop += top - box.clientHeight / 4;
      const onPage = mark.getBoundingClientRect();
      if (reveal && (onPage.top < 0 || onPage.bottom > window.innerHeight)) mark.scrollIntoView({ block: "center" });
      if (tries > 1) this.timers.scroll = requestAnimationFrame(() => settle(tries - 1));
    };
    this.timers.scroll = requestAnimationFrame(() => settle(4));
  }

  // Open the inspector on token `id` (null closes it).
  inspect(id) {
    this.widgets.inspector.open(id);
  }

  // The root says whether a report is due and what the server was last told, and when (tests
  // wait for the server's answer to it).
  scheduleReport() {
    clearTimeout(this.timers.report);
    delete this.root.dataset.reportDue;
    if (this.playing) return;
    this.root.dataset.reportDue = "true";
    this.timers.report = setTimeout(() => {
      delete this.root.dataset.reportDue;
      this.root.dataset.reported = `${this.k}|${this.when}`;
      this.root.dataset.reportedAt = String(performance.now());
      if (this.talk.address) this.talk.address.reported = this.state();
      this.talk.report(this.state());
    }, REPORT_AFTER_MS);
  }
}
