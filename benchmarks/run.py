"""Engine speed and memory, measured side by side in one run (``make bench``).

Every figure is a ratio against a reference measured in the same run on the same machine, or
an absolute bound, and the script exits non-zero when one misses its target, so the numbers
cannot silently regress. Timings take the best of a few runs (the machine is noisy: the best
run is the one least disturbed); step queries take the median of 20 random steps.

1. train ``gpt4`` to vocab 4096 with the full history, against Hugging Face tokenizers
   (BPE model, ByteLevel pre-tokenizer, same vocab size, fed line by line: its faster way);
2. train ``bytes`` to vocab 512 on the first 100 KB against the textbook loop
   (``bpeviz.engine.textbook.train``, which recounts every pair for every merge), and to 4096 on the
   whole text;
3. the segmentation with ids of the whole text, and the full pair table, at random steps;
4. encode the whole text with our encoder on each real encoding (``cl100k_base``, ``o200k_base``,
   ``r50k_base``, ``p50k_base``, ``tekken_240911`` when its wheel is downloaded) against
   tiktoken, and load cl100k_base and Tekken (a 19 MB JSON file) in a fresh process: time,
   peak and kept memory;
5. peak memory of training ``bytes`` to 4096 (a fresh process), and the history's size;
6. the Step page's record for the browser (``bpeviz.records.step``): its gzipped size for a
   bundled sample at 512 and the corpus at 4096, and the time to build it;
7. WordPiece to 4096 with every step recorded, both rules, against the ``tokenizers``
   library's WordPieceTrainer, in CPU time, runs alternated, and its step record's gzipped
   size (``benchmarks/wordpiece.py``);
8. Unigram to 4096 with every round recorded against the library's UnigramTrainer, in CPU
   time, runs alternated, SentencePiece beside; a 5 KB sample in at most 1 s
   (``benchmarks/unigram.py``).

The corpus is Tiny Shakespeare when ``benchmarks/shakespeare.py`` finds it
(``$BPEVIZ_SHAKESPEARE``, or ``shared/corpora`` in a folder above the repository), else the
bundled samples repeated to the same size (the figures are then not comparable with
docs/performance.md's).
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from shakespeare import shakespeare_path  # noqa: E402

from bpeviz import train  # noqa: E402
from bpeviz.engine import textbook  # noqa: E402
from bpeviz.engine.samples import get_sample  # noqa: E402
from bpeviz.real.mistral_tekken import TEKKEN, tekken_available  # noqa: E402
from bpeviz.real.registry import bundled_names, load_bundled  # noqa: E402
from bpeviz.records.step import TOP_PAIRS, payload_json  # noqa: E402

TARGET_SIZE = 1_115_394
FIGURES = ("1", "2a", "2b", "3", "4", "5", "6", "7", "8")


def load_corpus() -> tuple[str, str]:
    """The benchmark text and where it came from."""
    found = shakespeare_path()
    if found is not None and found.is_file():
        return found.read_text(encoding="utf-8"), "Tiny Shakespeare"
    samples = "".join(
        (ROOT / "sample_texts" / name).read_text(encoding="utf-8")
        for name in ("english.txt", "japanese.txt")
    )
    repeated = samples * (TARGET_SIZE // len(samples.encode()) + 1)
    return repeated.encode()[:TARGET_SIZE].decode(errors="ignore"), "bundled samples, repeated"


def best_time(action: Callable[[], object], runs: int) -> float:
    """Fastest of ``runs`` timings, in seconds (a collection first, so runs start alike)."""
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def median_ms(action: Callable[[int], object], steps: list[int]) -> float:
    times = []
    for step in steps:
        start = time.perf_counter()
        action(step)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def hugging_face_seconds(text: str, vocab_size: int, runs: int) -> float:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    lines = text.splitlines(keepends=True)

    def fit() -> None:
        tokenizer = Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            show_progress=False,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        )
        tokenizer.train_from_iterator(lines, trainer=trainer)

    return best_time(fit, runs)


def textbook_seconds(text: str, vocab_size: int) -> float:
    """The textbook recipe, once (it takes seconds): the baseline of figure 2a."""
    return best_time(lambda: textbook.train(text, vocab_size, snapshots=()), 1)


def peak_memory_mb(text: str) -> tuple[float, float]:
    """Peak RSS growth (MB) of training ``bytes`` to 4096 in a fresh process, and its time."""
    # VmHWM (peak RSS of this address space) rather than ru_maxrss, which a child started
    # from a big parent inherits across exec.
    code = f"""
import json, sys, time
sys.path.insert(0, {str(ROOT)!r})
from bpeviz import train

def peak_kb():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

text = sys.stdin.read()
before = peak_kb()
start = time.perf_counter()
history = train(text, 4096, pretokenizer="bytes")
seconds = time.perf_counter() - start
print(json.dumps({{"grown_kb": peak_kb() - before, "seconds": seconds}}))
"""
    result = subprocess.run(
        [sys.executable, "-c", code], input=text, capture_output=True, text=True, check=True
    )
    figures = json.loads(result.stdout)
    return figures["grown_kb"] / 1024, figures["seconds"]


def load_figures(name: str) -> dict[str, float]:
    """Loading a real encoding in a fresh process: seconds, peak and kept RSS growth (MB)."""
    code = f"""
