// ---- the class bar, on every page of a live class: for the teacher the join code, link, QR
// code, who is connected and the class's best scores; for a student whether they follow the
// teacher or explore alone. User text (nicknames) reaches it only as text.

const ASK_AGAIN_MS = 8000; // a following student's ask for the teacher's run or page, unanswered
const ASK_TRIES = 3;

// The code as a projector shows it: groups of three.
const spacedCode = (code) => code.match(/.{1,3}/g).join(" ");

// The join link: from the address students reach (the app's BPEVIZ_PUBLIC_URL), else this
// page's own.
function joinLink(code, base) {
  return `${base || location.origin}/?class=${code}`;
}

// The teacher's bar: built once (its buttons keep keyboard focus, the QR code is fetched
// once), its counts, score, join panel and board patched in place on every change. Once the
// first students are in, the join panel folds into the bar's one line (the code, the count,
// "Show join code"), so that the slide has the projector's first screen; the teacher can
// open it again.
function teacherBar(link, parts) {
  if (!parts.bar) buildTeacherBar(link, parts);
  if (link.connected > 0 && !parts.folded) {
    parts.folded = true;
    parts.joinOpen = false;
  }
  const at = parts.teacher;
  // (said until students are in: they found the way)
  at.warning.textContent = parts.warning || "";
  at.warning.hidden = !parts.warning || parts.folded;
  // the count is the server's, of live sockets; while this page is away from it, the last heard
  const count = `${counted(link.connected, "student")} connected${link.status === "live" ? "" : " (last known)"}`;
  if (at.count.textContent !== count) at.count.textContent = count;
  at.score.textContent = link.score.answered ? `Class score: ${number(link.score.right)} of ${number(link.score.answered)} right` : "";
  at.score.hidden = !link.score.answered;
  at.joinButton.textContent = parts.joinOpen ? "Hide join code" : "Show join code";
  at.joinButton.setAttribute("aria-expanded", String(parts.joinOpen));
  at.join.hidden = !parts.joinOpen;
  // The board of best scores, by nickname: only when the teacher shows it (never zero scores:
  // the server leaves those out).
  at.boardButton.textContent = parts.showBoard ? "Hide best scores" : "Show best scores";
  at.boardButton.setAttribute("aria-pressed", String(Boolean(parts.showBoard)));
  at.boardButton.hidden = !link.board.length;
  if (link.results.length !== parts.resultsTold) {
    parts.resultsTold = link.results.length; // the app offers them as CSV and JSON
    parts.report("results", link.results);
  }
  const entries = link.board.map((entry) => `${entry.nick}: ${number(entry.right)} of ${number(entry.answered)}`);
  if (entries.join("\n") !== at.drawnBoard) {
    at.drawnBoard = entries.join("\n");
    at.board.replaceChildren(...entries.map((words) => el("li", "", words)));
  }
  at.board.hidden = !entries.length || !parts.showBoard;
  tellPresenter(link, parts.presenter); // presenter.js: the presenter's window, if open
  return parts.bar;
}

function buildTeacherBar(link, parts) {
  const bar = el("section", "bpe-class bpe-class-teacher");
  bar.setAttribute("aria-label", "Live class");
  const row = el("div", "bpe-class-row");
  const count = el("span", "bpe-class-count");
  count.setAttribute("aria-live", "polite");
  const joinButton = button("Show join code", "The code, link and QR code students join with.", () => {
    parts.joinOpen = !parts.joinOpen;
    parts.redraw();
  });
  const end = button("End class", "End the class for everyone.", () => {
    const kept = link.results.length ? ` Its results (${counted(link.results.length, "question")}) stay here to download.` : "";
    if (confirm(`End the class for every student?${kept}`)) link.end();
  });
  const boardButton = button("Show best scores", "The nicknames with the most right answers, on screen.", () => {
    parts.showBoard = !parts.showBoard;
    parts.redraw();
  });
  const score = el("span", "bpe-class-score");
  row.append(el("span", "bpe-class-title", "Live class"), el("span", "bpe-class-code-small", spacedCode(link.code)), count, joinButton, presenterButton(link.code), end, boardButton, score);
  const join = el("div", "bpe-class-join");
  const words = el("div", "bpe-class-join-words");
  words.append(el("p", "bpe-class-join-hint", "Join the class: open"), el("p", "bpe-class-link", joinLink(link.code, parts.joinBase)), el("p", "bpe-class-join-hint", "or go to the app and enter the code"));
  const code = el("p", "bpe-class-code", spacedCode(link.code));
  code.setAttribute("aria-label", `Class code ${link.code.split("").join(" ")}`);
  words.append(code);
  const qr = el("img", "bpe-class-qr");
  qr.src = `/api/class/${link.code}/qr.svg`;
  qr.alt = `QR code of the join link ${joinLink(link.code, parts.joinBase)}`;
  join.append(words, qr);
  const board = el("ol", "bpe-class-board");
  board.setAttribute("aria-label", "Best scores");
  // A join link no student can open (a loopback address) is said in words, with what to set.
  const warning = el("p", "bpe-class-warning");
  warning.setAttribute("role", "alert");
  bar.append(row, warning, join, board);
  parts.bar = bar;
  parts.teacher = { count, score, joinButton, boardButton, join, board, warning, drawnBoard: null };
}

