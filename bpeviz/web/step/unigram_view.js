// ---- the Step page for Unigram: one step is one round (bpeviz.records.unigram_step) --------
// Step 0 is the seed; step k is round k's pruning, and the text is cut under what is left.
// The card, a table of the tokens around the round's cut (probability, loss if removed, the
// removed marked), the loss over rounds, the text as tokens (the words whose cut changed
// outlined), and one word's lattice: its Viterbi table, every segmentation, and samples
// drawn at a temperature. SentencePiece's ▁ is drawn as the space mark, as imported files are.

const UNIGRAM_LISTED = 12; // segmentations listed; the rest are counted
const UNIGRAM_DRAWS = 1000;

// A piece as drawn: the space mark for ▁; a byte fallback piece (`<0xE3>`) as it is named.
function pieceLabel(record, piece) {
  return /^<0x[0-9A-F]{2}>$/.test(piece) ? piece : piece.split(record.space).join(record.space_label);
}

function pieceEntry(record, piece, title) {
  const entry = [];
  entry[VOCAB.label] = pieceLabel(record, piece);
  entry[VOCAB.title] = title;
  entry[VOCAB.kind] = KIND.PLAIN;
  entry[VOCAB.broken] = "";
  entry[VOCAB.newlines] = 0;
  entry[VOCAB.hex] = "";
  return entry;
}

// A probability as the tables say it; one too small for a float (a product of pieces whose
// EM count fell to nothing) by its natural log.
const probabilityText = (p, score) => (p >= 0.001 ? p.toFixed(4) : p > 0 || score === undefined ? p.toExponential(2) : `exp(${score.toFixed(1)})`);
const lossText = (loss) => (Math.abs(loss) >= 1000 ? number(Math.round(loss)) : loss.toFixed(2));

class UnigramView {
  // report(state) hears where the student stopped: {step, when, quiz, pieces}, as StepView's.
  constructor(root, record, start, report) {
    this.root = root;
    this.record = record;
    this.last = record.rounds.length - 1;
    this.report = report || (() => {});
    this.cuts = new Map(); // round -> each word's pieces
    this.ids = new Map(record.pieces.map((piece, index) => [piece, index]));
    this.word = 0; // the word whose lattice is open
    this.draws = 0; // how many times samples were drawn (each draw its own seed)
    this.timer = null;
    this.quiz = start.quiz === true; // "which of these four tokens will be pruned next?"
    this.answers = new Map(); // step -> the place in the table of the token chosen
    this.classLink = null; // a live class's ClassLink (live.js), once attached
    this.build();
    this.show(Math.min(Math.max(Number(start.step) || 0, 0), this.last), false);
  }

  state() {
    return { step: this.k, when: "after", quiz: this.quiz, pieces: false };
  }

  // A live class (live.js): the view the teacher sends, and the teacher's view applied here
  // (drawn, never reported to the server). With the quiz on, the teacher asks the class.
  viewState() {
    return { page: "step", ...this.state() };
  }

  follow(view) {
    this.quiz = this.parts.quizBox.checked = Boolean(view.quiz);
    this.show(Number(view.step) || 0, false, true);
  }

  // Whether the quiz is the class's (the teacher's, or a student following), not a solo one.
  classQuiz() {
    return Boolean(this.classLink && (this.classLink.teacher || this.classLink.following));
  }

  // The class quiz's counts or reveal changed: its card again.
  redrawQuiz() {
    if (this.quiz && this.classQuiz()) this.boxes.quiz.replaceChildren(unigramClassQuiz(this, this.record, this.k));
  }

