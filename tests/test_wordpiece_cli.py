"""``python -m bpeviz train --algorithm wordpiece``: the file it writes and its summary."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli import ok, run_cli, stderr_of
from tokenizers import Tokenizer

COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
WORDPIECE = ("--algorithm", "wordpiece", "--pretokenizer", "words", "--tie-break", "first")


def test_train_writes_a_tokenizer_json_and_prints_merges_with_scores(tmp_path: Path) -> None:
    """The course's corpus (see test_wordpiece for the working): 12 first tokens, nine merges,
    the first ##g + ##s at 5/(20*5) = 1/20, the last pu + ##n at 12/(12*12) = 1/12."""
    (tmp_path / "course.txt").write_text(COURSE, encoding="utf-8")
    out = ok(run_cli(tmp_path, "train", "course.txt", *WORDPIECE, "--vocab-size", "30",
                     "--out", "wp"))  # fmt: skip
    assert "[##g][##s] -> [##gs]  id 12, count 5, score 5/(20*5) = 1/20 = 0.05" in out
    assert "[pu][##n] -> [pun]  id 20, count 12, score 12/(12*12) = 1/12 = 0.0833333" in out
    assert "vocab 21 = 12 first tokens + 9 merges" in out
    assert "no pair left" in out
    library = Tokenizer.from_str((tmp_path / "wp.tokenizer.json").read_text(encoding="utf-8"))
    assert library.encode("hugs pun bun").tokens == ["hugs", "pun", "bun"]
    ids = ok(run_cli(tmp_path, "encode", "--model", "wp.tokenizer.json", "--text", "hugs zz"))
    assert ids.strip() == "[14, 0]"  # hugs, and [UNK] for a word with no z in the vocabulary


def test_long_runs_show_first_and_last_merges(tmp_path: Path) -> None:
    text = " ".join(f"w{i}x{i * 7}" for i in range(400))
    (tmp_path / "t.txt").write_text(text, encoding="utf-8")
    out = ok(run_cli(tmp_path, "train", "t.txt", *WORDPIECE, "--vocab-size", "80",
                     "--wordpiece-rule", "frequency", "--out", "wp"))  # fmt: skip
    assert "first merges:" in out and "last merges:" in out
    assert "by frequency, as tokenizers' WordPieceTrainer" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--pretokenizer", "gpt2"), "WordPiece needs words"),
        (("--end-of-word",), "--end-of-word and --min-frequency are for BPE"),
    ],
    ids=["bpe-pretokenizer", "end-of-word"],
)
def test_wordpiece_refuses_settings_it_cannot_use(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    (tmp_path / "t.txt").write_text(COURSE, encoding="utf-8")
    result = run_cli(tmp_path, "train", "t.txt", "--algorithm", "wordpiece", *args,
                     "--vocab-size", "30", "--out", "wp")  # fmt: skip
    assert result.returncode == 2 and message in stderr_of(result)
    assert b"Traceback" not in result.stderr


def test_bpe_refuses_the_bert_pretokenizer(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text(COURSE, encoding="utf-8")
    result = run_cli(tmp_path, "train", "t.txt", "--pretokenizer", "bert", "--vocab-size",
                     "300", "--out", "m")  # fmt: skip
    assert result.returncode == 2 and "BPE cannot use the pre-tokenizer 'bert'" in stderr_of(result)


@pytest.mark.parametrize("command", ["history", "html"])
def test_commands_not_yet_for_wordpiece_say_so(tmp_path: Path, command: str) -> None:
    (tmp_path / "t.txt").write_text(COURSE, encoding="utf-8")
    result = run_cli(tmp_path, command, "t.txt", *WORDPIECE, "--vocab-size", "30",
                     *(("--out", "x.html") if command == "html" else ()))  # fmt: skip
    assert result.returncode == 2
    assert f"'{command}' is for BPE so far: train WordPiece with 'train'" in stderr_of(result)


def test_wordpiece_out_does_not_overwrite_without_force(tmp_path: Path) -> None:
    """WordPiece's PREFIX.tokenizer.json goes through the CLI's write checks too (issue 29)."""
    (tmp_path / "course.txt").write_text(COURSE, encoding="utf-8")
    (tmp_path / "wp.tokenizer.json").write_text("mine")
    args = ["train", "course.txt", *WORDPIECE, "--vocab-size", "30", "--out", "wp"]
    result = run_cli(tmp_path, *args)
    assert result.returncode == 2 and "'wp.tokenizer.json' already exists" in stderr_of(result)
    assert (tmp_path / "wp.tokenizer.json").read_text() == "mine"
    ok(run_cli(tmp_path, *args, "--force"))
    assert Tokenizer.from_file(str(tmp_path / "wp.tokenizer.json")).get_vocab_size() == 21
