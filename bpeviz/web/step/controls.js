// ---- the step view's controls: slider, buttons, pace, go-to-step and the three switches ----

// Autoplay's pace, one kind of number: steps per second (the value: seconds between steps).
const PACES = [
  [0.05, "20 steps / s"],
  [0.2, "5 steps / s"],
  [0.5, "2 steps / s"],
  [1, "1 step / s"],
  [2, "0.5 steps / s"],
];

// The controls of `view` (a StepView): {bar, element, parts}: the step bar, the options, and
// the inputs and buttons that updateControls sets at every step.
function stepControls(view) {
  const last = view.record.merge_count;
  const go = (k) => view.show(k, view.when);
  const slider = el("input", "bpe-slider");
  Object.assign(slider, { type: "range", min: 0, max: last, step: 1 });
  slider.setAttribute("aria-label", "Step: merges done");
  slider.addEventListener("input", () => go(Number(slider.value)));
  const stepLabel = el("span", "bpe-step-label");
  const sliderRow = el("div", "bpe-slider-row");
  sliderRow.append(el("span", "bpe-step-name", "Step: merges done"), slider, stepLabel);
  const parts = {
    slider,
    stepLabel,
    first: button("⏮ First", "Reset: back to step 0, the raw bytes (Home).", () => go(0)),
    previous: button("‹ Previous", "One merge back (←).", () => go(view.k - 1)),
    next: button("Next ›", "The next merge (→).", () => go(view.k + 1), true),
    last: button("Last ⏭", "The last merge (End).", () => go(last)),
    play: button("▶ Play", "Step through the merges by themselves (K).", () => view.toggle()),
  };
  const paceBox = el("select", "bpe-pace");
  paceBox.title = "Autoplay: steps per second.";
  for (const [seconds, name] of PACES) {
    const option = el("option", "", name);
    option.value = seconds;
    if (seconds === view.pace) option.selected = true;
    paceBox.append(option);
  }
  paceBox.addEventListener("change", () => view.setPace(Number(paceBox.value)));
  const jump = el("input", "bpe-jump");
  Object.assign(jump, { type: "number", min: 0, max: last, placeholder: `0–${number(last)}` });
  jump.setAttribute("aria-label", "Go to step");
  jump.addEventListener("change", () => {
    if (jump.value !== "") go(Number(jump.value));
    jump.value = "";
  });
  const paceLabel = el("label", "bpe-field", "Pace ");
  paceLabel.append(paceBox);
  const jumpLabel = el("label", "bpe-field", "Go to step ");
  jumpLabel.append(jump);
  const [animateLabel] = checkbox("Animate merges", "Slide the two halves of each pair into one on Next (off when your system asks for reduced motion).", view.animate, (on) => (view.animate = on));
  const [piecesLabel, piecesBox] = checkbox("Show pieces", "Outline the pre-tokenizer's pieces: no merge ever crosses their edges.", view.showPieces, (on) => view.setPieces(on));
  const [quizLabel, quizBox] = checkbox("Guess the next merge", "A quiz: the next merge is held back until you pick one of four pairs.", view.quiz, (on) => view.setQuiz(on));
  Object.assign(parts, { pieces: piecesBox, quiz: quizBox }); // a live class sets them
  // The step bar (slider and step buttons), which a narrow window keeps on screen, then the
  // options.
  const buttons = el("div", "bpe-buttons");
  // The merge just made, in one line: a phone's step bar keeps it in sight when the card has
  // scrolled away (a wide view shows the card beside it instead: the stylesheet hides it).
  parts.mergeLine = el("p", "bpe-merge-line");
  const bar = el("div", "bpe-step-bar");
  bar.append(sliderRow, buttons, parts.mergeLine);
  // The full key help below is said to screen readers only: this short line is shown once a
  // keyboard is used in the view (and always on a projector).
  const shortKeys = el("span", "bpe-caption bpe-keys-short", "Keys in view: ← → Home End K");
  shortKeys.setAttribute("aria-hidden", "true"); // the full help says it to a screen reader
  const options = el("div", "bpe-buttons bpe-options");
  // The short key line ends the step buttons' row, which has room for it at any width that
  // shows it; at the end of the options' row it took a row of its own on a projector.
  buttons.append(parts.first, parts.previous, parts.next, parts.last, parts.play, shortKeys);
  options.append(paceLabel, jumpLabel, animateLabel, piecesLabel, quizLabel);
  const element = el("div", "bpe-controls");
  // How to reach everything by keyboard; the keys act only with focus in the view (2.1.4).
  const keys = el("p", "bpe-caption bpe-keys", "Keys, with focus in this view (click it or Tab into it): ← → one merge, Home End the first and last, K play or pause. In the text, the vocabulary and the build tree: arrows move between tokens, Enter inspects one, Escape closes the inspector.");
  element.append(options, keys);
  return { bar, element, parts };
}

// The step bar's one line on merge k: "Merge k: “a” + “b” → “ab”".
function mergeLine(record, k) {
  if (k === 0) return "Step 0: the text as raw bytes, nothing merged yet.";
  const { left, right, made } = mergeOf(record, k);
  return `Merge ${number(k)}: ${pairWords(record.vocab, left, right)} → ${quoted(fullLabel(record.vocab, made))}`;
}

// The keys of the step view: an action per key, or undefined.
function keyAction(view, key) {
  const actions = {
    ArrowLeft: () => view.show(view.k - 1, view.when),
    ArrowRight: () => view.show(view.k + 1, view.when),
    Home: () => view.show(0, view.when),
    End: () => view.show(view.record.merge_count, view.when),
    k: () => view.toggle(),
    K: () => view.toggle(),
  };
  return actions[key];
}