  build() {
    const record = this.record;
    this.root.replaceChildren();
    this.root.classList.add("bpe-step", "bpe-unigram");
    const slider = el("input", "bpe-slider");
    Object.assign(slider, { type: "range", min: "0", max: String(this.last), step: "1" });
    slider.setAttribute("aria-label", "Round");
    slider.addEventListener("input", () => this.show(Number(slider.value)));
    const stepLabel = el("span", "bpe-step-label");
    const previous = button("◀ Previous", "The round before", () => this.show(this.k - 1));
    const next = button("Next ▶", "The next round", () => this.show(this.k + 1), true);
    const [quizLabel, quizBox] = checkbox("Quiz: which token goes next?", "Before each round, guess which of four tokens it will remove", this.quiz, (on) => {
      this.quiz = on;
      this.show(this.k);
    });
    const row = el("div", "bpe-slider-row");
    row.append(el("span", "bpe-step-name", "Round"), slider, stepLabel, previous, next, quizLabel);
    const box = (className) => el("div", className);
    this.parts = { slider, stepLabel, previous, next, quizBox, row };
    this.boxes = { card: box("bpe-card-box"), quiz: box("bpe-unigram-quiz"), metrics: box("bpe-metrics-box"), tokens: box("bpe-unigram-tokens"), table: box("bpe-unigram-table"), lattice: box("bpe-lattice") };
    const live = el("div", "bpe-sr-only");
    live.setAttribute("aria-live", "polite");
    this.boxes.live = live;
    this.chart = lossChart(record);
    const side = el("div", "bpe-side");
    side.append(this.boxes.table, this.chart.element);
    const textSide = el("div");
    const drawn = record.window;
    const about = drawn.whole ? "The text, cut under this round's vocabulary (Viterbi)." : `The first ${number(drawn.chars)} of ${number(drawn.text_chars)} characters, cut under this round's vocabulary (Viterbi).`;
    textSide.append(el("h3", "", "The text, token by token"), el("p", "bpe-caption", `${about} Outlined: the words cut differently from the step before. Click a word for its lattice, or pick it below.`), this.boxes.tokens);
    const panes = el("div", "bpe-panes");
    panes.append(textSide, side);
    this.root.append(row, this.boxes.card, this.boxes.quiz, this.boxes.metrics, panes, this.boxes.lattice, live);
    const open = (event) => {
      const word = event.target.closest("[data-word]");
      if (!word) return;
      this.word = Number(word.dataset.word);
      this.drawLattice(true);
    };
    this.boxes.tokens.addEventListener("click", open); // the keyboard's path: the word menu
  }

  // Each distinct word's pieces under round r's vocabulary (computed once per round).
  cutsAt(r) {
    if (!this.cuts.has(r)) {
      const probs = roundLogProbs(this.record, r);
      const { max_piece_length: length } = this.record.settings;
      const unknown = this.record.rounds[r].unknown;
      this.cuts.set(r, this.record.words.map((word) => viterbi(word, probs, length, unknown).pieces));
    }
    return this.cuts.get(r);
  }

