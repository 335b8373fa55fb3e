"""The sentences that explain a merge, as a teacher would say them aloud.

Plain text, never HTML: whoever draws them (the browser's step view, an exported page, a
terminal) sets them as text. Each takes the numbers the trainer recorded, so what a sentence
says is what the engine did.
"""

from __future__ import annotations

from collections.abc import Sequence

from bpeviz.engine.pretokenize import PRETOKENIZER_REGISTRY
from bpeviz.engine.readable import counted, readable, times
from bpeviz.engine.tie_rules import TIE_RULES
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.engine.trainer import MergeStep, Pair

TIED_LISTED = 5  # a tie sentence names this many pairs, then says how many more
QUOTED_CHARS = 24  # a longer token is quoted by its start and "…" (the chips show it whole)


def quoted(text: str) -> str:
    """``“text”``: how tokens are named in sentences."""
    return f"“{text}”"


def pair_text(tokenizer: Tokenizer, pair: Pair) -> str:
    """``“h” + “e”``; a token longer than :data:`QUOTED_CHARS` by its start and ``…``.

    >>> from bpeviz.engine.tokenizer import Tokenizer
    >>> tokenizer = Tokenizer.from_merges([(104, 101)])
    >>> pair_text(tokenizer, (256, 32)), pair_text(Tokenizer.from_merges([]), (97, 98))
    ('“he” + “␣”', '“a” + “b”')
    """
    left, right = (shortened(tokenizer.token_bytes(token)) for token in pair)
    return f"{quoted(left)} + {quoted(right)}"


def shortened(data: bytes) -> str:
    """Readable, cut to :data:`QUOTED_CHARS` (only the start is made readable: a token of a
    whole paragraph is quoted a thousand times in a long run's tie sentences). Not cached:
    a cache for the process, filled while runs train, kept its few thousand small strings
    scattered over the heap those runs freed, which then could not go back to the system
    (``benchmarks/crowd.py``, ``budget``); without it a record builds in 0.10 s, not 0.07 s
    (English at 1,600 in ``bytes`` mode).

    >>> shortened(b"ab"), shortened(b"a" * 200)[-3:]
    ('ab', 'aa…')
    """
    text = readable(data[: 4 * QUOTED_CHARS])
    if len(text) <= QUOTED_CHARS and len(data) <= 4 * QUOTED_CHARS:
        return text
    return text[: QUOTED_CHARS - 1] + "…"


def tie_sentence(
    step: MergeStep,
    tokenizer: Tokenizer,
    tied: Sequence[Pair],
    tied_count: int,
    *,
    at_least: bool = False,
) -> str | None:
    """Which pairs tied and why the rule picked this one (``None`` when nothing tied).

    ``tied`` are the first tied pairs, winner first (at least :data:`TIED_LISTED` of them
    when there are that many); ``tied_count`` is how many pairs shared the top count, or
    with ``at_least`` how many at least (the trainer stops counting a long tie).
    """
    if tied_count < 2:
        return None
    shown = list(tied)[:TIED_LISTED]
    listed = ", ".join(f"({pair_text(tokenizer, pair)})" for pair in shown)
    if at_least:
        listed += " and more"
    elif tied_count > len(shown):
        listed += f" and {tied_count - len(shown):,} more"
    rule = TIE_RULES.get(step.rule)
    reason = rule.reason if rule else f"by the rule {step.rule!r}"
    how_many = f"At least {tied_count:,}" if at_least else f"{tied_count:,}"
    return (
        f"{how_many} pairs occurred {times(step.count)} each: {listed}. "
        f"The rule {quoted(step.rule)} picked {pair_text(tokenizer, step.pair)} {reason}."
    )


def count_sentence(step: MergeStep, tokens_before: int) -> str:
    """How often the pair occurred, how many were replaced, and the token count change."""
    if step.replacements == step.count:
        replaced = "all of them were replaced" if step.count > 1 else "it was replaced"
    else:
        replaced = (
            f"some occurrences overlap (as in “aaa”, which holds “a” + “a” twice but can only "
            f"be merged once), so {step.replacements:,} "
            f"{'was' if step.replacements == 1 else 'were'} replaced, left to right"
        )
    return (
        f"The pair occurred {times(step.count)}; {replaced}. The text went from "
        f"{tokens_before:,} to {counted(step.tokens_after, 'token')}."
    )


def start_sentence(
    text_bytes: int, tokens: int, *, end_of_word: bool = False, specials: bool = False
) -> str:
    """What step 0 is: one token per byte, and why the count differs when it does.

    >>> start_sentence(1, 1)
    'The text is 1 byte: 1 token, one per byte.'
    >>> start_sentence(15, 19, end_of_word=True)
    'The text is 15 bytes: 19 tokens, one per byte plus a </w> marker after each word.'
    """
    each = "one per byte"
    if tokens != text_bytes:
        each += " plus a </w> marker after each word" if end_of_word else ""
        each += ", a special token counting as one" if specials else ""
    return f"The text is {counted(text_bytes, 'byte')}: {counted(tokens, 'token')}, {each}."


def first_merge_sentence(first: MergeStep | None, tokenizer: Tokenizer) -> str:
    """Step 0's second sentence: which pair merge 1 will join, or why nothing merges.

    It says what was counted and what will be replaced, which differ when occurrences
    overlap: the outlines show the replacements, and a class counts them.
    """
    if first is None:
        return "No pair of tokens occurs in this text, so there is nothing to merge."
    pair = pair_text(tokenizer, first.pair)
    if first.replacements == first.count:
        return (
            f"Merge 1 will join {pair}, the most frequent pair: it occurs "
            f"{counted(first.count, 'time')}, and every occurrence will be replaced "
            "(outlined below)."
        )
    return (
        f"Merge 1 will join {pair}, the most frequent pair: counted {first.count:,} times, "
        "overlapping occurrences included (“aaa” holds “a” + “a” twice). Merging left to "
        f"right, {first.replacements:,} of them will be replaced: the "
        f"{first.replacements:,} outlined below."
    )


def pieces_sentence(pretokenizer: str) -> str:
    """The rule the pre-tokenizer's outlines show, for the split the run used."""
    info = PRETOKENIZER_REGISTRY.get(pretokenizer)
    name = info.help if info else pretokenizer
    if pretokenizer == "bytes":
        return (
            "With no pre-tokenizer the whole text is one piece, so merges may join anything: "
            "a space to the next word, the end of one word to the start of the next."
        )
    lesson = {
        "gpt2": " Letters, digits and punctuation are separate pieces, and a space sticks to "
        "the word after it.",
        "gpt4": " Digits come in groups of one to three, and a run of letters is one piece: "
        "Japanese, written without spaces, stays one piece up to its punctuation.",
        "words": " Each word is a piece and whitespace is kept as single bytes.",
    }.get(pretokenizer, "")
    return (
        f"Before training, the pre-tokenizer ({name}) cuts the text into pieces, outlined "
        f"here. Merges never cross a piece's edge: no token spans two pieces.{lesson}"
    )
