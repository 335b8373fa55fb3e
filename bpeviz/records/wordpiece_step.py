"""A WordPiece run as the step view's record: the same schema as BPE's
(:mod:`bpeviz.records.step`), so the same browser code steps through it, plus what WordPiece adds.

What is the same: the text drawn as symbols (here the characters of its words) with the step
at which each boundary vanished (``death``), the merges, the sentences, the token counts, the
pair table's head at each step (``tops``), the quiz's order. What WordPiece adds, by name:

- ``algorithm`` ``"wordpiece"`` (a BPE record says ``"bpe"``) and ``score_rule``, ``score`` or
  ``frequency``; ``rule_sentence``: the one sentence the card always shows, saying which rule
  this run uses and how the two differ;
- ``tops`` rows of :data:`~bpeviz.records.schema.SCORE_TOP_FIELDS` (the pair, its count, its
  tokens' counts: the browser shows the score as a fraction and a decimal); ``tied`` counts the
  rows that share the winning value (the score, or the count under the frequency rule);
- ``existed``: the merges whose token was already in the vocabulary (it did not grow);
- the vocabulary's continuation tokens have the kind ``CONTINUATION``: their label is without
  ``##``, which the browser draws apart.

Ids: the record numbers the first vocabulary as the run does (``[UNK]``, characters, ``##``
forms) and merge ``k``'s token ``base + k - 1``, as BPE's record does, so the browser cuts the
text the same way. That is the run's own id unless an earlier merge's token already existed;
each token's title gives the run's id. Whitespace is not drawn: WordPiece drops it, and each
word is a piece (outlined by Show pieces).
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import numpy as np

from bpeviz.engine.readable import counted, times
from bpeviz.engine.tie_rules import TIE_RULES
from bpeviz.engine.wordpiece import CONTINUATION, PairRow, WordPieceStep
from bpeviz.engine.wordpiece_history import NEVER, WordPieceHistory
from bpeviz.records.narration import quoted
from bpeviz.records.schema import (
    MERGE_FIELDS,
    SCHEMA,
    SENTENCE_FIELDS,
    entry,
    row,
)
from bpeviz.records.step import TOP_PAIRS, WINDOW_SYMBOLS, quiz_order

RULE_SENTENCES = {
    "score": "This run merges the pair with the best score, count(ab) / (count(a) × count(b)), "
    "as the textbook's WordPiece does, so two tokens that are rare apart but always together "
    "win over a pair that is only frequent because its tokens are; the frequency rule (what "
    "the tokenizers library's WordPieceTrainer really does) would merge the most frequent "
    "pair, as BPE does.",
    "frequency": "This run merges the most frequent pair, as the tokenizers library's "
    "WordPieceTrainer really does (BPE with ## marks); the textbook's score rule, count(ab) / "
    "(count(a) × count(b)), would instead prefer two tokens that are rare apart but always "
    "together.",
}
PIECES_SENTENCE = (
    "WordPiece trains inside words: each word, outlined here, starts as its characters, the "
    "first plain and the others marked ## (a continuation); whitespace is dropped, and no "
    "token spans two words."
)


def score_text(count: int, left_count: int, right_count: int) -> str:
    """A score as the card writes it: the fraction, reduced, and its decimal.

    >>> score_text(10, 15, 15), score_text(5, 20, 5)
    ('2/45 ≈ 0.0444', '1/20 ≈ 0.0500')
    """
    score = Fraction(count, left_count * right_count)
    return f"{score.numerator}/{score.denominator} ≈ {float(score):.4f}"


def token_name(token: str) -> str:
    """How a sentence names a token: quoted, ``##`` kept (it is part of the lesson)."""
    return quoted(token)


def pair_words(left: str, right: str) -> str:
    return f"{token_name(left)} + {token_name(right)}"


