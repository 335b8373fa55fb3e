"""Tests for the command line (``python -m bpeviz``), run as a real subprocess.

Each run starts ``sys.executable -m bpeviz`` in ``tmp_path`` with the repository on
``PYTHONPATH``, as a user would. Bad input must end with exit status 2 and a message on
stderr, never a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bpeviz import cli
from bpeviz.engine.history import train
from bpeviz.engine.samples import get_sample
from bpeviz.engine.trainer import MAX_TIED_RECORDED
from bpeviz.formats.minbpe import to_minbpe_model
from bpeviz.formats.tiktoken import to_tiktoken

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"
ENGLISH = get_sample("english").text


def run_cli(
    cwd: Path, *args: str, stdin: bytes | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[bytes]:
    """``python -m bpeviz *args`` in ``cwd``; ``stdin`` is piped in (else none is open)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "bpeviz", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        timeout=timeout,
        check=False,
    )


def stderr_of(result: subprocess.CompletedProcess[bytes]) -> str:
    return result.stderr.decode("utf-8", errors="replace")


def ok(result: subprocess.CompletedProcess[bytes]) -> str:
    """Stdout of a run that must succeed (its stderr shown if it did not)."""
    assert result.returncode == 0, stderr_of(result)
    assert b"Traceback" not in result.stderr
    return result.stdout.decode("utf-8")


# ---- round trips --------------------------------------------------------------------------


@pytest.mark.parametrize("pretokenizer", ["bytes", "gpt2", "gpt4"])
def test_train_encode_decode_round_trip_through_files(pretokenizer: str, tmp_path: Path) -> None:
    corpus = ENGLISH[:3000] + "<|endoftext|>" + ENGLISH[3000:]
    (tmp_path / "corpus.txt").write_text(corpus, encoding="utf-8")
    summary = ok(
        run_cli(
            tmp_path,
            "train",
            "corpus.txt",
            "--vocab-size",
            "320",
            "--pretokenizer",
            pretokenizer,
            "--special",
            "<|endoftext|>",
            "--out",
            "model",
        )
    )
    assert "merges: 64 of 64 requested" in summary and "compression" in summary
    assert "first merges:" in summary and "last merges:" in summary
    expected = train(corpus, 320, pretokenizer=pretokenizer, special_tokens=["<|endoftext|>"])
    model_text = (tmp_path / "model.model").read_text(encoding="utf-8")
    assert model_text == to_minbpe_model(expected.tokenizer)
    assert (tmp_path / "model.vocab").read_text(encoding="utf-8").startswith("[\\u0000] 0\n")

    text = "The last merges, again: <|endoftext|> and   spaces.\n"
    (tmp_path / "text.txt").write_text(text, encoding="utf-8")
    ids_text = ok(run_cli(tmp_path, "encode", "--model", "model.model", "--file", "text.txt"))
    ids = json.loads(ids_text)
    assert ids == expected.tokenizer.encode(text) and 320 in ids  # the special token's id
    (tmp_path / "ids.json").write_text(ids_text, encoding="utf-8")
    decoded = run_cli(tmp_path, "decode", "--model", "model.model", "--file", "ids.json")
    assert decoded.returncode == 0 and decoded.stdout == text.encode("utf-8")

    inline = ok(run_cli(tmp_path, "encode", "--model", "model.model", "--text", text))
    assert json.loads(inline) == ids


def test_non_utf8_file_trains_on_its_bytes_and_says_so(tmp_path: Path) -> None:
    data = b"caf\xe9 caf\xe9 \xff\xfe latin-1 text, caf\xe9 again\n" * 5
    (tmp_path / "latin1.txt").write_bytes(data)
    options = ("--vocab-size", "270", "--pretokenizer", "bytes", "--out", "m")
    result = run_cli(tmp_path, "train", "latin1.txt", *options)
    ok(result)
    assert "not UTF-8" in stderr_of(result) and "raw bytes" in stderr_of(result)
    ids = ok(run_cli(tmp_path, "encode", "--model", "m.model", "--file", "latin1.txt"))
    assert json.loads(ids) == train(data, 270).tokenizer.encode(data)
    decoded = run_cli(tmp_path, "decode", "--model", "m.model", "--ids", ids)
    assert decoded.returncode == 0 and decoded.stdout == data


