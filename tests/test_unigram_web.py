"""The browser's Unigram lattice (``bpeviz/web/step/unigram_lattice.js``) held equal to the
engine: on the records of real runs (:func:`bpeviz.records.unigram_step.unigram_payload`),
every drawn word of every round is cut by the browser exactly as
:meth:`UnigramModel.viterbi_log` cuts it under that round's whole vocabulary (pieces and log
score), and every segmentation of short words is listed as
:func:`~bpeviz.engine.unigram_lattice.all_segmentations` lists it. The hand-worked checks of
the same functions are in ``tests/js/unigram_lattice.test.mjs``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import numpy as np
import pytest

from bpeviz.engine.unigram import UnigramModel, train_unigram
from bpeviz.engine.unigram_lattice import all_segmentations
from bpeviz.records.unigram_step import unigram_payload
from bpeviz.web import script

CHECK = Path(__file__).parent / "js" / "unigram_engine.check.mjs"
SAMPLES = Path(__file__).resolve().parents[1] / "sample_texts"
JAPANESE = (SAMPLES / "japanese.txt").read_text(encoding="utf-8")
CASES = {
    "course": ("hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5, 12),
    "english": ((SAMPLES / "english.txt").read_text(encoding="utf-8"), 300),
    "japanese, emoji": (
        (SAMPLES / "japanese.txt").read_text(encoding="utf-8")[:400] + " 🙂🙂a",
        150,
    ),
}


@pytest.fixture(scope="module")
def node(unavailable: Callable[[str], NoReturn]) -> str:
    found = shutil.which("node") or shutil.which("nodejs")
    if found is None:
        unavailable("Node.js is not installed (Debian: apt-get install nodejs)")
    return found


def test_the_browser_cuts_every_round_as_the_engine(node: str, tmp_path: Path) -> None:
    runs = {name: train_unigram(text, size) for name, (text, size) in CASES.items()}
    records = {name: unigram_payload(runs[name], CASES[name][0]) for name in CASES}
    listed = {name: [w for w in records[name]["words"] if len(w) <= 7][:6] for name in CASES}
    cases = {name: {"record": records[name], "listed": listed[name]} for name in CASES}
    (tmp_path / "bpeviz.mjs").write_text(script(), encoding="utf-8")
    (tmp_path / "unigram.json").write_text(json.dumps(cases), encoding="utf-8")
    done = subprocess.run(
        [node, str(CHECK)],
        env={**os.environ, "BPEVIZ_JS_CASES": str(tmp_path)},
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    browser = json.loads(done.stdout)
    for name, run in runs.items():
        assert len(browser[name]) == len(run.rounds)
        for round_, seen in zip(run.rounds, browser[name], strict=True):
            logs = dict(zip(round_.pieces, np.log(round_.probabilities).tolist(), strict=True))
            model = UnigramModel.from_log_probs(logs)
            for word, (pieces, score) in zip(records[name]["words"], seen["cuts"], strict=True):
                assert [pieces, score] == list(model.viterbi_log(word)), (name, word)
            for word, found in zip(listed[name], seen["listed"], strict=True):
                expected = all_segmentations(word, logs)
                assert [pieces for pieces, _ in found] == [pieces for pieces, _ in expected]
                assert [p for _, p in found] == pytest.approx([p for _, p in expected])