def why_sentence(
    step: WordPieceStep, by_score: bool, top: tuple[PairRow, ...], vocab: tuple[str, ...]
) -> str:
    """Why this pair won, by the run's rule (``by_score``), and what it did to the text.

    Under the score rule the most frequent pair is named beside the winner when it is another
    (with its score when the pair table's head ``top`` holds it): that difference is the
    lesson.
    """
    pair = pair_words(step.left, step.right)
    score = score_text(step.count, step.left_count, step.right_count)
    working = f"{step.count:,} / ({step.left_count:,} × {step.right_count:,})"
    if by_score:
        said = (
            f"{pair} has the best score, {working} = {score}: the pair occurs "
            f"{times(step.count)}, {token_name(step.left)} {times(step.left_count)} and "
            f"{token_name(step.right)} {times(step.right_count)}."
        )
        if step.most_frequent is not None:
            (left, right), count = step.most_frequent
            other = next((r for r in top if (r.left, r.right) == (left, right)), None)
            scored = (
                f" and scores {score_text(other.count, other.left_count, other.right_count)}"
                if other is not None
                else ""
            )
            said += (
                f" The most frequent pair, {pair_words(vocab[left], vocab[right])}, occurs "
                f"{times(count)}{scored}: its tokens are frequent on their own, and the score "
                "divides that out."
            )
    else:
        said = (
            f"{pair} is the most frequent pair, {times(step.count)}; its score, {working} = "
            f"{score}, plays no part under this rule."
        )
    grew = (
        f" {token_name(step.token)} was already in the vocabulary, so it did not grow."
        if step.existed
        else ""
    )
    return (
        f"{said} Merged in {counted(step.replacements, 'place')}: the text went to "
        f"{counted(step.tokens_after, 'token')}.{grew}"
    )


def tie_sentence(
    step: WordPieceStep, by_score: bool, vocab: tuple[str, ...], tied_rows: int
) -> str:
    """Which pairs shared the winning value and how the tie rule chose (``""``: no tie).

    ``tied_rows``: how many rows of the pair table's head tie (``TOP_PAIRS + 1``: every row,
    and perhaps more), which counts a tie past the few pairs the step names.
    """
    if not step.tied:
        return ""
    listed = ", ".join(f"({pair_words(vocab[left], vocab[right])})" for left, right in step.tied)
    counted_all = tied_rows <= TOP_PAIRS
    tied = tied_rows if counted_all else max(tied_rows - 1, len(step.tied) + step.more_tied)
    if tied > len(step.tied):
        listed += f" and {tied - len(step.tied):,} more" if counted_all else " and more"
    how_many = f"{tied:,}" if counted_all else f"At least {tied:,}"
    value = (
        f"the score {score_text(step.count, step.left_count, step.right_count)}"
        if by_score
        else f"the count {step.count:,}"
    )
    rule = TIE_RULES[step.rule]
    return (
        f"{how_many} pairs share {value}: {listed}. The rule {quoted(step.rule)} picked "
        f"{pair_words(step.left, step.right)} {rule.reason}."
    )


def start_sentences(history: WordPieceHistory, by_score: bool) -> list[str]:
    """Step 0 (:data:`~bpeviz.records.schema.START_FIELDS`): what the text starts as, and
    which pair merge 1 will join (or why none)."""
    run = history.run
    words = sum(run.weights)
    counts = (
        f"The text's {counted(words, 'word')} ({len(run.words):,} different) start as their "
        f"characters, each word's first plain and the others marked ## as continuations: "
        f"{counted(run.tokens_before, 'token')}; the vocabulary is [UNK], the characters and "
        f"their ## forms, {counted(history.base, 'token')}."
    )
    if not run.steps and run.initial_size >= run.requested_vocab_size:
        return [
            counts,
            f"Nothing will be merged: the first vocabulary already has "
            f"{counted(run.initial_size, 'token')}, at least the vocab size of "
            f"{run.requested_vocab_size:,} asked for.",
        ]
    if not run.steps:  # the only other stop before a merge: no pair at all
        return [counts, "No word has two characters here, so there is nothing to merge."]
    first = run.steps[0]
    pair = pair_words(first.left, first.right)
    why = (
        f"the best score, {score_text(first.count, first.left_count, first.right_count)}"
        if by_score
        else f"the most frequent pair ({times(first.count)})"
    )
    return [counts, f"Merge 1 will join {pair}, {why}; its places are outlined below."]


