"""WordPiece training, ours against the ``tokenizers`` library's WordPieceTrainer, in one run.

Tiny Shakespeare at vocab 4096, the whole process on both sides: from the text to the trained
vocabulary (cutting into words, counting, every merge). Ours records every step (the pair, its
counts, its exact score, the ties, the most frequent pair); the library records nothing. The
library is fed line by line (its faster way) with WhitespaceSplit, as ``words`` cuts. Runs
alternate, ours then the library's, and the best of each is kept (the machine is shared: the
best run is the least disturbed). Time is CPU time of the whole process, every thread counted,
as in ``unigram.py``: on a loaded machine wall-clock time measures the neighbours, and favours
the library's threads, which get more of a busy machine's cores than our one thread (wall
seconds are printed beside). Both of our rules are timed: ``frequency`` is the library's own
algorithm, ``score`` the textbook's. Prints each ratio and exits non-zero on a miss (target:
ours / library <= 1.0). Then the step view's record of the run as the app trains it (the pair
table's head kept at every step): gzipped, at most the step view's budget for the corpus at
4096 (2 MB, ``bpeviz/records/step.py``), in its first window and in the one that shows the
last merge.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bpeviz.engine.wordpiece import UNK, train_wordpiece  # noqa: E402

VOCAB_SIZE = 4096
TARGET = 1.0
RECORD_BUDGET_MB = 2.0


def library_fit(text: str, vocab_size: int) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.WordPiece(unk_token=UNK))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=[UNK], show_progress=False
    )
    tokenizer.train_from_iterator(text.splitlines(keepends=True), trainer=trainer)


def wordpiece_times(text: str, runs: int) -> dict[str, tuple[tuple[float, float], ...]]:
    """For each rule: our and the library's best (CPU, wall) seconds, runs alternated."""
    from unigram import cpu_seconds

    results = {}
    for rule in ("frequency", "score"):
        ours, theirs = [], []
        for _ in range(runs):
            ours.append(
                cpu_seconds(lambda rule=rule: train_wordpiece(text, VOCAB_SIZE, score_rule=rule))
            )
            theirs.append(cpu_seconds(lambda: library_fit(text, VOCAB_SIZE)))
        results[rule] = (min(ours), min(theirs))
    return results


def wordpiece_ratios(text: str, runs: int) -> dict[str, tuple[float, float]]:
    """For each rule: (our best CPU seconds, the library's), runs alternated."""
    return {
        rule: (ours[0], theirs[0]) for rule, (ours, theirs) in wordpiece_times(text, runs).items()
    }


def record_sizes(text: str) -> list[tuple[str, float]]:
    """The step record of the score rule's run as the app trains it, gzipped (MB), in the
    first window and in the last merge's."""
    import gzip

    from bpeviz.engine.wordpiece_history import WordPieceHistory
    from bpeviz.records.step import TOP_PAIRS
    from bpeviz.records.wordpiece_step import payload_json, window_for

    history = WordPieceHistory(text, train_wordpiece(text, VOCAB_SIZE, top_pairs=TOP_PAIRS))
    sizes = []
    for name, start in (
        ("first window", 0),
        (f"window of merge {history.merge_count:,}", window_for(history, history.merge_count)),
    ):
        record = payload_json(history, window_from=start).encode("utf-8")
        sizes.append((name, len(gzip.compress(record)) / 1e6))
    return sizes


def main() -> int:
    from run import load_corpus

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="alternated runs per side")
    parser.add_argument("--corpus", type=Path, help="the text (default: Tiny Shakespeare)")
    args = parser.parse_args()
    if args.corpus:
        text, source = args.corpus.read_text(encoding="utf-8"), str(args.corpus.name)
    else:
        text, source = load_corpus()
    print(f"corpus: {source}, {len(text.encode()):,} bytes; best of {args.runs} runs each")
    missed = 0
    for rule, (ours, theirs) in wordpiece_times(text, args.runs).items():
        ratio = ours[0] / theirs[0]
        ok = ratio <= TARGET
        missed += not ok
        print(
            f"{'ok  ' if ok else 'MISS'} WordPiece {rule} vocab {VOCAB_SIZE}, ours / tokenizers "
            f"(CPU time ratio) {ratio:.3f}   target <= {TARGET}   (ours {ours[0]:.2f} s CPU, "
            f"{ours[1]:.2f} s wall; tokenizers {theirs[0]:.2f} s CPU, {theirs[1]:.2f} s wall)"
        )
    for name, megabytes in record_sizes(text):
        ok = megabytes <= RECORD_BUDGET_MB
        missed += not ok
        print(
            f"{'ok  ' if ok else 'MISS'} WordPiece step record, {name} (MB gzipped) "
            f"{megabytes:.3f}   target <= {RECORD_BUDGET_MB}"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    raise SystemExit(main())