def test_cl100k_encode_and_decode(tmp_path: Path) -> None:
    text = "Hello, how are you doing today?"
    ids = ok(run_cli(tmp_path, "encode", "--encoding", "cl100k_base", "--text", text))
    assert json.loads(ids) == [9906, 11, 1268, 527, 499, 3815, 3432, 30]
    decoded = ok(run_cli(tmp_path, "decode", "--encoding", "cl100k_base", "--ids", ids))
    assert decoded == text


def test_o200k_encode_and_decode_match_tiktoken(tmp_path: Path) -> None:
    from tiktoken_oracle import tiktoken_encoding

    text = "CamelCase words, 12345 and 日本語<|endoftext|>"
    ids = ok(run_cli(tmp_path, "encode", "--encoding", "o200k_base", "--text", text))
    assert json.loads(ids) == tiktoken_encoding("o200k_base").encode(text, allowed_special="all")
    decoded = ok(run_cli(tmp_path, "decode", "--encoding", "o200k_base", "--ids", ids))
    assert decoded == text


def test_encode_with_a_tiktoken_file(tmp_path: Path) -> None:
    (tmp_path / "ranks.tiktoken").write_text(
        to_tiktoken(train("aaabdaaabac", 259).tokenizer), encoding="utf-8"
    )
    ids = ok(run_cli(tmp_path, "encode", "--model", "ranks.tiktoken", "--text", "aaabdaaabac"))
    assert json.loads(ids) == [258, 100, 258, 97, 99]


# ---- history ------------------------------------------------------------------------------


def test_history_jsonl_on_aaabdaaabac(tmp_path: Path) -> None:
    """Worked by hand (minbpe's ``first`` order): aa occurs 4 times counting overlaps; then
    aa+a and a+b tie at 2 and aa+a comes first in the text; then aaa+b, 2 times."""
    (tmp_path / "a.txt").write_text("aaabdaaabac", encoding="utf-8")
    out = ok(run_cli(tmp_path, "history", "a.txt", "--vocab-size", "259", "--jsonl"))
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 3
    assert [(r["left_id"], r["right_id"]) for r in records] == [(97, 97), (256, 97), (257, 98)]
    assert [r["count"] for r in records] == [4, 2, 2]
    assert [r["new_id"] for r in records] == [256, 257, 258]
    assert [r["token"] for r in records] == ["aa", "aaa", "aaab"]
    assert [r["token_hex"] for r in records] == ["6161", "616161", "61616162"]
    assert [r["tokens_after"] for r in records] == [9, 7, 5]
    assert [r["replacements"] for r in records] == [2, 2, 2]
    assert records[1]["tied_ids"] == [[256, 97], [97, 98]] and records[1]["tie_count"] == 2
    assert records[1]["tied"] == "[aa][a] [a][b]"
    assert records[0]["tied_ids"] == [] and records[0]["rule"] == "first"


def test_history_jsonl_counts_every_tied_pair(tmp_path: Path) -> None:
    """61 different characters: 60 pairs, each once, all tied for the first merge. The trainer
    records only the first ``MAX_TIED_RECORDED`` (2: the winner and the runner-up, in text
    order); ``tie_count`` still says 60."""
    (tmp_path / "t.txt").write_text("".join(map(chr, range(33, 94))), encoding="utf-8")
    options = ("--vocab-size", "257", "--pretokenizer", "bytes", "--jsonl")
    out = ok(run_cli(tmp_path, "history", "t.txt", *options))
    (record,) = [json.loads(line) for line in out.splitlines()]
    assert (record["left_id"], record["right_id"]) == (33, 34) and record["count"] == 1
    assert record["tie_count"] == 60
    assert record["tied_ids"] == [[33, 34], [34, 35]]
    assert len(record["tied_ids"]) == MAX_TIED_RECORDED


