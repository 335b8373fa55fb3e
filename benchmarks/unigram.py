"""Unigram training, ours against the ``tokenizers`` library's UnigramTrainer, in one run.

Tiny Shakespeare at vocab 4096, the whole process on both sides: from the text to the trained
vocabulary. Ours seeds every substring, runs EM and prunes round by round, recording every
round (the vocabulary with probabilities, every token's loss if removed, the removed ones,
the losses); the library records nothing. The library is fed line by line with the same
words (WhitespaceSplit, then Metaspace). Runs alternate, ours then the library's, and the
best of each is kept. Time is CPU time of the whole process (``time.process_time``, every
thread counted): the machine is shared and loaded, and wall-clock time there measures the
neighbours; the library's threads are its own work, so they count. SentencePiece's trainer
(one thread) is timed beside, for reference. Also: a bundled sample (about 5 KB, a live
class's size, English and Japanese, the second's words being whole lines) each train to 500
pieces in at most 1 s. Exits non-zero on a miss.
"""

from __future__ import annotations

import argparse
import gc
import io
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bpeviz.engine.unigram import UNK, train_unigram  # noqa: E402

VOCAB_SIZE = 4096
TARGET = 1.5
SAMPLES = (ROOT / "sample_texts" / "english.txt", ROOT / "sample_texts" / "japanese.txt")
SAMPLE_VOCAB = 500
SAMPLE_TARGET = 1.0


def cpu_seconds(action: Callable[[], object]) -> tuple[float, float]:
    """CPU seconds (all threads) and wall seconds of one call."""
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    action()
    return time.process_time() - cpu, time.perf_counter() - wall


def library_fit(text: str, vocab_size: int) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace()]
    )
    trainer = trainers.UnigramTrainer(
        vocab_size=vocab_size, unk_token=UNK, special_tokens=[UNK], show_progress=False
    )
    tokenizer.train_from_iterator(text.splitlines(keepends=True), trainer=trainer)


def sentencepiece_fit(text: str, vocab_size: int) -> None:
    import sentencepiece

    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(text.splitlines()),
        model_writer=io.BytesIO(),
        vocab_size=vocab_size,
        model_type="unigram",
        hard_vocab_limit=False,  # a small text may not hold that many pieces
        num_threads=1,
        minloglevel=2,
    )


def unigram_times(text: str, runs: int) -> dict[str, tuple[float, float]]:
    """Best (CPU, wall) seconds of ours, the library's and SentencePiece's, runs alternated."""
    fits = {
        "ours": lambda: train_unigram(text, VOCAB_SIZE),
        "tokenizers": lambda: library_fit(text, VOCAB_SIZE),
        "sentencepiece": lambda: sentencepiece_fit(text, VOCAB_SIZE),
    }
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in fits}
    for _ in range(runs):
        for name, fit in fits.items():
            times[name].append(cpu_seconds(fit))
    return {name: min(found) for name, found in times.items()}


def each_sample_seconds(runs: int) -> dict[Path, float]:
    """Each bundled 5 KB sample's best CPU seconds to SAMPLE_VOCAB pieces."""
    found = {}
    for sample in SAMPLES:
        text = sample.read_text(encoding="utf-8")
        found[sample] = min(
            cpu_seconds(lambda text=text: train_unigram(text, SAMPLE_VOCAB))[0] for _ in range(runs)
        )
    return found


def sample_seconds(runs: int) -> float:
    """The slowest of the 5 KB samples."""
    return max(each_sample_seconds(runs).values())


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
    times = unigram_times(text, args.runs)
    for name, (cpu, wall) in times.items():
        print(f"     {name:>13}: {cpu:.2f} s CPU, {wall:.2f} s wall")
    ratio = times["ours"][0] / times["tokenizers"][0]
    missed = 0
    ok = ratio <= TARGET
    missed += not ok
    print(
        f"{'ok  ' if ok else 'MISS'} Unigram vocab {VOCAB_SIZE}, ours / tokenizers (CPU time "
        f"ratio) {ratio:.3f}   target <= {TARGET}"
    )
    for sample, seconds in each_sample_seconds(args.runs).items():
        ok = seconds <= SAMPLE_TARGET
        missed += not ok
        print(
            f"{'ok  ' if ok else 'MISS'} Unigram, {sample.name} ({sample.stat().st_size:,} "
            f"bytes) to {SAMPLE_VOCAB} (CPU s) {seconds:.3f}   target <= {SAMPLE_TARGET}"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    raise SystemExit(main())
