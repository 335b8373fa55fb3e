"""The browser's pure functions (``bpeviz/web/core/record.js``), run by Node's own test runner
on records the engine makes here and held equal to the engine.

This writes, to a temporary folder, the one script the app serves (``bpeviz.web.script``, as
``bpeviz.mjs``) and ``cases.json``: per case a step record (``stepdata.payload``), a tokens
record (``tokendata.tokens_data``), and what the engine says they must give:
``History.segmentation`` at every step, the tokens outlined (``tests/step_outline.py``),
every token's whole entry (``tokendata.token_entry``), the quiz's choices (``quiz_order`` over
``History.pair_top``) and which of them are right (the merge and every pair tied with it,
``History.tied_pairs``), each token's build tree (the merge list), and the characters that
split tokens spell (cut where UTF-8 characters start in the text); and ``worked.json``, the
outlines of ``aaabdaaabac`` counted by hand; and ``link.json``, the Step page's link names
(``bpeviz.app.step.view.LINK``). Then ``node --test tests/js`` checks ``record.js``
against them. Node is Debian's ``nodejs``
(``scripts/install_system_deps.sh``); without it these skip, and fail under
``BPEVIZ_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pytest
from step_outline import step_outline

from bpeviz.app.step.view import LINK
from bpeviz.engine.history import History, train
from bpeviz.engine.wordpiece import train_wordpiece
from bpeviz.engine.wordpiece_history import WordPieceHistory
from bpeviz.records.step import TOP_PAIRS, payload, quiz_order
from bpeviz.records.tokens import token_entry, token_parents, tokens_data
from bpeviz.records.wordpiece_step import payload as wordpiece_payload
from bpeviz.web import SCRIPTS, asset, colour_index, script

TESTS = Path(__file__).parent / "js"

CASES = {
    "specials, split characters": ("日本 ab\nab</w> x<|e|>", 270, "bytes", False),
    "tokens longer than 24 bytes": ("the cat sat on the mat. " * 40, 400, "bytes", False),
    "long tokens, split characters": ("日本語の本を読む。" * 30, 400, "bytes", False),
    "end of word": ("low lower lowest newer wider " * 10, 300, "words", True),
    "emoji and accents, gpt4": ("café 🙂🙂 naïve 🙂 café\n\nnaïve" * 6, 330, "gpt4", False),
}

# The Step page's outlines of the Wikipedia example, counted by hand (rule first; the oracle,
# tests/step_outline.py, is held to the same counts in tests/test_step_outline.py):
# [step, "before"/"after", marks]. Step 0: a+a where merge 1 replaces it (the overlapping
# third "a" of each "aaa" is not replaced); after merge 1 (aa|a|b|d|aa|a|b|a|c) its two new
# tokens; before merge 2 (aa + a) both halves of its two occurrences.
WORKED_TEXT = "aaabdaaabac"
# The Hugging Face course's WordPiece corpus (LLM course, chapter 6): its words in order.
COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
WORKED_OUTLINES = [
    [0, "after", ["ps", "pe", "", "", "", "ps", "pe", "", "", "", ""]],
    [1, "after", ["new", "", "", "", "new", "", "", "", ""]],
    [2, "before", ["ps", "pe", "", "", "ps", "pe", "", "", ""]],
]


def tree(history: History, token_id: int) -> list[Any]:
    """``[id, children]`` down to single bytes, from the merge list itself."""
    made = {new: (left, right) for left, right, new in history.tokenizer.merges}
    if token_id not in made:
        return [token_id, []]
    return [token_id, [tree(history, part) for part in made[token_id]]]


def char_groups(text: bytes, starts: list[int], ids: list[int]) -> list[list[Any]]:
    """``[first, end, characters]`` of each run of two or more tokens joined by a boundary
    inside a UTF-8 character (a continuation byte starts the next token)."""
    groups: list[list[Any]] = []
    first = 0
    for index in range(1, len(ids) + 1):
        inside = index < len(ids) and 0x80 <= text[starts[index]] < 0xC0
        if inside:
            continue
        if index - first >= 2:
            end = starts[index] if index < len(ids) else len(text)
            groups.append([first, index, text[starts[first] : end].decode("utf-8")])
        first = index
    return groups


def case(text: str, vocab_size: int, pretokenizer: str, end_of_word: bool) -> dict[str, Any]:
    """One case: the records of a run and what the engine says they must give."""
    history = train(
        text,
        vocab_size,
        pretokenizer=pretokenizer,
        end_of_word=end_of_word,
        special_tokens=["<|e|>"],
        top_pairs=TOP_PAIRS,
    )
    tokenizer = history.tokenizer
    size = history.vocab_size + len(tokenizer.special_tokens)
    steps = range(history.merge_count + 1)
    cuts = [history.segmentation(k) for k in steps]
    final = cuts[-1]
    ids = final.ids.tolist()
    tops = [history.pair_top(k, TOP_PAIRS).rows for k in steps]
    return {
        "record": payload(history),
        "tokens": tokens_data(tokenizer, ids),
        "entries": [token_entry(tokenizer, token_id) for token_id in range(size)],
        "segmentation": [[cut.starts.tolist(), cut.ids.tolist()] for cut in cuts],
        "outlines": [
            [step_outline(history, k, before=before).marks for before in (True, False)]
            for k in steps
        ],
        "quiz": [
            [list(tops[k][row]) for row in quiz_order(k, len(tops[k]))]
            for k in range(history.merge_count)
        ],
        "next_pairs": [list(step.pair) for step in history.steps],
        "tied": [[list(pair) for pair in history.tied_pairs(k + 1)] for k in steps[:-1]],
        "trees": {str(token_id): tree(history, token_id) for token_id in set(ids)},
        "parents": {
            str(token_id): list(made)
            for token_id, made in token_parents(tokenizer, ids).items()
        },
        # with </w> (no bytes of the text) a token's start is not where its bytes are
        "groups": None if end_of_word else char_groups(history.text, final.starts.tolist(), ids),
    }


@pytest.fixture(scope="module")
def node(unavailable: Callable[[str], NoReturn]) -> str:
    found = shutil.which("node") or shutil.which("nodejs")
    if found is None:
        unavailable("Node.js is not installed (Debian: apt-get install nodejs)")
    return found


def test_the_browsers_pure_functions_agree_with_the_engine(node: str, tmp_path: Path) -> None:
    (tmp_path / "bpeviz.mjs").write_text(script(), encoding="utf-8")
    # the lesson's keys component, a module of its own (lesson_keys.test.mjs)
    (tmp_path / "lesson_keys.mjs").write_text(asset("step/lesson_keys.js"), encoding="utf-8")
    cases = {name: case(*settings) for name, settings in CASES.items()}
    (tmp_path / "cases.json").write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
    worked = {
        "record": payload(train(WORKED_TEXT, 259, top_pairs=TOP_PAIRS)),
        "outlines": WORKED_OUTLINES,
    }
    (tmp_path / "worked.json").write_text(json.dumps(worked), encoding="utf-8")
    # a WordPiece run of the Hugging Face course's corpus, by score (wordpiece.test.mjs)
    course = train_wordpiece(COURSE, 15, top_pairs=TOP_PAIRS)
    wordpiece = wordpiece_payload(WordPieceHistory(COURSE, course))
    (tmp_path / "wordpiece.json").write_text(json.dumps(wordpiece), encoding="utf-8")
    # the link's names and defaults, as the Step page gives them to the view (address.test.mjs)
    (tmp_path / "link.json").write_text(json.dumps(LINK), encoding="utf-8")
    # the palette colour of ids 0..99 as Python colours a chip (bpeviz.web.chip_html)
    colours = [colour_index(token_id) for token_id in range(100)]
    (tmp_path / "colours.json").write_text(json.dumps(colours), encoding="utf-8")
    tests = sorted(str(path) for path in TESTS.glob("*.test.mjs"))
    assert tests, "no tests/js/*.test.mjs"
    env = {**os.environ, "BPEVIZ_JS_CASES": str(tmp_path)}
    command = [node, "--test", "--test-reporter=spec", *tests]
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    ran = re.search(r"ℹ pass (\d+)", done.stdout)
    assert ran and int(ran.group(1)) > 0 and re.search(r"ℹ fail 0\b", done.stdout), done.stdout


_DEFINED = re.compile(
    r"^(?:export )?(?:default )?(?:async )?(?:function|class|const|let)\s+([A-Za-z_$][\w$]*)", re.M
)
_NOT_CODE = re.compile(r"//[^\n]*|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'")


def _uses(code: str, name: str) -> bool:
    """Whether ``code`` (comments and plain strings gone) uses the top-level ``name``: not
    as a property (``x.name``), an object's key (``name:``), or a name it declares itself
    (its own variable or a function's parameter)."""
    own = rf"\b(?:const|let|var|function|class)\s+{name}\b|function\s*\w*\s*\([^)]*\b{name}\b"
    if re.search(own, code):
        return False
    return re.search(rf"(?<![\w$.]){re.escape(name)}\b(?!:)", code) is not None


def test_each_script_uses_only_what_an_earlier_one_defines() -> None:
    """The joined script reads top to bottom: each file uses the top-level names of the files
    before it (or its own), never one that a later file defines."""
    home = {}
    for name in SCRIPTS:
        for found in _DEFINED.findall(asset(name)):
            home.setdefault(found, name)
    later = [
        f"{name} uses {used} of {home[used]}"
        for place, name in enumerate(SCRIPTS)
        for used in home
        if SCRIPTS.index(home[used]) > place and _uses(_NOT_CODE.sub("", asset(name)), used)
    ]
    assert later == [], later