def test_history_table_ends_with_the_stop_reason(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("aaabdaaabac", encoding="utf-8")
    out = ok(run_cli(tmp_path, "history", "a.txt", "--vocab-size", "259", "--tie-break", "lexmin"))
    lines = out.splitlines()
    assert "[a][b] -> [ab]" in lines[2] and "tie of 2, rule lexmin" in lines[2]
    assert lines[-1] == train("aaabdaaabac", 259).stop_reason


# ---- what cannot be saved -----------------------------------------------------------------


def test_end_of_word_training_writes_the_vocab_and_explains_the_missing_model(
    tmp_path: Path,
) -> None:
    (tmp_path / "words.txt").write_text("low lower lowest newer newest " * 3, encoding="utf-8")
    result = run_cli(
        tmp_path,
        "train",
        "words.txt",
        "--vocab-size",
        "265",
        "--pretokenizer",
        "words",
        "--end-of-word",
        "--out",
        "w",
    )
    summary = ok(result)
    assert "</w>" in (tmp_path / "w.vocab").read_text(encoding="utf-8")
    assert not (tmp_path / "w.model").exists()
    assert "w.model not written" in stderr_of(result) and "</w>" in stderr_of(result)
    assert "wrote w.vocab" in summary


# ---- bad input ----------------------------------------------------------------------------

BAD_INPUTS = [
    pytest.param({"e.txt": b""}, ["train", "e.txt", "--vocab-size", "300", "--out", "m"],
                 "'e.txt' is empty", id="empty-file"),
    pytest.param({"one.txt": b"a"}, ["train", "one.txt", "--vocab-size", "300", "--out", "m"],
                 "too short to learn anything", id="one-character"),
    pytest.param({"t.txt": b"abcabc"}, ["train", "t.txt", "--vocab-size", "100", "--out", "m"],
                 "smaller than the 256 base symbols (256 bytes): use at least 256",
                 id="vocab-too-small"),
    pytest.param({"t.txt": b"abcabc"}, ["train", "t.txt", "--vocab-size", "5000", "--out", "m"],
                 "at most 261 (256 base symbols + 5 merges", id="vocab-too-large"),
    pytest.param({"t.txt": b"abcabc"},
                 ["train", "t.txt", "--vocab-size", "2000000", "--out", "m"],
                 "above the limit of 1,000,000", id="vocab-huge"),
    pytest.param({"t.txt": b"abcabc"},
                 ["train", "t.txt", "--vocab-size", "260", "--pretokenizer", "bpe", "--out", "m"],
                 "invalid choice: 'bpe'", id="unknown-pretokenizer"),
    pytest.param({"t.txt": b"abcabc"},
                 ["train", "t.txt", "--vocab-size", "lots", "--out", "m"],
                 "invalid int value", id="vocab-not-a-number"),
    pytest.param({"t.txt": b"abcabc"},
                 ["train", "t.txt", "--vocab-size", "258", "--end-of-word", "--out", "m"],
                 "end-of-word marker needs the 'words' pre-tokenizer",
                 id="end-of-word-needs-words"),
    pytest.param({"t.txt": b"abcabc"},
                 ["train", "t.txt", "--vocab-size", "258", "--min-frequency", "0", "--out", "m"],
                 "Minimum frequency must be at least 1", id="min-frequency"),
    pytest.param({}, ["train", "missing.txt", "--vocab-size", "300", "--out", "m"],
                 "cannot read the training file 'missing.txt': no such file", id="missing-file"),
    pytest.param({}, ["history", "missing.txt", "--vocab-size", "300"],
                 "no such file", id="history-missing-file"),
    pytest.param({"bad.model": b"minbpe v1\n\n0\n97 97\nx y z\n"},
                 ["encode", "--model", "bad.model", "--text", "hi"],
                 "line 5 of the .model file: expected two ids 'idx1 idx2', got 'x y z'",
                 id="malformed-model"),
    pytest.param({"bad.model": b"minbpe v9\n"}, ["decode", "--model", "bad.model", "--ids", "[1]"],
                 "line 1 of the .model file: expected 'minbpe v1'", id="wrong-header"),
    pytest.param({}, ["encode", "--model", "nope.model", "--text", "hi"],
                 "cannot read the model file 'nope.model'", id="missing-model"),
    pytest.param({"m.vocab": b"[a] 97\n"}, ["encode", "--model", "m.vocab", "--text", "hi"],
                 "cannot be read back", id="vocab-is-not-a-model"),
    pytest.param({"a.model": (FIXTURES / "aaabdaaabac.model").read_bytes()},
                 ["decode", "--model", "a.model", "--ids", "[97, 999]"],
                 "id 999 is not in this tokenizer's vocabulary", id="id-outside-vocab"),
    pytest.param({}, ["decode", "--encoding", "cl100k_base", "--ids", "[100256]"],
                 "id 100256 is not in this tokenizer's vocabulary", id="cl100k-hole"),
    pytest.param({}, ["decode", "--encoding", "cl100k_base", "--ids", "[1, 2"],
                 "--ids: expected a JSON list of token ids", id="ids-not-json"),
    pytest.param({}, ["decode", "--encoding", "cl100k_base", "--ids", '{"a": 1}'],
                 "--ids: expected a JSON list of token ids", id="ids-not-a-list"),
    pytest.param({}, ["decode", "--encoding", "cl100k_base", "--ids", "[1.5]"],
                 "--ids: expected a JSON list of token ids", id="ids-not-integers"),
    pytest.param({}, ["encode", "--text", "hi"],
                 "one of the arguments --model --encoding is required", id="no-model"),
    pytest.param({}, ["encode", "--encoding", "p50k_edit", "--text", "hi"],
                 "unknown encoding or model 'p50k_edit'", id="unknown-encoding"),
    pytest.param({}, ["encode", "--encoding", "gpt-oss-120b", "--text", "hi"],
                 "gpt-oss-120b uses the o200k_harmony encoding, which bpeviz does not ship",
                 id="unshipped-encoding"),
    pytest.param({}, [], "the following arguments are required: COMMAND", id="no-command"),
]  # fmt: skip


@pytest.mark.parametrize(("files", "args", "message"), BAD_INPUTS)
def test_bad_input_gives_a_message_and_exit_status_2(
    files: dict[str, bytes], args: list[str], message: str, tmp_path: Path
) -> None:
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    result = run_cli(tmp_path, *args)
    stderr = stderr_of(result)
    assert result.returncode == 2, stderr
    assert "Traceback" not in stderr
    assert message in stderr
    assert not (tmp_path / "m.model").exists()


# ---- progress (in process) ----------------------------------------------------------------


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_progress_is_quiet_for_short_work() -> None:
    stream = _Stream(tty=False)
    progress = cli._Progress(stream)
    progress(50, 100)
    progress.close()
    assert stream.getvalue() == ""


@pytest.mark.parametrize("tty", [False, True])
def test_progress_reports_long_work(tty: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "PROGRESS_DELAY", 0.0)
    stream = _Stream(tty=tty)
    progress = cli._Progress(stream)
    for step in range(1, 101):
        progress(step, 100)
    progress.close()
    text = stream.getvalue()
    assert "training: 100/100 merges (100%)" in text
    if tty:
        assert text.count("\r") == 100 and text.endswith("\n")
    else:
        assert len(text.splitlines()) == 11  # 1%, then every tenth


def test_html_writes_one_page_that_carries_the_run(tmp_path: Path) -> None:
    """``html``: one self-contained page: the step view's script and the run's record
    inline, nothing fetched (no ``src=`` or ``href=`` at all)."""
    source = tmp_path / "aaabdaaabac.txt"
    source.write_text("aaabdaaabac", encoding="utf-8")
    page = tmp_path / "run.html"
    assert cli.main([
        "html", str(source), "--vocab-size", "259", "--tie-break", "lexmin", "--out", str(page)
    ]) == 0  # fmt: skip
    text = page.read_text(encoding="utf-8")
    record = json.loads(text.split('id="bpeviz-run">')[1].split("</script>")[0])
    # Wikipedia's walk-through: (a,a) as 256, then (a,b) as 257, then (256, 257) as 258.
    assert [merge[:3] for merge in record["merges"]] == [[97, 97, 256], [97, 98, 257],
                                                         [256, 257, 258]]  # fmt: skip
    assert "mountPage();" in text and "src=" not in text and "href=" not in text


def test_html_on_an_empty_file_says_so(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = tmp_path / "empty.txt"
    source.write_bytes(b"")
    assert cli.main(["html", str(source), "--vocab-size", "300", "--out", str(tmp_path / "x")]) == 2
    assert "empty" in capsys.readouterr().err


@pytest.mark.parametrize("pretokenizer", ["bytes", "gpt4"])
def test_train_writes_a_tokenizer_json_that_tokenizers_reads(
    pretokenizer: str, tmp_path: Path
) -> None:
    """``--tokenizer-json``: Hugging Face's loader gives the ids our ``encode`` prints."""
    from tokenizers import Tokenizer as HFTokenizer

    (tmp_path / "corpus.txt").write_text(ENGLISH, encoding="utf-8")
    ok(
        run_cli(
            tmp_path,
            "train",
            "corpus.txt",
            "--vocab-size",
            "320",
            "--pretokenizer",
            pretokenizer,
            "--special",
            "<|endoftext|>",
            "--out",
            "m",
            "--tokenizer-json",
        )
    )
    hf = HFTokenizer.from_file(str(tmp_path / "m.tokenizer.json"))
    text = "The printer<|endoftext|> counted  pairs\n"
    ids = ok(run_cli(tmp_path, "encode", "--model", "m.tokenizer.json", "--text", text))
    assert json.loads(ids) == hf.encode(text).ids
    ids = ok(run_cli(tmp_path, "encode", "--model", "m.model", "--text", text))
    assert json.loads(ids) == hf.encode(text).ids


def test_train_refuses_a_words_tokenizer_json_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "corpus.txt").write_text(ENGLISH, encoding="utf-8")
    result = run_cli(
        tmp_path,
        "train",
        "corpus.txt",
        "--vocab-size",
        "300",
        "--pretokenizer",
        "words",
        "--out",
        "m",
        "--tokenizer-json",
    )
    assert result.returncode == 2
    assert "m.tokenizer.json not written" in stderr_of(result)
    assert "never merges the whitespace between words" in stderr_of(result)
    assert not (tmp_path / "m.tokenizer.json").exists()


def test_encode_seed_000_gpt4o_chat_markup(tmp_path: Path) -> None:
    """Seed 000: the model name brings gpt-4o's chat tokens, so the markup gives its ids."""
    text = (
        "<|im_start|>system<|im_sep|>write an ode on the end of universe.<|im_end|>"
        "<|im_start|>assistant<|im_sep|>"
    )
    ids = ok(run_cli(tmp_path, "encode", "--encoding", "gpt-4o", "--text", text))
    assert json.loads(ids) == [
        200264, 17360, 200266, 9566, 448, 58840, 402, 290, 1268, 328, 28714, 13, 200265, 200264,
        173781, 200266,
    ]  # fmt: skip


def test_encode_gpt2_hello_world(tmp_path: Path) -> None:
    """Seed 001: GPT-2's "Hello world"."""
    assert json.loads(
        ok(run_cli(tmp_path, "encode", "--encoding", "gpt2", "--text", "Hello world"))
    ) == [15496, 995]


def test_encode_tekken_puts_mistrals_bos_first(
    tmp_path: Path, unavailable: Callable[[str], None]
) -> None:
    """mistral-common's Tekkenizer gives "Hello world" as [1, 22177, 4304] with its BOS; the
    text's own ids are tiktoken's on the same file (tests/tekken_oracle.py)."""
    from tekken_oracle import OFFERED, recipe_ids

    if not OFFERED:
        unavailable("the mistral-common wheel is not downloaded (make tekken)")
    text = "Hello world, 東京 🙂 [INST]"
    assert json.loads(
        ok(run_cli(tmp_path, "encode", "--encoding", "tekken_240911", "--text", "Hello world"))
    ) == [1, 22177, 4304]
    (tmp_path / "text.txt").write_text(text, encoding="utf-8")
    ids = ok(run_cli(tmp_path, "encode", "--encoding", "tekken_240911", "--file", "text.txt"))
    assert json.loads(ids) == [1, *recipe_ids("Hello world, 東京 🙂 "), 3]  # [INST] is 3
    decoded = ok(run_cli(tmp_path, "decode", "--encoding", "tekken_240911", "--ids", ids))
    assert decoded == "<s>" + text


def test_tekken_without_its_wheel_says_what_to_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from bpeviz.real import mistral_tekken
    monkeypatch.setattr(mistral_tekken, "wheel_path", lambda: tmp_path / "absent.whl")
    mistral_tekken.load_tekken.cache_clear()
    try:
        status = cli.main(["encode", "--encoding", "tekken_240911", "--text", "hi"])
    finally:
        mistral_tekken.load_tekken.cache_clear()
    error = capsys.readouterr().err
    assert status == 2 and "Traceback" not in error
    assert "tekken_240911 (Mistral's Tekken) is not offered" in error and "make tekken" in error


# ---- bounded, and never a traceback (issue 17) --------------------------------------------


ENDLESS = [
    pytest.param(["train", "-", "--vocab-size", "300", "--out", "x"], id="train"),
    pytest.param(["encode", "--encoding", "cl100k_base", "--file", "-"], id="encode"),
    pytest.param(["decode", "--encoding", "cl100k_base", "--file", "-"], id="decode"),
    pytest.param(["encode", "--model", "-", "--text", "x"], id="model"),
]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("args", ENDLESS)
def test_an_endless_input_is_refused_after_the_documented_size(
    args: list[str], tmp_path: Path
) -> None:
    """It grew to 22 GB and was killed; now at most ``MAX_READ_BYTES`` are read (standard
    input is the one endless thing the CLI reads: ``/dev/zero`` named is a device, refused)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with open("/dev/zero", "rb") as zeros:
        result = subprocess.run(
            [sys.executable, "-m", "bpeviz", *args], cwd=tmp_path, env=env, stdin=zeros,
            capture_output=True, timeout=300, check=False,
        )  # fmt: skip
    assert result.returncode == 2 and b"Traceback" not in result.stderr
    assert f"at most {cli.MAX_READ_BYTES // 2**20} MiB" in stderr_of(result)


def test_deeply_nested_ids_get_a_message(tmp_path: Path) -> None:
    (tmp_path / "ids.json").write_text("[" * 100_000 + "]" * 100_000)
    result = run_cli(tmp_path, "decode", "--encoding", "cl100k_base", "--file", "ids.json")
    assert result.returncode == 2 and b"Traceback" not in result.stderr
    assert "a JSON list of token ids" in stderr_of(result)


def test_a_pattern_that_would_hang_is_refused(tmp_path: Path) -> None:
    (tmp_path / "evil.model").write_text("minbpe v1\n(?:[\\s\\S]|[\\s\\S])*\\x00|.\n0\n")
    result = run_cli(tmp_path, "encode", "--model", "evil.model", "--text", "hello " * 100)
    assert result.returncode == 2 and b"Traceback" not in result.stderr
    assert "backtracks too much" in stderr_of(result)


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (MemoryError(), "ran out of memory"),
        (RecursionError("maximum recursion depth exceeded"), "nests too deep"),
        (TypeError("'int' object is not subscriptable"), "internal error"),
    ],
    ids=["memory", "recursion", "bug"],
)
def test_no_error_ends_in_a_traceback(
    error: BaseException, message: str, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    def fail(args: object) -> None:
        raise error

    monkeypatch.setattr(cli, "_encode", fail)
    status = cli.main(["encode", "--encoding", "cl100k_base", "--text", "x"])
    err = capsys.readouterr().err
    assert status != 0 and message in err and "Traceback" not in err


def test_the_train_summary_says_one_merge(tmp_path: Path) -> None:
    """It said "256 base + 1 merges"."""
    (tmp_path / "aa.txt").write_text("aa")
    summary = ok(run_cli(tmp_path, "train", "aa.txt", "--vocab-size", "257", "--out", "aa"))
    assert "(vocab 257 = 256 base + 1 merge)" in summary
    assert "merges: 1 of 1 requested" in summary


def test_a_bad_regex_in_a_model_file_is_one_line(tmp_path: Path) -> None:
    """A minbpe .model holds its split pattern: one that does not compile is named."""
    (tmp_path / "bad.model").write_text("minbpe v1\n[a-\n0\n97 97\n")
    result = run_cli(tmp_path, "encode", "--model", "bad.model", "--text", "aa")
    stderr = stderr_of(result)
    assert result.returncode == 2, stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr
    assert "the split pattern '[a-' is not a valid regular expression" in stderr


def test_decode_on_a_terminal_ends_its_line(tmp_path: Path) -> None:
    """On a terminal the text is followed by a newline, so the prompt starts a line of its
    own; into a pipe or a file (the round trips above) the bytes stay exact. cl100k_base's
    [9906, 11] is "Hello," (tiktoken)."""
    import pty

    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.run(
        [sys.executable, "-m", "bpeviz", "decode", "--encoding", "cl100k_base",
         "--ids", "[9906, 11]"],
        cwd=tmp_path, env=env, stdout=follower, stderr=subprocess.PIPE, timeout=300, check=False,
    )  # fmt: skip
    os.close(follower)
    written = b""
    with contextlib.suppress(OSError):  # the terminal closed: all of it read
        while chunk := os.read(leader, 1024):
            written += chunk
    os.close(leader)
    assert process.returncode == 0, process.stderr
    assert written.replace(b"\r\n", b"\n") == b"Hello,\n"


def test_train_defaults_to_the_apps_pre_tokenizer(tmp_path: Path) -> None:
    """Without --pretokenizer the CLI trains as the app's sidebar does (gpt4). "e e e", worked
    by hand: gpt4 cuts it into "e", " e", " e", so the one merge is " " + "e" (32 101), twice;
    as one byte sequence (bytes) "e" + " " and " " + "e" tie at 2 and "first" takes "e" + " "."""
    (tmp_path / "t.txt").write_text("e e e", encoding="utf-8")
    summary = ok(run_cli(tmp_path, "train", "t.txt", "--vocab-size", "257", "--out", "m"))
    assert "pre-tokenizer gpt4, tie-break first" in summary
    model = (tmp_path / "m.model").read_text(encoding="utf-8").splitlines()
    assert model[-1] == "32 101"


# ---- never hangs, never clobbers (issue 29) -----------------------------------------------

HANG_SECONDS = 60  # each of these hung forever before; a refusal takes well under a second
TEXT = b"low lower lowest newer newest " * 20


def refused(result: subprocess.CompletedProcess[bytes], *phrases: str) -> str:
    """The one-line refusal of a run that must fail with exit status 2."""
    stderr = stderr_of(result)
    assert result.returncode == 2, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    for phrase in phrases:
        assert phrase in stderr
    return stderr


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["train", "fifo", "--vocab-size", "260", "--out", "m"], id="train"),
        pytest.param(["history", "fifo", "--vocab-size", "260"], id="history"),
        pytest.param(["encode", "--encoding", "cl100k_base", "--file", "fifo"], id="encode"),
        pytest.param(["encode", "--model", "fifo", "--text", "hi"], id="model"),
        pytest.param(["decode", "--encoding", "cl100k_base", "--file", "fifo"], id="decode"),
    ],
)
def test_a_fifo_as_input_is_refused_not_waited_on(args: list[str], tmp_path: Path) -> None:
    """Opening a FIFO waited forever for a writer."""
    os.mkfifo(tmp_path / "fifo")
    result = run_cli(tmp_path, *args, timeout=HANG_SECONDS)
    refused(result, "'fifo' is a named pipe (FIFO), not a regular file")


@pytest.mark.parametrize(
    ("path", "kind"),
    [("/dev/zero", "a device"), ("/dev/null", "a device"), (".", "a directory")],
)
def test_devices_and_directories_are_refused_as_inputs(
    path: str, kind: str, tmp_path: Path
) -> None:
    """``/dev/zero`` was read for 64 MiB first, ``/dev/null`` called empty."""
    if not Path(path).exists():
        pytest.skip(f"no {path}")
    result = run_cli(tmp_path, "train", path, "--vocab-size", "260", "--out", "m")
    refused(result, f"{path!r} is {kind}, not a regular file", "'-' for standard input")


def test_standard_input_is_read_when_named_dash(tmp_path: Path) -> None:
    summary = ok(run_cli(tmp_path, "train", "-", "--vocab-size", "260", "--pretokenizer",
                         "bytes", "--out", "m", stdin=TEXT))  # fmt: skip
    assert "trained on standard input" in summary
    expected = train(TEXT.decode(), 260)
    assert (tmp_path / "m.model").read_text() == to_minbpe_model(expected.tokenizer)
    ids = json.loads(ok(run_cli(tmp_path, "encode", "--model", "m.model", "--file", "-",
                                stdin=b"lowest")))  # fmt: skip
    assert ids == expected.tokenizer.encode("lowest")


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["train", "t.txt", "--vocab-size", "260", "--out", "fifo"], id="train"),
        pytest.param(["html", "t.txt", "--vocab-size", "260", "--out", "fifo.html"], id="html"),
    ],
)
def test_a_fifo_as_out_is_refused_not_waited_on(args: list[str], tmp_path: Path) -> None:
    """Writing to a FIFO waited forever for a reader."""
    (tmp_path / "t.txt").write_bytes(TEXT)
    target = "fifo.model" if args[0] == "train" else "fifo.html"
    os.mkfifo(tmp_path / target)
    result = run_cli(tmp_path, *args, timeout=HANG_SECONDS)
    refused(result, f"{target!r} is a named pipe (FIFO), not a regular file")
    assert not (tmp_path / "fifo.vocab").exists()  # nothing written when one target is refused


@pytest.mark.parametrize("prefix", ["/dev/full", "/dev/null", "."])
def test_out_naming_a_device_or_directory_is_refused(prefix: str, tmp_path: Path) -> None:
    """As root, ``--out /dev/full`` created ``/dev/full.model`` and ``/dev/full.vocab``."""
    if not Path(prefix).exists():
        pytest.skip(f"no {prefix}")
    (tmp_path / "t.txt").write_bytes(TEXT)
    before = set(Path(prefix).parent.iterdir()) if prefix != "." else set(tmp_path.iterdir())
    result = run_cli(tmp_path, "train", "t.txt", "--vocab-size", "260", "--out", prefix)
    after = set(Path(prefix).parent.iterdir()) if prefix != "." else set(tmp_path.iterdir())
    for made in after - before:  # the bug's own files (/dev/full.model), not left behind
        made.unlink()
    assert after == before
    refused(result, f"--out {prefix!r} is a", "not a file name prefix")


def test_out_does_not_overwrite_without_force(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_bytes(TEXT)
    (tmp_path / "m.vocab").write_text("mine")
    result = run_cli(tmp_path, "train", "t.txt", "--vocab-size", "260", "--out", "m")
    refused(result, "'m.vocab' already exists", "--force")
    assert (tmp_path / "m.vocab").read_text() == "mine"
    assert not (tmp_path / "m.model").exists()  # all targets checked before any is written

    inode = (tmp_path / "m.vocab").stat().st_ino
    ok(run_cli(tmp_path, "train", "t.txt", "--vocab-size", "260", "--out", "m", "--force"))
    assert (tmp_path / "m.vocab").read_text().startswith("[\\u0000] 0\n")
    # Written through a temporary file renamed into place: a new file, none left beside it.
    assert (tmp_path / "m.vocab").stat().st_ino != inode
    assert sorted(path.name for path in tmp_path.iterdir()) == ["m.model", "m.vocab", "t.txt"]


def test_html_out_does_not_overwrite_without_force(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_bytes(TEXT)
    (tmp_path / "run.html").write_text("mine")
    args = ["html", "t.txt", "--vocab-size", "260", "--out", "run.html"]
    refused(run_cli(tmp_path, *args), "'run.html' already exists", "--force")
    assert (tmp_path / "run.html").read_text() == "mine"
    ok(run_cli(tmp_path, *args, "--force"))
    assert "mountPage();" in (tmp_path / "run.html").read_text()


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["plain", "force"])
def test_out_never_writes_onto_an_input(force: list[str], tmp_path: Path) -> None:
    """``train book.vocab --out book`` overwrote its own input."""
    (tmp_path / "book.vocab").write_bytes(TEXT)
    result = run_cli(tmp_path, "train", "book.vocab", "--vocab-size", "260", "--out", "book",
                     *force)  # fmt: skip
    refused(result, "'book.vocab' is the input", "choose another --out")
    assert (tmp_path / "book.vocab").read_bytes() == TEXT
    (tmp_path / "page.html").write_bytes(TEXT)
    result = run_cli(tmp_path, "html", "page.html", "--vocab-size", "260", "--out", "page.html",
                     *force)  # fmt: skip
    refused(result, "'page.html' is the input")
    assert (tmp_path / "page.html").read_bytes() == TEXT


def test_out_does_not_follow_a_symlink(tmp_path: Path) -> None:
    """``--out`` wrote through a symbolic link into the file it points at."""
    (tmp_path / "t.txt").write_bytes(TEXT)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "m.model").symlink_to(victim)
    result = run_cli(tmp_path, "train", "t.txt", "--vocab-size", "260", "--out", "m")
    refused(result, "'m.model' already exists", "--force")
    assert victim.read_text() == "keep me"
    # With --force the link itself is replaced by the new file; what it pointed at is kept.
    ok(run_cli(tmp_path, "train", "t.txt", "--vocab-size", "260", "--out", "m", "--force"))
    assert victim.read_text() == "keep me"
    assert not (tmp_path / "m.model").is_symlink()
    assert (tmp_path / "m.model").read_text().startswith("minbpe v1")
    # A link to an input is never written through either, with --force or not.
    (tmp_path / "n.vocab").symlink_to(tmp_path / "t.txt")
    result = run_cli(tmp_path, "train", "t.txt", "--vocab-size", "260", "--out", "n", "--force")
    assert (tmp_path / "t.txt").read_bytes() == TEXT