  scheduleReport() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.report(this.state()), REPORT_AFTER_MS);
  }

  show(k, report = true, applied = false) {
    k = Math.min(Math.max(k, 0), this.last);
    this.k = k;
    const record = this.record;
    const { slider, stepLabel, previous, next } = this.parts;
    slider.value = String(k);
    stepLabel.textContent = `${number(k)} of ${number(this.last)}`;
    previous.disabled = k === 0;
    next.disabled = k === this.last;
    const card = record.cards[k];
    const cardBox = el("div", "bpe-card");
    cardBox.append(el("h2", "bpe-card-title", card.title));
    if (card.note) cardBox.append(el("p", "", card.note));
    this.boxes.card.replaceChildren(cardBox);
    this.boxes.live.textContent = card.title;
    const quiz = this.classQuiz() ? unigramClassQuiz : unigramQuiz;
    this.boxes.quiz.replaceChildren(this.quiz ? quiz(this, record, k) : "");
    this.drawMetrics(k);
    this.drawTokens(k);
    this.boxes.table.replaceChildren(unigramTable(record, k));
    this.chart.move(k);
    this.drawLattice(false);
    this.root.dataset.step = k;
    this.root.dataset.ready = "true";
    if (report) this.scheduleReport();
    if (this.classLink && !applied) this.classLink.moved(this.viewState());
  }

  drawMetrics(k) {
    const rounds = this.record.rounds;
    const tokens = (r) => this.record.occurrences.reduce((sum, [word]) => sum + this.cutsAt(r)[word].length, 0);
    const now = tokens(k);
    const change = k ? now - tokens(k - 1) : 0;
    const row = el("div", "bpe-metrics");
    row.append(
      metric("Tokens in the text drawn", number(now), k && change ? [`${change > 0 ? "↑ +" : "↓ "}${number(Math.abs(change))}`, change > 0 ? "bpe-bad" : "bpe-good"] : null),
      metric("Vocabulary size", number(rounds[k].size), null, "Tokens in this round's vocabulary"),
      metric("Loss", lossText(rounds[k].loss), null, "The sum over the text's words of count × −ln P(best segmentation), after this round's EM"),
      metric("Round", `${number(k)} of ${number(this.last)}`),
    );
    this.boxes.metrics.replaceChildren(row);
  }

  drawTokens(k) {
    const record = this.record;
    const cuts = this.cutsAt(k);
    const before = k ? this.cutsAt(k - 1) : null;
    const changed = record.words.map((_, w) => before !== null && before[w].join("\u0000") !== cuts[w].join("\u0000"));
    const allIds = record.occurrences.flatMap(([w]) => cuts[w].map((piece) => this.idOf(piece)));
    const colours = colourIndices(allIds);
    const scroll = scrollBox("bpe-scroll bpe-tokens", "The text, token by token");
    const text = el("div", "bpe-text");
    let line = el("div", "bpe-line");
    let at = 0;
    record.occurrences.forEach(([w, breaks]) => {
      if (breaks) {
        text.append(line);
        for (let n = 1; n < breaks; n++) text.append(el("div", "bpe-line bpe-empty"));
        line = el("div", "bpe-line");
      }
      const word = el("span", changed[w] ? "bpe-piece bpe-changed" : "bpe-word");
      word.dataset.word = w;
      for (const piece of cuts[w]) {
        const id = allIds[at];
        const span = tokenSpan(pieceEntry(record, piece, `${pieceLabel(record, piece)} · click: the lattice of this word`), id, colours[at], changed[w] ? MARK.NEW : "");
        span.setAttribute("aria-label", `${pieceLabel(record, piece)}${changed[w] ? ", cut differently from the step before" : ""}`);
        span.removeAttribute("role"); // not a Tab stop each: the word menu is the keyboard's path
        word.append(span);
        at += 1;
      }
      line.append(word, " ");
    });
    text.append(line);
    scroll.append(text);
    const count = changed.filter(Boolean).length;
    const note = el("p", "bpe-caption bpe-changed-note", k ? `${counted(count, "distinct word")} cut differently from step ${number(k - 1)}.` : "");
    this.boxes.tokens.replaceChildren(scroll, note);
  }

  idOf(piece) {
    if (!this.ids.has(piece)) this.ids.set(piece, this.ids.size);
    return this.ids.get(piece);
  }

  drawLattice(focus) {
    const box = latticePanel(this, this.record, this.k, this.word);
    this.boxes.lattice.replaceChildren(box);
    if (focus) box.querySelector("h3").focus();
  }

  destroy() {
    clearTimeout(this.timer);
  }
}

