// ---- a live class's results, kept by the teacher's browser: for each revealed question the
// step, what it asked ("merge": BPE's pairs; "round": the tokens a Unigram round may remove),
// the four offered, the right ones, how many chose each and who chose which (the server's
// "answers", to the teacher only). Kept in localStorage per class, so that a reload
// or the end of the class loses nothing; the class bar hands them to the app, which offers
// them as CSV and JSON (bpeviz.app.live.results).

const RESULTS_KEY = "bpeviz-class-results-"; // + the class's code
const MAX_QUESTIONS = 200; // kept per class (the app refuses more)

function storedResults(code) {
  try {
    const kept = JSON.parse(localStorage.getItem(RESULTS_KEY + code) || "[]");
    return Array.isArray(kept) ? kept : [];
  } catch {
    return [];
  }
}

function storeResults(code, results) {
  try {
    localStorage.setItem(RESULTS_KEY + code, JSON.stringify(results));
  } catch {
    // storage off or full: the app still has them from this page
  }
}

// The four pairs offered at step k, by row (row 0 the real next merge), in words.
function offeredPairs(record, k) {
  const pairs = ["", "", "", ""];
  for (const { row, left, right } of quizChoices(record, k)) pairs[row] = pairWords(record.vocab, left, right);
  return pairs;
}

// The server's record of a revealed question, with the pairs the teacher's page offered.
function keepAnswers(link, message) {
  const offered = link.offered && link.offered.step === message.step ? link.offered : { pairs: ["", "", "", ""], unit: "merge" };
  const question = { step: message.step, unit: offered.unit, choices: offered.pairs, right_rows: message.right_rows, counts: message.spread, answers: message.answers };
  link.results = [...link.results.filter((kept) => kept.step !== message.step), question].slice(-MAX_QUESTIONS);
  storeResults(link.code, link.results);
}
