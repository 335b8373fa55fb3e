"""The command line: ``python -m bpeviz train | encode | decode | history``.

- ``train FILE --vocab-size N --out PREFIX`` learns merges and writes minbpe's ``PREFIX.model``
  and ``PREFIX.vocab`` (and with ``--tokenizer-json`` Hugging Face's ``PREFIX.tokenizer.json``),
  then prints a one-screen summary (sizes, stop reason, compression,
  the first and last merges).
- ``encode`` prints token ids as a JSON list; ``decode`` turns such a list back into the exact
  bytes of the text (on a terminal, followed by a newline if the text has none at its end).
  Both use a saved model (``--model x.model``, ``x.tiktoken`` or a Hugging Face
  ``tokenizer.json``) or a real one (``--encoding cl100k_base``, ``o200k_base``,
  ``r50k_base``, ``p50k_base``, Mistral's ``tekken_240911`` with its ``<s>`` first, or a model
  name such as ``gpt-4o``, whose chat markup's special tokens come with it).
- ``history FILE --vocab-size N`` prints every merge step, as a table or ``--jsonl``.
- ``train FILE --algorithm wordpiece --pretokenizer words|bert ...`` trains WordPiece (by
  score, or ``--wordpiece-rule frequency`` as the ``tokenizers`` library does) and writes
  ``PREFIX.tokenizer.json``; its summary gives each merge's score.
- ``train FILE --algorithm unigram --vocab-size N --out PREFIX`` trains Unigram (SentencePiece's
  words, ``▁`` in front) and writes ``PREFIX.tokenizer.json``; its summary gives each round.

Bad input never ends in a traceback: the message goes to stderr, with exit status 2 (as
argparse does for bad options). Only regular files are read, or standard input named ``-``; a
FIFO, a device or a directory is refused (:mod:`bpeviz.cli_files`). No input is read past
``MAX_READ_BYTES`` (64 MiB): a larger one (or an endless pipe) is refused after that much.
``--out`` never replaces a file without ``--force``, never an input, and writes through a
temporary file renamed into place. Running out of memory, nesting
too deep, or a bug of ours ends in one line on stderr too, with exit status 1. This module only
parses, reads files and prints; the work is done by the engine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO, TypeVar

from bpeviz.cli_files import (
    STDIN,
    CliError,
    check_prefix,
    check_targets,
    read_input,
    write_text,
)
from bpeviz.engine.algorithms import ALGORITHMS, algorithm_problems
from bpeviz.engine.budget import (
    NO_BUDGET_FLAG,
    SERVER_BUDGET,
    SERVER_UNIGRAM_BUDGET,
    SERVER_WORDPIECE_BUDGET,
)
from bpeviz.engine.config import DEFAULT_PRETOKENIZER, UNIGRAM_DEFAULTS, TrainingConfig
from bpeviz.engine.corpus import build_corpus
from bpeviz.engine.history import History
from bpeviz.engine.pretokenize import PRETOKENIZERS
from bpeviz.engine.readable import counted
from bpeviz.engine.tie_rules import TIE_BREAKS
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.engine.trainer import MergeStep, max_useful_vocab_size, run_training
from bpeviz.engine.unigram import UnigramRound, UnigramRun, train_unigram
from bpeviz.engine.wordpiece import (
    SCORE_RULES,
    UNK,
    WORDPIECE_PRETOKENIZERS,
    WordPieceRun,
    WordPieceStep,
    train_wordpiece,
)
from bpeviz.formats import is_hf_json, load_model_file
from bpeviz.formats.common import render_token
from bpeviz.formats.hf_json import to_hf_json
from bpeviz.formats.hf_models import LibraryTokenizer, read_tokenizer_json
from bpeviz.formats.hf_unigram import to_hf_unigram_json
from bpeviz.formats.hf_wordpiece import to_hf_wordpiece_json
from bpeviz.formats.minbpe import to_minbpe_model, to_minbpe_vocab
from bpeviz.real.openai_ranks import RanksUnavailable
from bpeviz.real.registry import bundled_names, load_bundled, missing_note, prompt_text
from bpeviz.records.merge_rows import merge_row
from bpeviz.records.step import TOP_PAIRS, payload_json
from bpeviz.web import step_page

EXIT_BAD_INPUT = 2
EXIT_FAILED = 1
MAX_READ_BYTES = 64 * 2**20  # any file: text to train on or encode, ids, a model
SUMMARY_MERGES = 5  # first and last merges shown after training
PROGRESS_DELAY = 1.0  # seconds of work before progress appears on stderr


# ---- argument parsing ---------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bpeviz",
        description="Train, inspect and run byte-level BPE tokenizers.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    train_parser = commands.add_parser(
        "train", help="learn merges from a text file and save PREFIX.model + PREFIX.vocab"
    )
    _add_training_options(train_parser)
    train_parser.add_argument(
        "--out", required=True, metavar="PREFIX", help="write PREFIX.model and PREFIX.vocab"
    )
    _add_force_option(train_parser)
    train_parser.add_argument(
        "--tokenizer-json",
        action="store_true",
        help="also write PREFIX.tokenizer.json (Hugging Face tokenizers' format)",
    )

    history_parser = commands.add_parser("history", help="print every merge step of training")
    _add_training_options(history_parser)
    history_parser.add_argument(
        "--jsonl", action="store_true", help="one JSON object per merge instead of a table"
    )

    html_parser = commands.add_parser(
        "html", help="write one HTML page that steps through training, with no server"
    )
    _add_training_options(html_parser)
    html_parser.add_argument("--out", required=True, metavar="PAGE", help="the .html file to write")
    _add_force_option(html_parser)

    encode_parser = commands.add_parser("encode", help="text to token ids (a JSON list)")
    _add_model_options(encode_parser)
    source = encode_parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--text", help="the text to encode")
    source.add_argument("--file", help="a file to encode (its exact bytes; '-': standard input)")

    decode_parser = commands.add_parser("decode", help="token ids (a JSON list) to text")
    _add_model_options(decode_parser)
    ids = decode_parser.add_mutually_exclusive_group(required=True)
    ids.add_argument("--ids", help="a JSON list of ids, e.g. '[9906, 11]'")
    ids.add_argument("--file", help="a file holding a JSON list of ids ('-': standard input)")
    return parser


def _add_force_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--force", action="store_true", help="replace files that --out names if they exist"
    )


def _add_training_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the text to train on ('-': standard input)")
    parser.add_argument(
        "--vocab-size", type=int, required=True, metavar="N", help="256 bytes + number of merges"
    )
    parser.add_argument(
        "--algorithm",
        choices=ALGORITHMS,
        default="bpe",
        help="bpe merges the most frequent pair; wordpiece the best-scoring one; unigram "
        "prunes the tokens whose removal raises the loss least",
    )
    parser.add_argument(
        "--wordpiece-rule",
        choices=SCORE_RULES,
        default="score",
        help="WordPiece only: score = count(ab)/(count(a) count(b)); frequency = what the "
        "tokenizers library's WordPieceTrainer does",
    )
    parser.add_argument(
        "--pretokenizer",
        choices=tuple(dict.fromkeys((*PRETOKENIZERS, *WORDPIECE_PRETOKENIZERS))),
        default=None,
        help=f"bpe: {DEFAULT_PRETOKENIZER} (default), bytes, gpt2, words; "
        "wordpiece: words (default), bert; unigram: words",
    )
    parser.add_argument("--tie-break", choices=TIE_BREAKS, default="first")
    parser.add_argument(
        "--special",
        nargs="+",
        action="extend",
        default=[],
        metavar="TOKEN",
        help="special tokens, never split or merged (e.g. '<|endoftext|>')",
    )
    parser.add_argument(
        "--end-of-word", action="store_true", help="end each word with </w> (needs 'words')"
    )
    parser.add_argument(
        "--min-frequency", type=int, default=1, metavar="N", help="stop below this pair count"
    )
    unigram = parser.add_argument_group("Unigram only (SentencePiece's defaults unless given)")
    for flag, kind, default, about in UNIGRAM_FLAGS:
        unigram.add_argument(flag, type=kind, default=None, metavar="N",
                             help=f"{about} (default {default:g})")  # fmt: skip
    parser.add_argument(
        NO_BUDGET_FLAG,
        action="store_true",
        help="train past the budget the app keeps to (BPE, WordPiece: merges × symbols, the "
        "new tokens' length; Unigram: its seed, its longest word): for big runs on your own "
        "computer",
    )


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    model = parser.add_mutually_exclusive_group(required=True)
    model.add_argument(
        "--model",
        metavar="PATH",
        help="a minbpe .model, a .tiktoken file (split with cl100k's pattern) or any Hugging "
        "Face tokenizer.json (WordPiece, Unigram, ... are encoded by the tokenizers library)",
    )
    model.add_argument(
        "--encoding",
        metavar="NAME",
        help=f"a real tokenizer (built in): {', '.join(bundled_names())}, or an OpenAI model "
        "name as tiktoken maps it (gpt-4o, gpt-4, gpt-3.5-turbo, gpt2, ...), chat tokens "
        "included; tekken_240911 puts Mistral's <s> first"
        + (f" ({missing_note()})" if missing_note() else ""),
    )


# ---- commands -----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    commands = {
        "train": _train,
        "history": _history,
        "html": _html,
        "encode": _encode,
        "decode": _decode,
    }
    try:
        commands[args.command](args)
        sys.stdout.flush()
    except (CliError, ValueError, RanksUnavailable) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as the Python docs advise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        print(f"{parser.prog}: error: ran out of memory: use a smaller file", file=sys.stderr)
        return EXIT_FAILED
    except RecursionError:
        print(f"{parser.prog}: error: the input nests too deep to read", file=sys.stderr)
        return EXIT_FAILED
    except Exception as error:  # a bug of ours: one line, not a traceback
        print(
            f"{parser.prog}: internal error ({type(error).__name__}: {error}): please report "
            "it with the command you ran",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return 0


# Unigram's settings as flags: (flag, type, default, help); the attribute is the flag's name.
UNIGRAM_FLAGS: tuple[tuple[str, type, float, str], ...] = (
    ("--max-piece-length", int, UNIGRAM_DEFAULTS["max_piece_length"],
     "the longest seed piece, in characters (1 to 32)"),
    ("--seed-size", int, UNIGRAM_DEFAULTS["seed_size"],
     "the most frequent longer substrings the seed keeps"),
    ("--shrinking-factor", float, UNIGRAM_DEFAULTS["shrinking_factor"],
     "the share of tokens each round keeps (0.05 to 0.95)"),
    ("--em-iterations", int, UNIGRAM_DEFAULTS["em_iterations"],
     "EM iterations a round (1 to 10)"),
)  # fmt: skip


def _unigram_settings(args: argparse.Namespace) -> dict[str, int | float]:
    """The Unigram flags given, by ``train_unigram``'s names."""
    given = {flag[2:].replace("-", "_"): getattr(args, flag[2:].replace("-", "_"), None)
             for flag, *_ in UNIGRAM_FLAGS}  # fmt: skip
    return {name: value for name, value in given.items() if value is not None}