// The quiz before round k + 1: four tokens near its cut, one of which it removes. A click
// answers and reveals each one's loss if removed (kept by step: going back shows the answer).
function unigramQuiz(view, record, k) {
  const box = el("div", "bpe-card bpe-quiz-card");
  const round = record.rounds[k];
  if (k >= view.last || !round.quiz.length) {
    box.append(el("p", "bpe-note", k >= view.last ? "Training is over: no round is left to guess." : "This round has no four tokens to guess from."));
    return box;
  }
  const next = k + 1;
  box.append(el("h3", "bpe-card-title", `Quiz: which of these four tokens will round ${number(next)} remove?`));
  const chosen = view.answers.get(k);
  const row = el("div", "bpe-buttons bpe-choices");
  for (const place of round.quiz) {
    const entry = round.table[place];
    const label = pieceLabel(record, record.pieces[entry.piece]);
    const choice = button(label, `Guess ${quoted(label)}`, () => {
      view.answers.set(k, place);
      view.show(k);
      const card = view.boxes.quiz.firstElementChild;
      focusInCard(card.querySelector(".bpe-card-title"), card, view.parts.row);
    });
    choice.classList.add("bpe-choice");
    choice.dataset.place = String(place);
    if (chosen !== undefined) {
      choice.disabled = true;
      choice.append(` · ${entry.removed ? "removed" : "kept"}, loss if removed ${entry.loss.toFixed(3)}`);
      if (place === chosen) {
        choice.classList.add("bpe-on");
        choice.prepend("your guess: ");
      }
    }
    row.append(choice);
  }
  box.append(row);
  if (chosen !== undefined) {
    const gone = round.quiz.map((place) => round.table[place]).find((entry) => entry.removed);
    const goneLabel = quoted(pieceLabel(record, record.pieces[gone.piece]));
    const right = round.table[chosen].removed;
    const tied = round.quiz.some((place) => !round.table[place].removed && round.table[place].loss.toFixed(9) === gone.loss.toFixed(9));
    const why = tied ? "equal losses if removed: the least probable goes first" : "its removal raises the loss least of the four";
    const verdict = right ? `✓ Right: round ${number(next)} removes ${goneLabel} (${why}).` : `✗ Not this one: round ${number(next)} keeps it and removes ${goneLabel} (${why}).`;
    box.append(el("p", right ? "bpe-verdict bpe-good" : "bpe-verdict bpe-bad", verdict));
  }
  focusable(box.querySelector(".bpe-card-title"));
  return box;
}

// The class quiz's four tokens before round k + 1, in the round's fixed order, each with its
// row for the server: row 0 is the one the round removes (the class's rule: row 0 is right).
function unigramQuizRows(record, k) {
  const round = record.rounds[k];
  const rows = new Map([[round.quiz.find((place) => round.table[place].removed), 0]]);
  for (const place of round.quiz) if (!rows.has(place)) rows.set(place, rows.size);
  return round.quiz.map((place) => {
    const entry = round.table[place];
    return { place, row: rows.get(place), entry, label: pieceLabel(record, record.pieces[entry.piece]) };
  });
}

// The class quiz before round k + 1 (live.js's ClassLink: the teacher asks, each student
// answers once, the teacher reveals to everyone with the class's spread).
function unigramClassQuiz(view, record, k) {
  const link = view.classLink;
  const box = el("div", "bpe-card bpe-quiz-card bpe-class-quiz");
  const round = record.rounds[k];
  if (k >= view.last || !round.quiz.length) {
    box.append(el("p", "bpe-note", k >= view.last ? "Training is over: no round is left to guess." : "This round has no four tokens to guess from."));
    return box;
  }
  const next = k + 1;
  const question = link.question && link.question.step === k ? link.question : null;
  const revealed = Boolean(question && question.right_rows);
  const mine = question ? question.mine : undefined;
  box.append(focusable(el("h3", "bpe-card-title", `Class quiz: which of these four tokens will round ${number(next)} remove?`)));
  const choices = el("div", "bpe-buttons bpe-choices");
  const answerable = !link.teacher && question && !revealed && mine === undefined;
  for (const offer of unigramQuizRows(record, k)) {
    const choice = button(offer.label, `Guess ${quoted(offer.label)}`, () => link.answer(k, offer.row));
    choice.classList.add("bpe-choice");
    choice.dataset.place = String(offer.place);
    if (revealed) {
      choice.append(` · ${counted(question.spread[offer.row], "answer")} · ${offer.entry.removed ? "removed" : "kept"}, loss if removed ${offer.entry.loss.toFixed(3)}`);
      if (offer.row === 0) {
        choice.classList.add("bpe-right");
        choice.prepend("✓ right: ");
      } else if (offer.row === mine) {
        choice.classList.add("bpe-wrong");
        choice.prepend("✗ your guess: ");
      }
    } else if (offer.row === mine) {
      choice.classList.add("bpe-on");
      choice.prepend("your answer: ");
    }
    choice.disabled = !answerable;
    choices.append(choice);
  }
  box.append(choices);
  box.append(classTally(link, question));
  if (revealed) {
    const offers = unigramQuizRows(record, k);
    const gone = offers.find((offer) => offer.row === 0);
    const tied = offers.some((offer) => offer.row && offer.entry.loss.toFixed(9) === gone.entry.loss.toFixed(9));
    const why = tied ? "of equal losses if removed, the least probable goes first" : "its removal raises the loss least of the four";
    if (!link.teacher) {
      const right = mine === 0;
      const verdict = right ? "✓ Right!" : `${mine === undefined ? "" : "✗ Not this one: "}round ${number(next)} removes ${quoted(gone.label)} (${why}).`;
      box.append(focusable(el("p", right ? "bpe-verdict bpe-good" : "bpe-verdict bpe-bad", verdict.charAt(0).toUpperCase() + verdict.slice(1))));
    } else {
      box.append(button("Next question ›", "Run this round and ask the class about the next one.", () => view.show(next), true));
    }
  } else if (link.teacher && question) {
    box.append(button("Reveal the answer", "Show everyone the answer and how the class voted.", () => link.reveal(record, k), true));
  } else if (mine !== undefined) {
    box.append(focusable(el("p", "bpe-verdict", "Your answer is in. Waiting for the teacher to reveal…")));
  }
  return box;
}