// The slide the teacher shows, in words (a lesson's slide, else nothing): "Slide 3 of 14:
// Counting pairs". The title is the teacher's text: it reaches the page as text.
function slideWords(view) {
  if (!view || !view.slide) return "";
  return `Slide ${number(view.slide)} of ${number(view.slides)}${view.title ? `: ${view.title}` : ""}`;
}

// Words that a phone's one-line bar leaves out (the stylesheet hides .bpe-class-wide there).
const wide = (words) => el("span", "bpe-class-wide", words);

// A student's bar: built once (the nickname box keeps what is typed and its focus), its
// mode, slide and score drawn again on every change. On a phone it is one line: the mode
// and its button; the code, nickname and Leave wait behind "⋯". The slide's number and
// title are a line of their own under the bar (mountClassBar puts it there), wrapped, never
// cut: a title is longer than a phone's line beside the mode.
function studentBar(link, parts) {
  if (!parts.bar) {
    const bar = el("section", "bpe-class bpe-class-student");
    bar.setAttribute("aria-label", "Live class");
    const row = el("div", "bpe-class-row");
    parts.slide = el("p", "bpe-class-slide");
    parts.moving = el("span", "bpe-class-row bpe-class-moving");
    const nick = el("input", "bpe-class-nick");
    Object.assign(nick, { type: "text", maxLength: 24, placeholder: "Nickname (optional)", value: link.me.nick || "" });
    nick.setAttribute("aria-label", "Nickname shown on the teacher's screen (optional)");
    nick.addEventListener("change", () => link.rename(nick.value));
    parts.score = el("span", "bpe-class-score");
    const extra = el("span", "bpe-class-row bpe-class-extra");
    extra.append(el("span", "bpe-class-title", `Live class ${spacedCode(link.code)}`), nick, parts.score);
    extra.append(button("Leave the class", "Stop following; your own settings come back on the next page.", () => parts.leave()));
    const more = button("⋯", "The class's code, your nickname, your score and Leave.", () => {
      const open = bar.classList.toggle("bpe-class-more-open");
      more.setAttribute("aria-expanded", String(open));
    });
    more.classList.add("bpe-class-more");
    more.setAttribute("aria-label", "More about the class");
    more.setAttribute("aria-expanded", "false");
    row.append(parts.moving, more, extra);
    bar.append(row);
    parts.bar = bar;
  }
  const words = slideWords(link.view);
  if (parts.slide.textContent !== words) parts.slide.textContent = words;
  parts.slide.hidden = !words;
  const mode = el("strong", link.following ? "bpe-class-mode bpe-following" : "bpe-class-mode bpe-exploring");
  mode.append(link.following ? "● Following" : "○ Exploring", wide(link.following ? " the teacher" : " on my own"));
  mode.setAttribute("aria-live", "polite");
  const toggle = link.following
    ? button("Explore", "Step freely; the teacher's steps no longer move your view.", () => link.explore())
    : button("Follow", "Back to the teacher's view, and follow it.", () => {
        parts.asked = parts.askedRun = null; // ask again: the teacher's run, then page
        link.follow();
        parts.go();
      }, true);
  toggle.append(wide(link.following ? " on my own" : " the teacher"));
  parts.moving.replaceChildren(mode, toggle);
  parts.score.textContent = link.me.answered ? `You: ${number(link.me.right)} of ${number(link.me.answered)} right` : "";
  return parts.bar;
}

// A phone that joined with the sidebar open (the code typed there) gets the page back: the
// sidebar, lying over the page, is closed once.
function closeSidebarOverPage() {
  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  if (!sidebar || sidebar.getAttribute("data-collapsed") !== "false") return;
  if (sidebar.getBoundingClientRect().width < window.innerWidth / 2) return; // beside the page
  const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button, button[data-testid="stSidebarCollapseButton"]');
  if (close) close.click();
}

// What the bar says under its row: the connection while it is not live, else the last
// refusal (a limit, a closed question): one line, a live region kept from draw to draw so
// that each new sentence is announced.
function statusWords(link) {
  const words = {
    connecting: "Connecting to the class…",
    reconnecting: "Connection lost: reconnecting…",
    refused: link.problem,
    ended: link.problem || "The teacher ended the class. Your own view stays here.",
  }[link.status];
  return words || link.problem;
}

function drawStatus(root, parts, link) {
  if (!parts.status) {
    parts.status = el("p", "bpe-note bpe-class-status");
    parts.status.setAttribute("role", "status");
  }
  const words = statusWords(link);
  if (parts.status.textContent !== words) parts.status.textContent = words;
  parts.status.hidden = !words;
  if (parts.status.parentNode !== root) root.append(parts.status);
}