def _check_algorithm(args: argparse.Namespace, command: str) -> None:
    """Fill in the algorithm's default pre-tokenizer and refuse settings it cannot use."""
    if args.pretokenizer is None:
        args.pretokenizer = DEFAULT_PRETOKENIZER if args.algorithm == "bpe" else "words"
    problems = algorithm_problems(args.algorithm, args.pretokenizer)
    if problems:
        raise CliError(" ".join(problems))
    unigram = _unigram_settings(args)
    if unigram and args.algorithm != "unigram":
        flags = ", ".join("--" + name.replace("_", "-") for name in unigram)
        raise CliError(f"{flags} are Unigram's: add --algorithm unigram, or leave them out")
    if args.algorithm == "bpe":
        return
    name = {"wordpiece": "WordPiece", "unigram": "Unigram"}[args.algorithm]
    if command != "train":
        raise CliError(f"'{command}' is for BPE so far: train {name} with 'train'")
    if args.end_of_word or args.min_frequency != 1:
        marks = "WordPiece marks ##" if args.algorithm == "wordpiece" else "Unigram marks ▁"
        raise CliError(f"--end-of-word and --min-frequency are for BPE: {marks}")


def _train(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    _check_algorithm(args, "train")
    if args.algorithm == "wordpiece":
        _train_wordpiece(args, started)
        return
    if args.algorithm == "unigram":
        _train_unigram(args, started)
        return
    prefix = args.out.removesuffix(".model")
    check_prefix(prefix)
    suffixes = ["model", "vocab"] + (["tokenizer.json"] if args.tokenizer_json else [])
    check_targets([Path(f"{prefix}.{suffix}") for suffix in suffixes], [args.file],
                  force=args.force)  # fmt: skip
    source, text_size = _read_training_text(args.file)
    history = _run_training(args, source)
    vocab_path = Path(f"{prefix}.vocab")
    written = [write_text(vocab_path, to_minbpe_vocab(history.tokenizer), force=args.force)]
    try:
        model_text = to_minbpe_model(history.tokenizer)
    except ValueError as error:
        print(f"bpeviz: note: {prefix}.model not written: {error}", file=sys.stderr)
    else:
        written.insert(0, write_text(Path(f"{prefix}.model"), model_text, force=args.force))
    if args.tokenizer_json:
        try:
            hf_text = to_hf_json(history.tokenizer)
        except ValueError as error:
            raise CliError(f"{prefix}.tokenizer.json not written: {error}") from None
        written.append(write_text(Path(f"{prefix}.tokenizer.json"), hf_text, force=args.force))
    print(_summary(args, history, text_size, written, time.perf_counter() - started))


def _character_run_files(args: argparse.Namespace, algorithm: str) -> tuple[Path, str, int]:
    """What a run on characters (WordPiece, Unigram) writes and reads, checked before it
    trains: ``PREFIX.tokenizer.json`` (never over an input, nor an existing file without
    ``--force``), and the file's text, refused with a sentence if it is not UTF-8."""
    prefix = args.out.removesuffix(".tokenizer.json")
    target = Path(f"{prefix}.tokenizer.json")
    check_prefix(prefix)
    check_targets([target], [args.file], force=args.force)
    source, text_size = _read_training_text(args.file)
    if isinstance(source, bytes):
        raise CliError(
            f"{_shown(args.file, quoted=True)} is not UTF-8 text: {algorithm} trains on characters"
        )
    return target, source, text_size


def _train_wordpiece(args: argparse.Namespace, started: float) -> None:
    """WordPiece: train on the file's characters, write ``PREFIX.tokenizer.json``."""
    target, source, text_size = _character_run_files(args, "WordPiece")
    run = train_wordpiece(
        source,
        args.vocab_size,
        pretokenizer=args.pretokenizer,
        score_rule=args.wordpiece_rule,
        tie_break=args.tie_break,
        special_tokens=(UNK, *args.special),
        budget=None if args.no_budget else SERVER_WORDPIECE_BUDGET,
    )
    written = [write_text(target, to_hf_wordpiece_json(run), force=args.force)]
    seconds = time.perf_counter() - started
    print(_wordpiece_summary(args, run, text_size, written, seconds))


def _wordpiece_summary(
    args: argparse.Namespace,
    run: WordPieceRun,
    text_size: str,
    written: list[Path],
    seconds: float,
) -> str:
    steps = run.steps
    rule = (
        "by score, count(ab) / (count(a) x count(b))"
        if run.score_rule == "score"
        else "by frequency, as tokenizers' WordPieceTrainer"
    )
    lines = [
        f"trained WordPiece on {_shown(args.file)}: {text_size}",
        f"pre-tokenizer {args.pretokenizer}, merges {rule}, tie-break {args.tie_break}",
        f"merges: {len(steps):,} (vocab {run.vocab_size:,} = {run.initial_size} first tokens "
        f"+ {counted(run.vocab_size - run.initial_size, 'merge')})",
        f"stop: {run.stop_reason}",
        f"tokens: {run.tokens_before:,} -> "
        f"{steps[-1].tokens_after if steps else run.tokens_before:,}",
    ]
    lines += _first_and_last(steps, _wordpiece_line, "merges")
    lines.append(f"wrote {', '.join(str(path) for path in written)} in {seconds:.1f} s")
    return "\n".join(lines)


Shown = TypeVar("Shown")


def _first_and_last(items: Sequence[Shown], line: Callable[[Shown], str], name: str) -> list[str]:
    """A training summary's merges (or rounds), one ``line`` each: all of them, or the first
    and the last ``SUMMARY_MERGES`` when there are more than twice as many; none, no heading.

    >>> _first_and_last(range(12), str, "merges")
    ['first merges:', '0', '1', '2', '3', '4', 'last merges:', '7', '8', '9', '10', '11']
    >>> _first_and_last(range(2), str, "rounds"), _first_and_last([], str, "merges")
    (['rounds:', '0', '1'], [])
    """
    if len(items) <= 2 * SUMMARY_MERGES:
        return [f"{name}:", *map(line, items)] if items else []
    return [
        f"first {name}:",
        *map(line, items[:SUMMARY_MERGES]),
        f"last {name}:",
        *map(line, items[-SUMMARY_MERGES:]),
    ]


def _wordpiece_line(step: WordPieceStep) -> str:
    left, right, new = (render_token(text.encode()) for text in (step.left, step.right, step.token))
    return (
        f"  {step.step:>6}  [{left}][{right}] -> [{new}]  id {step.new_id}, count {step.count}, "
        f"score {step.count}/({step.left_count}*{step.right_count}) = {step.score} = "
        f"{step.score_decimal:.6g}"
    )


def _train_unigram(args: argparse.Namespace, started: float) -> None:
    """Unigram: train on the file's words, write ``PREFIX.tokenizer.json``."""
    if args.special:
        raise CliError("--special is for BPE and WordPiece: Unigram's one special is <unk>")
    settings = _unigram_settings(args)
    problems = TrainingConfig(args.vocab_size, algorithm="unigram", **settings).unigram_problems()
    if problems:
        raise CliError(" ".join(problems))
    target, source, text_size = _character_run_files(args, "Unigram")
    budget = None if args.no_budget else SERVER_UNIGRAM_BUDGET
    run = train_unigram(source, args.vocab_size, budget=budget, **settings)  # type: ignore[arg-type]
    written = [write_text(target, to_hf_unigram_json(run.model()), force=args.force)]
    seconds = time.perf_counter() - started
    print(_unigram_summary(args, run, text_size, written, seconds))


def _unigram_summary(
    args: argparse.Namespace, run: UnigramRun, text_size: str, written: list[Path], seconds: float
) -> str:
    rounds, final = run.rounds, run.final
    lines = [
        f"trained Unigram on {_shown(args.file)}: {text_size}",
        f"seed: {run.seed_pieces:,} pieces ({run.seed_rule})",
        f"rounds: {len(rounds)} ({rounds[0].size:,} -> {final.size:,} pieces), EM "
        f"{counted(run.em_iterations, 'iteration')} a round, shrinking factor "
        f"{run.shrinking_factor}",
        f"loss (natural log, best segmentations): {rounds[0].loss:,.1f} -> {final.loss:,.1f}",
        f"stop: {run.stop_reason}",
    ]
    lines += _first_and_last(rounds, _unigram_line, "rounds")
    top = ", ".join(
        f"[{render_token(piece.encode())}] {probability:.4g}"
        for piece, probability in zip(final.pieces[:8], final.probabilities[:8], strict=False)
    )
    lines.append(f"most probable: {top}")
    lines.append(f"wrote {', '.join(str(path) for path in written)} in {seconds:.1f} s")
    return "\n".join(lines)


def _unigram_line(round_: UnigramRound) -> str:
    removed = round_.removed
    cheapest = ", ".join(f"[{render_token(piece.encode())}]" for piece in removed[:3])
    what = f"removed {len(removed):,} (cheapest {cheapest})" if removed else "nothing removed"
    return f"  round {round_.round:>3}: {round_.size:,} pieces, loss {round_.loss:,.2f}; {what}"


def _html(args: argparse.Namespace) -> None:
    _check_algorithm(args, "html")
    check_targets([Path(args.out)], [args.file], force=args.force)
    source, _ = _read_training_text(args.file)
    history = _run_training(args, source)
    name = _input_name(args.file)
    subtitle = (
        f"{name} · {counted(len(history.text), 'byte')} · vocab {history.vocab_size:,} · "
        f"{args.pretokenizer} · ties: {args.tie_break}"
    )
    page = step_page(payload_json(history), title=f"bpeviz: {name}", subtitle=subtitle)
    path = write_text(Path(args.out), page, force=args.force)
    print(f"wrote {path} ({counted(len(page.encode('utf-8')), 'byte')}): open it in any browser")


def _history(args: argparse.Namespace) -> None:
    _check_algorithm(args, "history")
    source, _ = _read_training_text(args.file)
    history = _run_training(args, source)
    if args.jsonl:
        for step in history.steps:
            print(json.dumps(step_record(step, history), ensure_ascii=False))
        return
    print(f"{'step':>6}  {'pair':>12}  {'new id':>6}  {'count':>7}  {'merged':>7}  token")
    for step in history.steps:
        line = (
            f"{step.step:>6}  {step.pair!s:>12}  {step.new_id:>6}  {step.count:>7}  "
            f"{step.replacements:>7}  {_merge_text(step, history.tokenizer)}"
        )
        if step.tied:
            line += f"  (tie of {history.tie_count(step.step)}, rule {step.rule})"
        print(line)
    print(history.stop_reason)


def _encode(args: argparse.Namespace) -> None:
    tokenizer = _load_tokenizer(args)
    text: str | bytes = args.text if args.text is not None else _read_bytes(args.file, "file")
    if args.encoding is not None:
        text = prompt_text(args.encoding, text)  # Tekken's BOS first
    with _panic_reports_hidden(tokenizer):
        ids = tokenizer.encode(text)
    print(json.dumps(ids))


def _decode(args: argparse.Namespace) -> None:
    tokenizer = _load_tokenizer(args)
    if args.ids is not None:
        where, raw = "--ids", args.ids
    else:
        where = args.file
        raw = _read_bytes(args.file, "ids file").decode("utf-8", errors="replace")
    ids = _parse_ids(raw, where)
    with _panic_reports_hidden(tokenizer):
        data = tokenizer.decode_bytes(ids)
    binary = getattr(sys.stdout, "buffer", None)
    if binary is None:  # stdout replaced by a text stream (tests): text is all it takes
        sys.stdout.write(data.decode("utf-8", errors="replace"))
        return
    sys.stdout.flush()
    binary.write(data)  # the exact bytes, so decoding gives a non-UTF-8 file back too
    if sys.stdout.isatty() and not data.endswith(b"\n"):
        binary.write(b"\n")  # on a terminal the prompt starts a line of its own
    binary.flush()


# ---- helpers ------------------------------------------------------------------------------


def step_record(step: MergeStep, history: History) -> dict[str, Any]:
    """One merge as a JSON-ready dict (what ``history --jsonl`` prints per line): its
    :class:`~bpeviz.records.merge_rows.MergeRow`, plus ``tie_count``, how many pairs shared the top
    count in all (0 when there was no tie; recounted, so only here and not in every table).
    """
    return {**merge_row(history, step).as_dict(), "tie_count": history.tie_count(step.step)}


@contextlib.contextmanager
def _panic_reports_hidden(tokenizer: Tokenizer | LibraryTokenizer) -> Iterator[None]:
    """While the ``tokenizers`` library runs, stderr (file descriptor 2) goes nowhere: a
    panic of the library writes Rust's own report there before it reaches us as the one
    ``ValueError`` we print."""
    if not isinstance(tokenizer, LibraryTokenizer):
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as nowhere:
            os.dup2(nowhere.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _read_bytes(path: str, what: str) -> bytes:
    """The bytes of a regular file or of standard input (``-``), at most ``MAX_READ_BYTES``."""
    return read_input(path, what, max_bytes=MAX_READ_BYTES)


def _input_name(path: str) -> str:
    return "standard input" if path == STDIN else Path(path).name


def _shown(path: str, *, quoted: bool = False) -> str:
    """An input's name in a sentence: the path as given, or ``standard input`` for ``-``."""
    if path == STDIN:
        return "standard input"
    return repr(path) if quoted else path


def _read_training_text(path: str) -> tuple[str | bytes, str]:
    """The text to train on, and its size in words; non-UTF-8 files are trained as bytes."""
    data = _read_bytes(path, "training file")
    shown = _shown(path, quoted=True)
    if not data:
        raise CliError(f"{shown} is empty: give a text file to train on")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        print(
            f"bpeviz: note: {shown} is not UTF-8 text (byte 0x{data[error.start]:02x} at "
            f"offset {error.start}): training on its raw bytes",
            file=sys.stderr,
        )
        return data, f"{counted(len(data), 'byte')} (not UTF-8)"
    return text, f"{counted(len(data), 'byte')}, {counted(len(text), 'character')}"


def _run_training(args: argparse.Namespace, source: str | bytes) -> History:
    config = TrainingConfig(
        args.vocab_size,
        args.pretokenizer,
        args.tie_break,
        tuple(args.special),
        args.end_of_word,
        args.min_frequency,
    )
    problems = config.problems()
    if problems:
        raise CliError(" ".join(problems))
    base = config.base_size
    corpus = build_corpus(
        source,
        config.pretokenizer,
        special_tokens=config.special_tokens,
        end_of_word=config.end_of_word,
    )
    useful = max_useful_vocab_size(corpus)
    if useful <= base:
        raise CliError(
            f"{_shown(args.file, quoted=True)} is too short to learn anything: no two symbols "
            f"sit side by side inside one piece (pre-tokenizer {args.pretokenizer!r}), so there "
            "is no pair to merge"
        )
    if args.vocab_size > useful:
        raise CliError(
            f"--vocab-size {args.vocab_size:,} is more than this text can use: at most "
            f"{useful:,} ({base} base symbols + {useful - base:,} merges, since every merge "
            "joins two adjacent tokens of the text)"
        )
    progress = _Progress(sys.stderr)
    try:
        budget = None if args.no_budget else SERVER_BUDGET
        return History(
            run_training(corpus, config, progress=progress, top_pairs=TOP_PAIRS, budget=budget)
        )
    finally:
        progress.close()


def _load_tokenizer(args: argparse.Namespace) -> Tokenizer | LibraryTokenizer:
    if args.model == STDIN and args.file == STDIN:
        raise CliError("standard input ('-') can be read once: name a file for --model or --file")
    if args.encoding is not None:
        return load_bundled(args.encoding)
    data = _read_bytes(args.model, "model file")
    name = Path(args.model).name
    if is_hf_json(name, data):  # any tokenizer.json: ours if byte-level BPE, else the library
        return read_tokenizer_json(data)
    return load_model_file(name, data)


def _parse_ids(raw: str, where: str) -> list[int]:
    example = "a JSON list of token ids like [9906, 11]"
    try:
        ids = json.loads(raw)
    except json.JSONDecodeError as error:
        raise CliError(f"{where}: expected {example} ({error.msg})") from None
    except RecursionError:
        raise CliError(f"{where}: expected {example} (this nests too deep)") from None
    if not isinstance(ids, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in ids
    ):
        shown = raw if len(raw) <= 60 else raw[:60] + "…"
        raise CliError(f"{where}: expected {example}, got {shown!r}")
    return ids


def _merge_text(step: MergeStep, tokenizer: Tokenizer) -> str:
    left, right = (render_token(tokenizer.token_bytes(part)) for part in step.pair)
    return f"[{left}][{right}] -> [{render_token(step.token)}]"


def _summary(
    args: argparse.Namespace,
    history: History,
    text_size: str,
    written: list[Path],
    seconds: float,
) -> str:
    steps = history.steps
    last = history.merge_count
    specials = len(history.tokenizer.special_tokens)
    lines = [
        f"trained on {_shown(args.file)}: {text_size}",
        f"pre-tokenizer {args.pretokenizer}, tie-break {args.tie_break}"
        + (", </w> end-of-word marker" if args.end_of_word else ""),
        f"merges: {last:,} of {args.vocab_size - history.base:,} requested "
        f"(vocab {history.vocab_size:,} = {history.base} base + {counted(last, 'merge')}"
        + (f", plus {specials} special)" if specials else ")"),
        f"stop: {history.stop_reason}",
        f"tokens: {history.token_count(0):,} -> {history.token_count(last):,} "
        f"(compression {history.compression_ratio(last):.2f} bytes per token)",
    ]
    lines += _first_and_last(steps, lambda step: _summary_line(step, history.tokenizer), "merges")
    lines.append(f"wrote {', '.join(str(path) for path in written)} in {seconds:.1f} s")
    return "\n".join(lines)


def _summary_line(step: MergeStep, tokenizer: Tokenizer) -> str:
    return f"  {step.step:>6}  {_merge_text(step, tokenizer)}  id {step.new_id}, count {step.count}"


class _Progress:
    """Training progress on stderr, shown only once the work has taken a while."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.started = time.perf_counter()
        self.tty = stream.isatty()
        self.last_tenth = -1
        self.shown = False

    def __call__(self, step: int, total: int) -> None:
        if time.perf_counter() - self.started < PROGRESS_DELAY:
            return
        percent = 100 * step // max(total, 1)
        message = f"training: {step:,}/{total:,} merges ({percent}%)"
        if self.tty:
            self.stream.write("\r" + message)
        elif percent // 10 != self.last_tenth:
            self.last_tenth = percent // 10
            self.stream.write(message + "\n")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown and self.tty:
            self.stream.write("\n")
            self.stream.flush()
