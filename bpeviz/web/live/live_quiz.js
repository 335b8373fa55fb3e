// ---- the class quiz: the solo quiz's four pairs, answered once by each student; the teacher's
// screen counts the answers live and reveals. `link` is the ClassLink (live.js); its question
// is {step, answered, spread, right_rows, mine}. The card is drawn again, in place, on every
// answer counted: its title and verdict are focusable, where focus goes when a choice is made.

// How many have answered the open question (the spread stays the presenter's until the
// reveal), read out as it changes; the BPE and the Unigram class quiz cards share it.
function classTally(link, question) {
  const tally = el("p", "bpe-class-tally", question ? `${number(question.answered)} of ${counted(link.connected, "student")} answered` : "Waiting for the question…");
  tally.setAttribute("aria-live", "polite");
  return tally;
}

function classQuizCard(record, k, link, onNext) {
  const box = el("div", "bpe-card bpe-quiz bpe-class-quiz");
  const vocab = record.vocab;
  if (k >= record.merge_count) {
    box.append(focusable(el("h2", "bpe-card-title", "No merge left to guess")), el("p", "", "Training stopped here."));
    return box;
  }
  const question = link.question && link.question.step === k ? link.question : null;
  const revealed = Boolean(question && question.right_rows);
  // Asks, then tells: while the question is open the projector shows how many answered, not
  // how they voted (a room copies the majority); the reveal shows the spread to everyone.
  const spread = revealed && question.spread;
  const mine = question ? question.mine : undefined;
  box.append(focusable(el("h2", "bpe-card-title", `Class quiz: guess merge ${number(k + 1)}`)));
  box.append(quizQuestion(record, k));
  const choices = el("div", "bpe-choices");
  const answerable = !link.teacher && question && !revealed && mine === undefined;
  for (const offer of quizChoices(record, k)) {
    const { row } = offer;
    const choice = choiceButton(vocab, offer);
    if (spread) {
      const votes = el("span", "bpe-choice-votes", `${counted(spread[row], "answer")}`);
      const bar = el("span", "bpe-vote-bar");
      bar.style.width = `${Math.round((100 * spread[row]) / Math.max(1, question.answered))}%`;
      choice.append(votes, bar);
    }
    if (revealed) {
      choice.append(el("span", "bpe-choice-count", choiceValue(record, offer)));
      if (question.right_rows.includes(row)) {
        choice.classList.add("bpe-right");
        choice.prepend(el("span", "bpe-mark", row === 0 ? "✓ right" : "✓ right (tied)"));
      } else if (row === mine) {
        choice.classList.add("bpe-wrong");
        choice.prepend(el("span", "bpe-mark", "✗ your guess"));
      }
    } else if (row === mine) {
      choice.classList.add("bpe-chosen");
      choice.prepend(el("span", "bpe-mark", "your answer"));
    }
    if (answerable) choice.addEventListener("click", () => link.answer(k, row));
    else choice.disabled = true;
    choices.append(choice);
  }
  box.append(choices);
  box.append(classTally(link, question));
  if (revealed) {
    const { left, right } = mergeOf(record, k + 1);
    const joined = pairWords(vocab, left, right);
    if (!link.teacher) {
      const verdict = mine === undefined ? `Merge ${number(k + 1)} joins ${joined}.` : question.right_rows.includes(mine) ? "✓ Right!" : `✗ Not this one: merge ${number(k + 1)} joins ${joined}.`;
      box.append(focusable(el("p", mine !== undefined && question.right_rows.includes(mine) ? "bpe-verdict bpe-good" : "bpe-verdict bpe-bad", verdict)));
    }
    box.append(...mergeSentences(record, k + 1));
    if (link.teacher) box.append(button("Next question ›", "Merge this pair and ask the class the next one.", onNext, true));
  } else if (link.teacher && question) {
    box.append(button("Reveal the answer", "Show everyone the answer and how the class voted.", () => link.reveal(record, k), true));
  } else if (mine !== undefined) {
    box.append(focusable(el("p", "bpe-verdict", "Your answer is in. Waiting for the teacher to reveal…")));
  }
  if (link.score.answered) box.append(el("div", "bpe-score", `Class score: ${number(link.score.right)} of ${number(link.score.answered)} right`));
  return box;
}