// The tokens of round k's table (step 0: the seed, before round 1; step k: round k), cheapest
// to remove first, the removed marked in words and by a strike, gaps where rows are left out.
function unigramTable(record, k) {
  const round = record.rounds[Math.max(k - 1, 0)];
  const box = el("div", "bpe-pairs");
  const title = k ? `Round ${number(k)}: tokens by loss if removed` : "The seed: tokens by loss if removed (round 1 removes the marked)";
  box.append(el("h3", "", title));
  const rows = round.table;
  if (!rows.length) {
    box.append(el("p", "bpe-note", "Only single characters are left, and they are always kept."));
    return box;
  }
  const grid = el("table", "bpe-pair-table bpe-unigram-rows");
  const head = el("tr");
  for (const name of ["#", "token", "probability", "loss if removed", "removed?"]) head.append(el("th", "", name));
  grid.append(head);
  let expected = 0;
  for (const row of rows) {
    if (row.rank !== expected) {
      const gap = el("tr", "bpe-gap");
      const cell = el("td", "", `… ${counted(row.rank - expected, "row")} left out …`);
      cell.colSpan = 5;
      gap.append(cell);
      grid.append(gap);
    }
    expected = row.rank + 1;
    const piece = record.pieces[row.piece];
    const tr = el("tr", row.removed ? "bpe-removed" : "");
    const token = el("td");
    token.append(el("span", "bpe-chip", pieceLabel(record, piece)));
    tr.append(el("td", "bpe-rank", number(row.rank + 1)), token, el("td", "bpe-num", probabilityText(row.probability)), el("td", "bpe-num", row.loss.toFixed(3)), el("td", "", row.removed ? (k ? "removed" : "goes in round 1") : "kept"));
    grid.append(tr);
  }
  if (expected < round.candidates) {
    const gap = el("tr", "bpe-gap");
    const cell = el("td", "", `… ${counted(round.candidates - expected, "more row")}, all kept …`);
    cell.colSpan = 5;
    gap.append(cell);
    grid.append(gap);
  }
  box.append(grid, el("p", "bpe-caption", `${counted(round.candidates, "token")} could be removed; ${counted(round.singles, "single character")} are always kept. Loss if removed: how much the loss grows when that token alone is gone (the others' probabilities unchanged).`));
  return box;
}

