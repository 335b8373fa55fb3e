"""Every example in README.md and docs/ runs, and prints what the text says it prints.

Examples drift from the code unless something runs them (issue 30 found an `encode --model
tokenizer.json` after a `train` that wrote `book.tokenizer.json`, and `2` where Python prints
`np.int64(2)`). A ```pycon block is a doctest session. A ```sh block is a shell session: each
`$ command` (a trailing backslash continues it) runs in a temporary directory holding
`sample_texts/`, `.venv/bin/python` standing for this Python, and the lines up to the next `$`
are its output, where `...` stands for any text. A block that starts a server or a benchmark
says ```sh no-run; the list of those is held here, so no example slips out of the suite.
Also held: the README stays a front door (at most 12 KB) and every relative link resolves.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```([\w-]+)([^\n]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
SHELLS = {"sh", "bash", "shell", "console"}
PYTHONS = {"pycon", "python"}
README_MAX_BYTES = 12_288
# The blocks that cannot run in a test: they start the app, a class's servers or a benchmark.
NO_RUN = {  # (document, the block's first line without its comment)
    ("README.md", "make run"),
    ("docs/testing.md", "make test"),
    ("docs/teaching.md", ".venv/bin/python benchmarks/live_class.py"),
    ("docs/teaching.md", ".venv/bin/python benchmarks/classroom_load.py"),
    ("docs/teaching.md", "make serve WORKERS=2"),
}


class Block(NamedTuple):
    document: str  # path relative to the repository
    line: int
    language: str
    info: str
    body: str

    @property
    def name(self) -> str:
        return f"{self.document}:{self.line}"


def blocks() -> list[Block]:
    found = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(Block(str(path.relative_to(ROOT)), line, match.group(1),
                               match.group(2).strip(), match.group(3)))
    return found


def runnable(languages: set[str]) -> list[Block]:
    return [b for b in blocks() if b.language in languages and "no-run" not in b.info.split()]


@pytest.mark.parametrize("block", runnable(PYTHONS), ids=lambda b: b.name)
def test_python_example_prints_what_it_says(block: Block, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    assert ">>> " in block.body, "write a Python example as a >>> session so its output is checked"
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(block.body, {}, block.name, block.document,
                                               block.line)
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=report.append)
    assert result.failed == 0, "".join(report)


def shell_steps(body: str) -> list[tuple[str, str]]:
    """`$ command` lines (joined over trailing backslashes) and the output that follows each."""
    steps: list[tuple[str, list[str]]] = []
    continuing = False
    for line in body.splitlines():
        if continuing:
            steps[-1] = (steps[-1][0] + "\n" + line, steps[-1][1])
        elif line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"output before any `$ command`: {line!r}"
            steps[-1][1].append(line)
        continuing = line.endswith("\\") and not steps[-1][1]
    return [(command, "\n".join(output).strip()) for command, output in steps]


def matches(expected: str, actual: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual.strip(), re.DOTALL) is not None


@pytest.mark.parametrize("block", runnable(SHELLS), ids=lambda b: b.name)
def test_shell_example_prints_what_it_says(block: Block, tmp_path: Path) -> None:
    (tmp_path / "sample_texts").symlink_to(ROOT / "sample_texts")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    steps = shell_steps(block.body)
    assert steps, "a shell example holds `$ command` lines"
    for command, expected in steps:
        script = command.replace(".venv/bin/python", shlex.quote(sys.executable))
        done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, text=True,
                              capture_output=True, timeout=120)
        actual = done.stdout + done.stderr
        assert done.returncode == 0, f"$ {command}\nexit {done.returncode}\n{actual}"
        assert matches(expected, actual), f"$ {command}\nexpected:\n{expected}\ngot:\n{actual}"


def test_the_blocks_that_do_not_run_are_the_expected_few() -> None:
    skipped = {(b.document, b.body.splitlines()[0].partition("#")[0].strip())
               for b in blocks() if "no-run" in b.info.split()}
    assert skipped == NO_RUN


def test_every_example_is_python_or_shell_or_data() -> None:
    languages = {b.language for b in blocks()}
    assert languages <= PYTHONS | SHELLS | {"toml", "text"}, languages


def test_the_readme_is_a_front_door() -> None:
    assert (ROOT / "README.md").stat().st_size <= README_MAX_BYTES


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.MULTILINE)}


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(document: Path) -> None:
    text = FENCE.sub("", document.read_text(encoding="utf-8"))
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: not ours to check offline
        file_part, _, anchor = target.partition("#")
        path = (document.parent / file_part).resolve() if file_part else document
        if not path.exists() or (anchor and path.suffix == ".md" and anchor not in anchors(path)):
            broken.append(target)
    assert not broken, f"{document.name}: {broken}"


def test_the_lesson_example_is_a_lesson_the_app_reads() -> None:
    from bpeviz.app.lesson.slides import parse_lesson

    (block,) = [b for b in blocks() if b.language == "toml"]
    lesson = parse_lesson(block.body)
    assert lesson.title == "BPE in ten minutes"
    assert [s.page for s in lesson.slides] == ["step", "tokenize"]