def _record_ids(history: WordPieceHistory) -> dict[int, int]:
    """The record's id of each of the run's ids: the first vocabulary keeps its ids, a merge's
    new token is ``base + k - 1`` (a token that existed keeps its first id)."""
    ids = {number: number for number in range(history.base)}
    for step in history.run.steps:
        ids.setdefault(step.new_id, history.base + step.step - 1)
    return ids


def vocab_entries(history: WordPieceHistory) -> list[list[Any]]:
    """One entry per record id: the first vocabulary, then each merge's token, every token's
    title saying its id in the run (what an exported tokenizer.json numbers it)."""
    run = history.run
    specials = set(run.special_tokens)
    # the first vocabulary: special tokens, the characters plain, then their ## forms
    first_inner = len(specials) + sum(
        1 for token in run.vocab[: history.base] if len(token) == 1 and token not in specials
    )
    inner_of = [number >= first_inner for number in range(history.base)]
    entries = []
    for number, token in enumerate(run.vocab[: history.base]):
        if token in specials:
            title = f"id {number} · special token: a word with no match encodes as it"
            entries.append(entry(token.encode(), title, special=True))
            continue
        inner = inner_of[number]
        what = "inside a word" if inner else "starting a word"
        shown = token.removeprefix(CONTINUATION) if inner else token
        title = f"{token} · id {number} · a character of the text, {what}"
        entries.append(entry(shown.encode(), title, continuation=inner))
    record = _record_ids(history)
    for step in run.steps:
        inner = inner_of[record[step.pair[0]]]
        inner_of.append(inner)
        shown = step.token.removeprefix(CONTINUATION) if inner else step.token
        title = f"{step.token} · id {step.new_id} · made by merge {step.step:,}"
        if step.existed:
            title += " (the token existed already)"
        entries.append(entry(shown.encode(), title, continuation=inner))
    return entries


def _tied_rows(rows: tuple[PairRow, ...], by_score: bool) -> int:
    """How many rows share the first row's value (``TOP_PAIRS + 1``: all shown, maybe more)."""
    if not rows:
        return 0

    def value(pair_row: PairRow) -> Fraction | int:
        return pair_row.score if by_score else pair_row.count

    tied = sum(1 for pair_row in rows if value(pair_row) == value(rows[0]))
    return TOP_PAIRS + 1 if tied == len(rows) == TOP_PAIRS else tied


def _window_end(starts: np.ndarray, first: int, window_symbols: int) -> int:
    """The word after the last drawn from word ``first`` (``starts``: where each word starts
    among the text's characters of words, :attr:`WordPieceHistory.text_deaths`): at most
    ``window_symbols`` characters, at least one word; a word is never cut."""
    fits = int(np.searchsorted(starts, starts[first] + window_symbols, side="right")) - 1
    return min(max(fits, first + 1), len(starts) - 1)


def window_shows(
    history: WordPieceHistory, window_from: int, merge: int, window_symbols: int = WINDOW_SYMBOLS
) -> bool:
    """Whether the window starting at word ``window_from`` holds a place of ``merge``."""
    starts, death = history.text_deaths
    end = _window_end(starts, window_from, window_symbols)
    return bool(np.any(death[starts[window_from] : starts[end]] == merge))


