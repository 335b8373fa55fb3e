"""``python -m bpeviz train --algorithm unigram``: the file it writes and its summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import ok, run_cli, stderr_of
from tokenizers import Tokenizer

COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
WORDS = ("▁hug", "▁pug", "▁pun", "▁bun", "▁hugs")


def test_train_writes_a_tokenizer_json_and_prints_each_round(tmp_path: Path) -> None:
    """The seed is every substring of ▁hug ▁pug ▁pun ▁bun ▁hugs (counted here by a set of
    slices); each round keeps 0.75 of the pieces (rounded down), never below 9: the 8
    characters (▁ h u g p n b s) and one longer piece. The file holds <unk>, those 9 and
    the 256 byte pieces."""
    substrings = {word[a:b] for word in WORDS for a in range(len(word))
                  for b in range(a + 1, len(word) + 1)}  # fmt: skip
    (tmp_path / "course.txt").write_text(COURSE, encoding="utf-8")
    out = ok(run_cli(tmp_path, "train", "course.txt", "--algorithm", "unigram",
                     "--vocab-size", "9", "--out", "uni"))  # fmt: skip
    assert f"seed: {len(substrings)} pieces (every substring of a word up to 16" in out
    sizes = [len(substrings)]
    while sizes[-1] > 9:
        sizes.append(max(9, int(sizes[-1] * 0.75)))
    assert f"rounds: {len(sizes)} ({sizes[0]} -> 9 pieces), EM 2 iterations a round" in out
    assert "stop: reached the vocab size (9)" in out
    assert "wrote uni.tokenizer.json" in out
    library = Tokenizer.from_str((tmp_path / "uni.tokenizer.json").read_text(encoding="utf-8"))
    assert library.get_vocab_size() == 1 + 9 + 256
    assert "".join(library.encode("hugs pun").tokens) == "▁hugs▁pun"
    ids = ok(run_cli(tmp_path, "encode", "--model", "uni.tokenizer.json", "--text", "bug"))
    assert len(json.loads(ids)) >= 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--pretokenizer", "bert"), "Unigram needs words: use the pre-tokenizer 'words'"),
        (("--end-of-word",), "--end-of-word and --min-frequency are for BPE: Unigram marks ▁"),
        (("--special", "<s>"), "--special is for BPE and WordPiece"),
    ],
    ids=["pretokenizer", "end-of-word", "special"],
)
def test_unigram_refuses_settings_it_cannot_use(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    (tmp_path / "t.txt").write_text(COURSE, encoding="utf-8")
    result = run_cli(tmp_path, "train", "t.txt", "--algorithm", "unigram", *args,
                     "--vocab-size", "30", "--out", "u")  # fmt: skip
    assert result.returncode == 2 and message in stderr_of(result)
    assert b"Traceback" not in result.stderr


def test_history_is_not_yet_for_unigram(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text(COURSE, encoding="utf-8")
    result = run_cli(tmp_path, "history", "t.txt", "--algorithm", "unigram", "--vocab-size", "9")
    assert result.returncode == 2
    assert "'history' is for BPE so far: train Unigram with 'train'" in stderr_of(result)


def test_unigram_out_does_not_overwrite_without_force(tmp_path: Path) -> None:
    """Unigram's PREFIX.tokenizer.json goes through the CLI's write checks too (issue 29)."""
    (tmp_path / "course.txt").write_text(COURSE, encoding="utf-8")
    (tmp_path / "uni.tokenizer.json").write_text("mine")
    args = ["train", "course.txt", "--algorithm", "unigram", "--vocab-size", "9", "--out", "uni"]
    result = run_cli(tmp_path, *args)
    assert result.returncode == 2 and "'uni.tokenizer.json' already exists" in stderr_of(result)
    assert (tmp_path / "uni.tokenizer.json").read_text() == "mine"
    ok(run_cli(tmp_path, *args, "--force"))
    assert Tokenizer.from_file(str(tmp_path / "uni.tokenizer.json")).get_vocab_size() == 266


def test_unigram_settings_on_the_command_line(tmp_path: Path) -> None:
    """The sidebar's four settings as flags. Pieces of at most 2 characters: the 8 characters
    and the 9 pairs inside ▁hug ▁pug ▁pun ▁bun ▁hugs (▁h hu ug ▁p pu un ▁b bu gs), 17; keeping
    0.5 a round leaves 8, below the vocab size 12, so one round removes 5."""
    (tmp_path / "t.txt").write_text(COURSE, encoding="utf-8")
    out = ok(run_cli(tmp_path, "train", "t.txt", "--algorithm", "unigram", "--vocab-size", "12",
                     "--max-piece-length", "2", "--shrinking-factor", "0.5",
                     "--em-iterations", "1", "--out", "u"))  # fmt: skip
    assert "seed: 17 pieces (every substring of a word up to 2 characters" in out
    assert "rounds: 2 (17 -> 12 pieces), EM 1 iteration a round, shrinking factor 0.5" in out
    bad = run_cli(tmp_path, "train", "t.txt", "--algorithm", "unigram", "--vocab-size", "12",
                  "--shrinking-factor", "1.5", "--out", "v")  # fmt: skip
    assert bad.returncode == 2 and (
        "The shrinking factor (the share of tokens a round keeps) must lie between 0.05 and "
        "0.95, got 1.5." in stderr_of(bad)
    )
    bpe = run_cli(tmp_path, "train", "t.txt", "--vocab-size", "300", "--em-iterations", "3",
                  "--out", "b")  # fmt: skip
    assert bpe.returncode == 2 and "are Unigram's" in stderr_of(bpe)