import json, sys, time
sys.path.insert(0, {str(ROOT)!r})
from bpeviz.real.registry import load_bundled

def kb(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))

peak, kept = kb("VmHWM"), kb("VmRSS")
start = time.perf_counter()
load_bundled({name!r})
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "peak_mb": (kb("VmHWM") - peak) / 1024,
                  "kept_mb": (kb("VmRSS") - kept) / 1024}}))
"""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs per figure (best kept)")
    parser.add_argument(
        "--only",
        action="append",
        choices=FIGURES,
        help="measure only this figure (repeat for several; default: all)",
    )
    args = parser.parse_args()
    wanted = set(args.only or FIGURES)
    text, source = load_corpus()
    size = len(text.encode())
    print(f"corpus: {source}, {size:,} bytes; best of {args.runs} runs\n", flush=True)
    results: list[tuple[str, float, str, bool]] = []

    def report(name: str, value: float, target: str, ok: bool) -> None:
        results.append((name, value, target, ok))
        print(f"{'ok  ' if ok else 'MISS'} {name:<58} {value:>10.3f}   target {target}", flush=True)

    # 1. gpt4 to 4096 with full history vs Hugging Face.
    if "1" in wanted:
        ours = best_time(lambda: train(text, 4096, pretokenizer="gpt4"), args.runs)
        theirs = hugging_face_seconds(text, 4096, args.runs)
        print(f"     gpt4 4096: ours {ours:.3f} s, Hugging Face tokenizers {theirs:.3f} s")
        report(
            "1. gpt4 vocab 4096, ours / Hugging Face (time ratio)",
            ours / theirs,
            "<= 1.0",
            ours / theirs <= 1.0,
        )

    # 2. bytes: textbook loop vs ours on 100 KB, and ours alone on the whole text.
    if "2a" in wanted:
        head = text.encode()[:100_000].decode(errors="ignore")
        ours_small = best_time(lambda: train(head, 512, pretokenizer="bytes"), args.runs)
        slow = textbook_seconds(head, 512)
        print(f"     bytes 512 on 100 KB: textbook {slow:.3f} s, ours {ours_small:.3f} s")
        report(
            "2a. bytes vocab 512 on 100 KB, textbook / ours (speed-up)",
            slow / ours_small,
            ">= 25",
            slow / ours_small >= 25,
        )
    bytes_history = None

    def fit_bytes() -> None:
        nonlocal bytes_history
        bytes_history = train(text, 4096, pretokenizer="bytes")

    if "2b" in wanted:
        whole = best_time(fit_bytes, max(1, args.runs - 1))
        report("2b. bytes vocab 4096 on the whole text (seconds)", whole, "<= 3.0", whole <= 3.0)
    elif wanted & {"3", "5"}:
        fit_bytes()
    gpt4_history = train(text, 4096, pretokenizer="gpt4") if wanted & {"3", "5"} else None

    # 3. Any step, instantly: segmentation with ids, and the full pair table.
    if "3" in wanted:
        rng = random.Random(1234)
        for name, history in (("gpt4", gpt4_history), ("bytes", bytes_history)):
            assert history is not None
            history.segmentation(0)  # builds the full-text index once (timed separately below)
            steps = [rng.randint(0, history.merge_count) for _ in range(20)]
            segmentation = median_ms(history.segmentation, steps)
            pairs = median_ms(history.pair_table, steps)
            report(
                f"3. {name}: segmentation + ids of the whole text (ms, median)",
                segmentation,
                "<= 20",
                segmentation <= 20,
            )
            report(f"3. {name}: full pair table (ms, median)", pairs, "<= 100", pairs <= 100)
        fresh = train(text, 4096, pretokenizer="gpt4")
        first_view = best_time(lambda: fresh.segmentation(0), 1) * 1000
        print(
            f"     (first segmentation of a new gpt4 history, building its text index: "
            f"{first_view:.0f} ms)"
        )

    # 4. Real encodings: our encoder vs tiktoken, each on its own published recipe and ranks.
    if "4" in wanted:
        sys.path.insert(0, str(ROOT / "tests"))
        from tekken_oracle import with_specials
        from tiktoken_oracle import tiktoken_encoding

        for name in bundled_names():
            ours_encoder = load_bundled(name)
            reference = (
                with_specials(tuple(ours_encoder.special_tokens.items()))
                if name == TEKKEN
                else tiktoken_encoding(name)
            )
            tiktoken_seconds = best_time(
                lambda reference=reference: reference.encode(text, allowed_special="all"),
                args.runs,
            )

            def encode_cold(ours_encoder=ours_encoder) -> None:
                ours_encoder._chunk_cache.clear()  # measure a cold cache: the first paste
                ours_encoder.encode(text)

            encode_seconds = best_time(encode_cold, args.runs)
            assert ours_encoder.encode(text) == reference.encode(text, allowed_special="all")
            print(
                f"     {name} encode: ours {encode_seconds:.3f} s, "
                f"tiktoken {tiktoken_seconds:.3f} s"
            )
            ratio = encode_seconds / tiktoken_seconds
            report(f"4. {name} encode, ours / tiktoken (time ratio)", ratio, "<= 25", ratio <= 25)
        if not tekken_available():
            print(f"     {TEKKEN} skipped: its wheel is not downloaded (make tekken)")
        for name in ("cl100k_base", *((TEKKEN,) if tekken_available() else ())):
            loaded = load_figures(name)
            print(
                f"     {name} load (fresh process): {loaded['seconds']:.2f} s, "
                f"peak +{loaded['peak_mb']:.0f} MB, kept +{loaded['kept_mb']:.0f} MB"
            )
            report(
                f"4. {name} load, once per process (s)",
                loaded["seconds"],
                "<= 2",
                loaded["seconds"] <= 2,
            )
            report(
                f"4. {name} load, peak memory (MB above start)",
                loaded["peak_mb"],
                "<= 250",
                loaded["peak_mb"] <= 250,
            )

    # 5. Memory.
    if "5" in wanted:
        grown_mb, _ = peak_memory_mb(text)
        report(
            "5. peak memory, bytes vocab 4096 (MB above start)", grown_mb, "<= 250", grown_mb <= 250
        )
        assert bytes_history is not None
        per_byte = bytes_history.memory_bytes() / size
        report(
            "5. history size, bytes mode (bytes per text byte)", per_byte, "<= 10", per_byte <= 10
        )
        assert gpt4_history is not None
        per_byte_gpt4 = gpt4_history.memory_bytes() / size
        report(
            "5. history size, gpt4 mode (bytes per text byte)",
            per_byte_gpt4,
            "<= 10",
            per_byte_gpt4 <= 10,
        )

    # 6. The step view's record (issue 9): gzipped size and the time to build it.
    if "6" in wanted:
        for key in ("english", "japanese"):
            sample = get_sample(key)
            history = train(sample.text, 512, pretokenizer="gpt4", top_pairs=TOP_PAIRS)
            kb = len(gzip.compress(payload_json(history).encode("utf-8"))) / 1000
            report(f"6. step record, {key} sample at 512 (KB gzipped)", kb, "<= 300", kb <= 300)
        history = train(text, 4096, pretokenizer="gpt4", top_pairs=TOP_PAIRS)
        started = time.perf_counter()
        record = payload_json(history)
        seconds = time.perf_counter() - started
        mb = len(gzip.compress(record.encode("utf-8"))) / 1e6
        report("6. step record, corpus at 4096 gpt4 (MB gzipped)", mb, "<= 2", mb <= 2)
        report("6. step record, corpus at 4096 gpt4: build (s)", seconds, "<= 2", seconds <= 2)

    # 7. WordPiece (issue 32): whole process against the library's WordPieceTrainer.
    if "7" in wanted:
        from wordpiece import RECORD_BUDGET_MB, TARGET, VOCAB_SIZE, record_sizes, wordpiece_ratios

        for rule, (ours, theirs) in wordpiece_ratios(text, args.runs).items():
            print(f"     WordPiece {rule}: ours {ours:.3f} s CPU, tokenizers {theirs:.3f} s CPU")
            report(
                f"7. WordPiece {rule} vocab {VOCAB_SIZE}, ours / tokenizers (CPU time ratio)",
                ours / theirs,
                f"<= {TARGET}",
                ours / theirs <= TARGET,
            )
        for name, megabytes in record_sizes(text):
            report(
                f"7. WordPiece step record, {name} (MB gzipped)",
                megabytes,
                f"<= {RECORD_BUDGET_MB}",
                megabytes <= RECORD_BUDGET_MB,
            )

    # 8. Unigram (issue 33): whole process against the library's UnigramTrainer, CPU time.
    if "8" in wanted:
        import unigram

        times = unigram.unigram_times(text, args.runs)
        for name, (cpu, wall) in times.items():
            print(f"     Unigram {name}: {cpu:.3f} s CPU, {wall:.3f} s wall")
        ratio = times["ours"][0] / times["tokenizers"][0]
        report(
            f"8. Unigram vocab {unigram.VOCAB_SIZE}, ours / tokenizers (CPU time ratio)",
            ratio,
            f"<= {unigram.TARGET}",
            ratio <= unigram.TARGET,
        )
        seconds = unigram.sample_seconds(args.runs)
        report(
            f"8. Unigram, slowest 5 KB sample to {unigram.SAMPLE_VOCAB} (CPU s)",
            seconds,
            f"<= {unigram.SAMPLE_TARGET}",
            seconds <= unigram.SAMPLE_TARGET,
        )

    missed = [name for name, _, _, ok in results if not ok]
    print(f"\n{len(results) - len(missed)} of {len(results)} figures within target")
    if missed:
        print("missed: " + "; ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