// The loss after each round's EM, with a marker at the step shown.
function lossChart(record) {
  const [width, height] = [360, 150];
  const pad = { left: 62, right: 10, top: 10, bottom: 30 };
  const losses = record.rounds.map((round) => round.loss);
  const last = losses.length - 1;
  const most = Math.max(...losses);
  const least = Math.min(...losses);
  const x = (k) => pad.left + ((width - pad.left - pad.right) * k) / Math.max(last, 1);
  const y = (v) => pad.top + ((height - pad.top - pad.bottom) * (most - v)) / Math.max(most - least, 1e-9);
  const labels = [lossText(most), lossText(least), "seed", `round ${number(last)}`];
  const { svg, add } = chartFrame("bpe-chart bpe-loss-chart", width, height, pad, labels);
  add("polyline", { points: losses.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(" "), class: "bpe-line" });
  for (let k = 0; k <= last; k++) add("circle", { r: 2.5, cx: x(k), cy: y(losses[k]), class: "bpe-point" });
  const marker = add("circle", { r: 5, class: "bpe-marker" });
  const element = el("figure", "bpe-chart-box");
  element.append(el("figcaption", "bpe-chart-title", "Loss after each round (natural log)"), svg);
  return {
    element,
    move(k) {
      marker.setAttribute("cx", x(k));
      marker.setAttribute("cy", y(losses[k]));
      svg.setAttribute("aria-label", `Chart: the loss after each round, from ${lossText(losses[0])} for the seed to ${lossText(losses[last])} after round ${number(last)}; at step ${number(k)}: ${lossText(losses[k])}.`);
    },
  };
}

// A segmentation as a row of chips.
function chips(record, pieces) {
  const cell = el("span", "bpe-chips");
  pieces.forEach((piece, index) => cell.append(el("span", `bpe-chip bpe-c${index % 2 ? 1 : 0}`, pieceLabel(record, piece))));
  return cell;
}

