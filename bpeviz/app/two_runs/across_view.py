"""The Two runs page when the runs' algorithms differ (or both are WordPiece or Unigram).

What compares across algorithms (:mod:`bpeviz.app.two_runs.across`): the merges where both runs
merge, else one sentence on why not; the text as each run's tokenizer cuts it, with the cuts
only one run makes outlined; and the tokens each vocabulary learned. Both-BPE runs keep the
page's merge-by-merge view (compression curves, the text at any step, the merge tables).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from bpeviz.app.compare import boundaries as compare
from bpeviz.app.frame.run_settings import Settings
from bpeviz.app.frame.text_input import TrainingText
from bpeviz.app.frame.training import chosen_tokenizer, encode_or_stop, history_for, wordpiece_for
from bpeviz.app.frame.unigram_runs import unigram_run_for, unigram_text, unigram_tokenizer
from bpeviz.app.frame.widgets import caption, columns, show_table
from bpeviz.app.shared.choices import TRAINED
from bpeviz.app.shared.token_view import show_library_tokens, show_tokens
from bpeviz.app.two_runs import across
from bpeviz.app.two_runs import parting as runs
from bpeviz.app.two_runs import view as runs_view
from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.history import History
from bpeviz.engine.readable import counted
from bpeviz.engine.unigram import UnigramRun
from bpeviz.formats.hf_models import LibraryTokenizer
from bpeviz.records.schema import Mark

MAX_SHOWN_TOKENS = 3_000


def train_run(text: TrainingText, settings: Settings) -> tuple[across.AnyRun, str]:
    """One run of ``text`` under ``settings`` from the shared caches, as the page and a lesson's
    preparation train it: a BPE history, a WordPiece history or a Unigram run (and a Unigram
    run's cache key; else ""). Raises ``ValueError`` for a text or settings it refuses."""
    if settings.algorithm == "unigram":
        data, problems = unigram_text(text)
        if data is None:
            raise ValueError(problems[0].text.rstrip("."))
        return unigram_run_for(text, data, settings)
    if settings.algorithm == "wordpiece":
        return wordpiece_for(text, settings), ""
    return history_for(text, settings), ""


def _tokenizer(run: across.AnyRun, run_key: str) -> tuple[Any, Any]:
    if isinstance(run, UnigramRun):
        return unigram_tokenizer(run, run_key)
    return chosen_tokenizer(TRAINED, run, None)


def _ids(run: across.AnyRun, tokenizer: Any, key: Any, text: str) -> list[int]:
    if isinstance(run, History):  # BPE cuts the text as its last step's segmentation does
        return run.segmentation(run.merge_count).ids.tolist()
    return encode_or_stop(tokenizer, key, text)


def show_across(
    text: str,
    trained: Mapping[str, across.AnyRun],
    chosen: Mapping[str, TrainingConfig],
    unigram_keys: Mapping[str, str],
) -> None:
    """Draw the comparison of two runs of ``text`` (``trained``, named A and B, with their
    settings ``chosen``; ``unigram_keys``: a Unigram run's cache key)."""
    names = tuple(trained)
    a, b = (chosen[name] for name in names)
    if across.merge_based(a, b):
        merges = [
            runs.merges_of(run, marks=a.algorithm == b.algorithm)  # type: ignore[arg-type]
            for run in trained.values()
        ]
        difference = runs.first_difference(*merges)
        reason = runs_view.difference_reason(difference, a, b) if difference else None
        st.html(
            runs_view.difference_html(
                difference, merge_counts=(len(merges[0]), len(merges[1])), reason=reason
            )
        )
    else:
        title = f"{a.algorithm_title} against {b.algorithm_title}"
        st.html(across.card_html(title, across.no_merges_sentence(names, (a, b))))

    sides = [_tokenizer(run, unigram_keys.get(name, "")) for name, run in trained.items()]
    ids = [
        _ids(run, tokenizer, key, text)
        for run, (tokenizer, key) in zip(trained.values(), sides, strict=True)
    ]
    result = compare.compare(text, sides[0][0], sides[1][0], names=names, ids=(ids[0], ids[1]))
    learned = [across.learned_tokens(run) for run in trained.values()]
    overlap = across.vocab_overlap(*learned)

    numbers = columns(5, key="runs_across_numbers", pairs=True)
    numbers[0].metric(f"Tokens in {names[0]}", f"{result.ours.token_count:,}")
    numbers[1].metric(f"Tokens in {names[1]}", f"{result.theirs.token_count:,}")
    numbers[2].metric(
        "Learned by both",
        f"{len(overlap.both):,}",
        help="Tokens of two characters or more that both vocabularies hold, compared by the "
        "text they spell.",
    )
    numbers[3].metric(f"Learned only by {names[0]}", f"{len(overlap.only_a):,}")
    numbers[4].metric(f"Learned only by {names[1]}", f"{len(overlap.only_b):,}")

    st.header("The text as each run cuts it", anchor=False)
    st.caption(
        "Each run's tokenizer on the whole text. A token outlined in bold starts at a cut the "
        "other run does not make. Hover a token for its id and bytes."
    )
    panes = columns(2, key="runs_text", gap="medium")
    for pane, name, tokenization, only, (tokenizer, _) in zip(
        panes,
        names,
        (result.ours, result.theirs),
        (result.diff.only_ours, result.diff.only_theirs),
        sides,
        strict=True,
    ):
        with pane:
            st.markdown(f"**{name}**: {counted(tokenization.token_count, 'token')}")
            marks = compare.start_marks(tokenization, only, mark=Mark.NEW)
            if tokenization.token_count > MAX_SHOWN_TOKENS:
                st.caption(
                    f"Showing the first {MAX_SHOWN_TOKENS:,} of {tokenization.token_count:,} "
                    "tokens."
                )
            label = f"Run {name}: the text, token by token"
            if isinstance(tokenizer, LibraryTokenizer):
                show_library_tokens(
                    tokenizer, text, key=f"runs_spans_{name}", marks=marks, words=False,
                    limit=MAX_SHOWN_TOKENS, label=label,
                )  # fmt: skip
            else:
                shown = tokenization.ids[:MAX_SHOWN_TOKENS]
                show_tokens(
                    tokenizer, shown, key=f"runs_spans_{name}", marks=marks[: len(shown)],
                    label=label,
                )  # fmt: skip

    st.header("Tokens only one run learned", anchor=False)
    st.caption(
        "Tokens of two characters or more, compared by the text they spell without the marks "
        "for a word's edge: Unigram's ▁ (the space before a word), WordPiece's ## (a piece "
        "inside a word) and a BPE token's spaces, so ▁hug, ##hug and ␣hug all spell hug."
    )
    tables = columns(2, key="runs_only", gap="medium")
    for pane, name, only, written in zip(
        tables, names, (overlap.only_a, overlap.only_b), learned, strict=True
    ):
        with pane:
            st.markdown(f"**Only in {name}**: {counted(len(only), 'token')}")
            if not only:
                st.caption(f"Every token {name} learned, the other run learned too.")
                continue
            frame = across.learned_frame(only, written)
            show_table(
                frame,
                columns=list(across.LEARNED_COLUMNS),
                labels={"token": f"as {name} writes it", "spells": "spells"},
                height=min(36 * (len(frame) + 1) + 2, 360),
                column_config={"token": st.column_config.TextColumn(f"as {name} writes it")},
            )
    caption(f"A: {chosen[names[0]].summary()} · B: {chosen[names[1]].summary()}")