def window_for(history: WordPieceHistory, merge: int, window_symbols: int = WINDOW_SYMBOLS) -> int:
    """The first word of a window that shows ``merge``: about a tenth of the window before
    the first word it joins, as BPE's (:func:`bpeviz.records.step.window_for`) starts."""
    starts, death = history.text_deaths
    places = np.flatnonzero(death == merge)
    if not len(places):
        return 0
    word = int(np.searchsorted(starts, places[0], side="right")) - 1
    return int(np.searchsorted(starts, starts[word] - window_symbols // 10, side="left"))


def payload(
    history: WordPieceHistory, *, window_symbols: int = WINDOW_SYMBOLS, window_from: int = 0
) -> dict[str, Any]:
    """The step view's record of a WordPiece run (see the module docstring): the text drawn
    is its words from word ``window_from`` (see :func:`window_for`), up to ``window_symbols``
    characters (a word is never cut)."""
    run = history.run
    by_score = run.score_rule == "score"
    merges = history.merge_count
    record_id = _record_ids(history)
    symbols: list[int] = []
    death: list[int] = []
    offsets: list[int] = []
    pieces: list[int] = []
    words = history.words()
    end = _window_end(history.text_deaths[0], window_from, window_symbols) if words else 0
    char_at = words[window_from][0] if window_from < len(words) else 0
    byte_at = len(history.text[:char_at].encode("utf-8"))
    window_start = byte_at
    for start, word in words[window_from:end]:
        byte_at += len(history.text[char_at:start].encode("utf-8"))
        pieces.append(len(symbols))
        deaths = history.word_deaths(word)
        for char, (symbol, died) in zip(
            word, zip(history.initial_ids(word), deaths, strict=True), strict=True
        ):
            symbols.append(symbol)
            death.append(merges + 1 if died == NEVER else min(died, merges + 1))
            offsets.append(byte_at)
            byte_at += len(char.encode("utf-8"))
        char_at = start + len(word)
    offsets.append(byte_at)
    whole = window_from == 0 and end == len(words)
    text_bytes = len(history.text.encode("utf-8"))
    tables = run.pair_tables
    vocab = run.vocab

    def mapped(pair_row: PairRow) -> list[int]:
        return [record_id[pair_row.left], record_id[pair_row.right], pair_row.count,
                pair_row.left_count, pair_row.right_count]  # fmt: skip

    tops = [[value for pair_row in table for value in mapped(pair_row)] for table in tables]
    return {
        "schema": SCHEMA,
        "algorithm": "wordpiece",
        "score_rule": run.score_rule,
        "rule_sentence": RULE_SENTENCES[run.score_rule],
        "base": history.base,
        "merge_count": merges,
        "text_bytes": text_bytes,
        "rule": run.tie_break,
        "end_of_word": False,
        "tokens": [history.token_count(k) for k in range(merges + 1)],
        "window": {
            "from": window_start,
            "bytes": byte_at,
            "symbols": len(symbols),
            "whole": whole,
        },
        "symbols": symbols,
        "offsets": offsets,
        "death": death,
        "vocab": vocab_entries(history),
        "merges": [
            row(
                MERGE_FIELDS,
                left=record_id[step.pair[0]],
                right=record_id[step.pair[1]],
                made=history.base + step.step - 1,
                count=step.count,
                replacements=step.replacements,
            )
            for step in run.steps
        ],
        "existed": [step.step for step in run.steps if step.existed],
        "sentences": [
            row(
                SENTENCE_FIELDS,
                counts=why_sentence(step, by_score, tables[step.step - 1], vocab),
                tie=tie_sentence(
                    step, by_score, vocab, _tied_rows(tables[step.step - 1], by_score)
                ),
            )
            for step in run.steps
        ],
        "start": start_sentences(history, by_score),  # START_FIELDS' order
        "tops": tops,
        "tied": [_tied_rows(table, by_score) for table in tables],
        "pieces": pieces,
        "pieces_rule": PIECES_SENTENCE,
        "quiz": [quiz_order(k, len(tables[k])) for k in range(merges)],
    }


def payload_json(history: WordPieceHistory, **kwargs: Any) -> str:
    """:func:`payload` as compact JSON (what the app and an exported page carry)."""
    return json.dumps(payload(history, **kwargs), ensure_ascii=False, separators=(",", ":"))