// One word's lattice under step k's vocabulary: the choice of word, the Viterbi table, every
// segmentation (the best marked), and sampling at a temperature.
function latticePanel(view, record, k, wordIndex) {
  const word = record.words[wordIndex];
  const probs = roundLogProbs(record, k);
  const length = record.settings.max_piece_length;
  const box = el("section", "bpe-lattice-box");
  const heading = focusable(el("h3", "", `The lattice of ${quoted(pieceLabel(record, word))} at step ${number(k)}`));
  const pick = el("select", "bpe-pace bpe-word-pick");
  pick.setAttribute("aria-label", "Word");
  record.words.forEach((w, index) => {
    const option = el("option", "", pieceLabel(record, w));
    option.value = String(index);
    option.selected = index === wordIndex;
    pick.append(option);
  });
  pick.addEventListener("change", () => {
    view.word = Number(pick.value);
    view.drawLattice(false);
  });
  const choose = el("label", "bpe-field", "Word ");
  choose.append(pick);
  box.append(heading, choose);
  // the Viterbi table, position by position
  const chars = Array.from(word);
  const cells = viterbiCells(chars, probs, length, record.rounds[k].unknown);
  const best = bestPath(cells);
  const onPath = new Set(best.map((step) => step.end));
  const table = el("table", "bpe-pair-table bpe-viterbi");
  const head = el("tr");
  for (const name of ["position", "character", "best piece ending here", "starts at", "best ln P so far", "on the best path"]) head.append(el("th", "", name));
  table.append(head);
  cells.slice(1).forEach((cell) => {
    const tr = el("tr", onPath.has(cell.end) ? "bpe-best" : "");
    const piece = el("td");
    piece.append(el("span", "bpe-chip", pieceLabel(record, cell.piece)));
    tr.append(el("td", "bpe-num", number(cell.end)), el("td", "", pieceLabel(record, chars[cell.end - 1])), piece, el("td", "bpe-num", number(cell.start)), el("td", "bpe-num", cell.score.toFixed(3)), el("td", "", onPath.has(cell.end) ? "✓ yes" : ""));
    table.append(tr);
  });
  const bestLine = el("p", "bpe-lattice-best");
  bestLine.append("Best segmentation (Viterbi): ", chips(record, best.map((step) => step.piece)), ` P = ${probabilityText(Math.exp(cells[cells.length - 1].score), cells[cells.length - 1].score)}`);
  box.append(el("h4", "", "Viterbi, position by position"), el("p", "bpe-caption", "At each position, the best-scoring way to reach it: the best score before the piece's start plus ln P(piece). Equal scores: the piece that starts earliest."), table, bestLine);
  // every segmentation
  const temperature = view.temperature || 1;
  const all = segmentations(word, probs, length, temperature);
  box.append(el("h4", "", `Every segmentation (${number(all.count)})`));
  const bestKey = best.map((step) => step.piece).join("\u0000");
  const expected = new Map();
  if (all.list) {
    const list = el("table", "bpe-pair-table bpe-segmentations");
    const top = el("tr");
    for (const name of ["segmentation", "probability", `share at temperature ${temperature.toFixed(2)}`, "best?"]) top.append(el("th", "", name));
    list.append(top);
    all.list.forEach((row) => expected.set(row.pieces.join("\u0000"), row.share));
    all.list.slice(0, UNIGRAM_LISTED).forEach((row) => {
      const isBest = row.pieces.join("\u0000") === bestKey;
      const tr = el("tr", isBest ? "bpe-best" : "");
      const cell = el("td");
      cell.append(chips(record, row.pieces));
      tr.append(cell, el("td", "bpe-num", probabilityText(row.probability, row.score)), el("td", "bpe-num", `${(100 * row.share).toFixed(1)}%`), el("td", "", isBest ? "✓ Viterbi" : ""));
      list.append(tr);
    });
    box.append(list);
    if (all.count > UNIGRAM_LISTED) box.append(el("p", "bpe-caption", `… and ${counted(all.count - UNIGRAM_LISTED, "less probable one")}.`));
  } else {
    box.append(el("p", "bpe-note", `Too many to list (${number(all.count)}): pick a shorter word.`));
  }
  // sampling
  box.append(el("h4", "", "Sampling (subword regularisation)"));
  const row = el("div", "bpe-slider-row");
  const slider = el("input", "bpe-slider bpe-temperature");
  Object.assign(slider, { type: "range", min: "0.05", max: "5", step: "0.05", value: String(temperature) });
  slider.setAttribute("aria-label", "Temperature");
  const label = el("span", "bpe-step-label", `temperature ${temperature.toFixed(2)} (SentencePiece's alpha ${(1 / temperature).toFixed(2)})`);
  slider.addEventListener("change", () => {
    view.temperature = Number(slider.value);
    view.drawLattice(false);
    view.boxes.lattice.querySelector(".bpe-temperature").focus();
  });
  slider.addEventListener("input", () => (label.textContent = `temperature ${Number(slider.value).toFixed(2)} (SentencePiece's alpha ${(1 / Number(slider.value)).toFixed(2)})`));
  const results = el("div", "bpe-samples");
  const draw = button(`Draw ${number(UNIGRAM_DRAWS)} samples`, "Draw segmentations in proportion to P ** (1 / temperature) and count each", () => {
    view.draws += 1;
    const counts = sampleCounts(word, probs, length, temperature, UNIGRAM_DRAWS, seededRandom(view.draws));
    const grid = el("table", "bpe-pair-table bpe-sampled");
    const top = el("tr");
    for (const name of ["segmentation", "drawn", "share drawn", "expected share"]) top.append(el("th", "", name));
    grid.append(top);
    counts.forEach((found) => {
      const key = found.pieces.join("\u0000");
      const tr = el("tr", key === bestKey ? "bpe-best" : "");
      const cell = el("td");
      cell.append(chips(record, found.pieces));
      const share = expected.get(key);
      tr.append(cell, el("td", "bpe-num", number(found.count)), el("td", "bpe-num", `${((100 * found.count) / UNIGRAM_DRAWS).toFixed(1)}%`), el("td", "bpe-num", share === undefined ? "" : `${(100 * share).toFixed(1)}%`));
      grid.append(tr);
    });
    results.replaceChildren(el("p", "bpe-caption", `${number(UNIGRAM_DRAWS)} draws at temperature ${temperature.toFixed(2)}: ${counted(counts.length, "different segmentation")}.`), grid);
  });
  row.append(el("span", "bpe-step-name", "Temperature"), slider, label, draw);
  box.append(el("p", "bpe-caption", "Each draw picks a whole segmentation with probability proportional to P(segmentation) ** (1 / temperature): near 0 always the best path, at 1 the model's own odds, higher ever more even."), row, results);
  return box;
}
