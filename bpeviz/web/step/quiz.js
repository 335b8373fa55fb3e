// ---- the quiz ("Guess the next merge"): the next merge is held back until a student picks
// one of four pairs. answers: a Map of step -> the row chosen (row 0 is the real next merge).

// Whether the row chosen at `step` counts as right (the merge, or a pair tied with it).
function answeredRight(record, step, row) {
  return rightRows(quizChoices(record, step), record).has(row);
}

// The question of the quiz on the merge after step k.
function quizQuestion(record, k) {
  const tie = `a tie goes by the rule ${quoted(record.rule)}`;
  if (byScore(record)) return el("p", "", `Which pair has the best score, count(ab) / (count(a) × count(b))? Merge ${number(k + 1)} joins it; ${tie}. Count the pair and each of its tokens in the text below.`);
  return el("p", "", `Which pair will merge ${number(k + 1)} join? The most frequent pair in the text below wins; ${tie}.`);
}

// What an answered choice shows: its score (a WordPiece run by score) or its count.
function choiceValue(record, offer) {
  return byScore(record) ? `score ${scoreText(offer)}` : counted(offer.count, "time");
}

// One of the quiz's choices: a button of the pair `left` + `right`, row `row` of its table.
function choiceButton(vocab, { row, left, right }) {
  const choice = el("button", "bpe-choice");
  choice.type = "button";
  choice.dataset.row = row;
  choice.dataset.pair = `${left},${right}`;
  choice.append(chip(vocab, left), el("span", "bpe-op", "+"), chip(vocab, right));
  return choice;
}

function quizCard(record, k, answers, answer, next) {
  const box = el("div", "bpe-card bpe-quiz");
  const score = el("div", "bpe-score");
  const right = [...answers].filter(([step, row]) => answeredRight(record, step, row)).length;
  score.textContent = `Score: ${right} of ${answers.size}`;
  if (k >= record.merge_count) {
    box.append(el("h2", "bpe-card-title", "No merge left to guess"), el("p", "", "Training stopped here."), score);
    return box;
  }
  const vocab = record.vocab;
  const chosen = answers.has(k) ? answers.get(k) : null;
  box.append(el("h2", "bpe-card-title", `Guess merge ${number(k + 1)}`));
  box.append(quizQuestion(record, k));
  const choices = el("div", "bpe-choices");
  const offered = quizChoices(record, k);
  const good = rightRows(offered, record);
  for (const offer of offered) {
    const { row } = offer;
    const choice = choiceButton(vocab, offer);
    if (chosen !== null) {
      choice.disabled = true;
      choice.append(el("span", "bpe-choice-count", choiceValue(record, offer)));
      // right and wrong said by a mark and words too, not by colour alone (WCAG 1.4.1)
      if (row === 0) {
        choice.classList.add("bpe-right");
        choice.prepend(el("span", "bpe-mark", "✓ right"));
      } else if (good.has(row)) {
        choice.classList.add("bpe-right");
        choice.prepend(el("span", "bpe-mark", "✓ tied"));
      } else if (row === chosen) {
        choice.classList.add("bpe-wrong");
        choice.prepend(el("span", "bpe-mark", "✗ your guess"));
      }
    } else {
      choice.addEventListener("click", () => answer(k, row));
    }
    choices.append(choice);
  }
  box.append(choices);
  if (chosen !== null) {
    const verdict = quizVerdict(record, k, chosen);
    box.append(el("p", good.has(chosen) ? "bpe-verdict bpe-good" : "bpe-verdict bpe-bad", verdict));
    box.append(...mergeSentences(record, k + 1));
    box.append(button(`Next question ›`, "Merge this pair and guess the one after.", next, true));
  }
  box.append(score);
  return box;
}

// The verdict on the row chosen for the merge after step k: right, right by a tie (the rule,
// not the student, chose between equal counts), or the pair that does merge.
function quizVerdict(record, k, chosen) {
  const { left, right } = mergeOf(record, k + 1);
  const joined = pairWords(record.vocab, left, right);
  if (chosen === 0) return "✓ Right!";
  if (answeredRight(record, k, chosen)) return `✓ Right: your pair tied with ${joined}, which the rule ${quoted(record.rule)} picks for merge ${number(k + 1)}.`;
  return `✗ Not this one: merge ${number(k + 1)} joins ${joined}.`;
}

// The text during the quiz. Before the answer: the text at step k, nothing outlined. After:
// the pair it merges next, outlined.
function quizView(record, k, answers) {
  if (answers.has(k) && k < record.merge_count) return viewAt(record, k + 1, "before");
  const view = viewAt(record, k, "after");
  view.marks = view.marks.map(() => "");
  view.legend = null;
  return view;
}

// What a screen reader hears on each quiz step: the question, or the verdict once answered
// (a class quiz's answer revealed to the teacher, or to a student who chose none: the merge).
function quizAnnouncement(record, k, answers) {
  if (k >= record.merge_count) return "No merge left to guess.";
  if (!answers.has(k)) return `Guess merge ${number(k + 1)}: choose one of the pairs.`;
  const chosen = answers.get(k);
  if (chosen !== 0 && chosen !== undefined) return quizVerdict(record, k, chosen).replace(/^[✓✗] /, "");
  const { left, right } = mergeOf(record, k + 1);
  const joined = pairWords(record.vocab, left, right);
  return chosen === 0 ? `Right: merge ${number(k + 1)} joins ${joined}.` : `Merge ${number(k + 1)} joins ${joined}.`;
}