// Draw the class bar in `root` for data {code, role, key?, page, run, teacher_checked}; report
// (name, value) tells the app: "teacher" (a stored key to check), "go" (the teacher's page),
// "run" (the teacher's run and page: a new slide or setting), "left" (the student left or the
// class ended).
function mountClassBar(root, data, report) {
  if (data.role !== "teacher" && !data.teacher_checked && storedTeacherKey(data.code)) {
    // this browser started the class: the app checks its key before it connects
    root.replaceChildren(el("p", "bpe-note bpe-class-status", "Reconnecting as the teacher…"));
    report("teacher", { code: data.code, key: storedTeacherKey(data.code) });
    return;
  }
  if (data.role === "teacher" && data.key) storeTeacherKey(data.code, data.key);
  if (data.role === "student" && window.bpevizSidebarClosed !== data.code) {
    window.bpevizSidebarClosed = data.code;
    closeSidebarOverPage();
  }
  const link = classLink(data.code, data.role, data.key || storedTeacherKey(data.code));
  const newSlide = link.teacher && JSON.stringify(link.slide || null) !== JSON.stringify(data.slide || null);
  link.slide = data.slide || null;
  const newRun = link.run !== data.run;
  // A following student who changed a setting explores their own run (the app saw the change
  // and names it in data.detached): once per change, on whatever page the bar is drawn next.
  if (!link.teacher && data.detached && link.detached !== data.detached) {
    link.detached = data.detached;
    link.explore();
  }
  const held = root.bpevizBar || { joinOpen: data.role === "teacher" && !link.board.length && !link.score.answered, asked: null, askedRun: null };
  root.bpevizBar = held;
  if (held.role !== data.role) {
    held.bar = null; // a student's browser found to be the teacher's: the other bar
    held.role = data.role;
  }
  held.page = data.page;
  held.joinBase = data.join || "";
  held.report = report;
  if (held.resultsTold === undefined) held.resultsTold = data.results || 0; // what the app has
  held.warning = data.warning || "";
  held.presenter = data.presenter || null;
  link.showsRun(data.run || ""); // (after held's page: a follow it starts redraws the bar)
  // A following student goes where the teacher is: first to the teacher's run, then to the
  // teacher's page. The app's answer is a run of the script; an ask left unanswered (lost on
  // the way on a loaded server: a student stayed on the slide before for good) goes again
  // while still wanted, ASK_TRIES times at most, each after twice as long: a run the app
  // cannot give is not asked for for ever.
  const ask = (name, value, tries = 0) => {
    held.report(name, value);
    clearTimeout(held.askTimer);
    if (tries < ASK_TRIES) held.askTimer = setTimeout(() => held.askAgain(name, value, tries + 1), ASK_AGAIN_MS * 2 ** tries);
  };
  held.askAgain = (name, value, tries) => {
    const view = link.view;
    if (!root.isConnected || link.teacher || !link.following || !view) return;
    const wanted = name === "run" ? !link.sameRun() && view.run === value.run : link.sameRun() && view.page === value && view.page !== held.page;
    if (wanted) ask(name, value, tries);
  };
  held.go = () => {
    const view = link.view;
    if (link.teacher || !link.following || !view) return;
    if (!link.sameRun()) {
      if (held.askedRun !== view.run) {
        held.askedRun = view.run;
        ask("run", { run: view.run, page: view.page });
      }
      return;
    }
    if (view.page !== held.page && held.asked !== view.page) {
      held.asked = view.page;
      ask("go", view.page);
    }
  };
  held.leave = () => {
    link.close();
    window.bpevizClass = null;
    report("left", data.code);
  };
  held.redraw = () => {
    if (!root.isConnected) {
      link.listeners.delete(held.redraw);
      return;
    }
    const bar = link.teacher ? teacherBar(link, held) : studentBar(link, held);
    if (root.firstChild !== bar) root.replaceChildren(bar);
    if (!link.teacher && bar.nextSibling !== held.slide) bar.after(held.slide);
    drawStatus(root, held, link);
    root.dataset.ready = "true";
    root.dataset.status = link.status;
    held.go();
    if (link.status === "ended" && !held.endedTold) {
      held.endedTold = true; // the app drops the class and says so
      window.bpevizClass = null;
      report("left", "ended");
    }
  };
  link.listeners.add(held.redraw);
  // The teacher's page or run changed (a page visit, a slide, a setting): the class hears it
  // now; on the Step page the step view tells the step.
  if (link.teacher && (newRun || newSlide || (data.page !== "step" && (!link.view || link.view.page !== data.page)))) {
    const stepView = data.page === "step" && link.stepView && link.stepView.root.isConnected ? link.stepView : null;
    link.show(stepView ? stepView.viewState() : { ...(link.view || { step: 0, when: "after", pieces: false, quiz: false }), page: data.page });
  }
  held.redraw();
}
