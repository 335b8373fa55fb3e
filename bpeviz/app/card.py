"""The Step page's merge card: which pair merges, how often it occurs, why it won a tie, and
how many tokens the text is left with, in sentences a reader can follow aloud.
"""

from __future__ import annotations

from collections.abc import Sequence

from bpeviz.app.spans import PALETTE, chip_html, esc, quoted, token_label
from bpeviz.readable import counted
from bpeviz.tie_rules import TIE_RULES
from bpeviz.tokenizer import Tokenizer
from bpeviz.trainer import MergeStep, Pair


def pair_text(tokenizer: Tokenizer, pair: Pair) -> str:
    """``“h” + “e”``, not escaped."""
    return f"{quoted(token_label(tokenizer, pair[0]))} + {quoted(token_label(tokenizer, pair[1]))}"


def tie_sentence(
    step: MergeStep, tokenizer: Tokenizer, all_tied: Sequence[Pair] | None = None
) -> str | None:
    """Plain text saying which pairs tied and why the rule picked this one (None: no tie).

    ``all_tied`` is every tied pair (``History.tied_pairs``) when the step recorded only the
    first few (``more_tied``).
    """
    tied = list(all_tied) if all_tied else list(step.tied)
    if len(tied) < 2:
        return None
    shown = tied[:5]
    listed = ", ".join(f"({pair_text(tokenizer, pair)})" for pair in shown)
    if len(tied) > len(shown):
        listed += f" and {len(tied) - len(shown):,} more"
    elif step.more_tied and not all_tied:
        listed += " and more"
    how_many = (
        f"At least {len(tied) + 1:,}" if step.more_tied and not all_tied else f"{len(tied):,}"
    )
    rule = TIE_RULES.get(step.rule)
    reason = rule.reason if rule else f"by the rule {step.rule!r}"
    return (
        f"{how_many} pairs occurred {step.count:,} times each: {listed}. "
        f"The rule “{step.rule}” picked {pair_text(tokenizer, step.pair)} {reason}."
    )


def count_sentence(step: MergeStep, tokens_before: int) -> str:
    """How often the pair occurred, how many were replaced, and the token count change."""
    times = "once" if step.count == 1 else f"{step.count:,} times"
    if step.replacements == step.count:
        replaced = "all of them were replaced" if step.count > 1 else "it was replaced"
    else:
        replaced = (
            f"some occurrences overlap (as in “aaa”, which holds “a” + “a” twice but can only "
            f"be merged once), so {step.replacements:,} were replaced, left to right"
        )
    return (
        f"The pair occurred {times}; {replaced}. The text went from {tokens_before:,} to "
        f"{step.tokens_after:,} tokens."
    )


def merge_card_html(
    step: MergeStep,
    tokenizer: Tokenizer,
    *,
    merge_total: int,
    tokens_before: int,
    all_tied: Sequence[Pair] | None = None,
) -> str:
    """The merge at the heart of step ``k``: the two parents, the new token, and why."""
    left, right = step.pair
    # Each chip in its id's own colour: in ``a + a`` both halves are the same token and look
    # it (only neighbours in running text are forced apart).
    equation = (
        chip_html(token_label(tokenizer, left), left, colour=left % len(PALETTE))
        + '<span class="bpe-op">+</span>'
        + chip_html(token_label(tokenizer, right), right, colour=right % len(PALETTE))
        + '<span class="bpe-op">→</span>'
        + chip_html(
            token_label(tokenizer, step.new_id),
            step.new_id,
            colour=step.new_id % len(PALETTE),
            new=True,
        )
    )
    headline = f"Merge {step.step:,} of {merge_total:,}"
    parts = [
        '<div class="bpe-card">',
        f'<div class="bpe-card-title">{esc(headline)}</div>',
        f'<div class="bpe-eq">{equation}</div>',
        f"<p>{esc(count_sentence(step, tokens_before))}</p>",
    ]
    tie = tie_sentence(step, tokenizer, all_tied)
    if tie:
        parts.append(f'<p class="bpe-tie"><b>Tie.</b> {esc(tie)}</p>')
    parts.append("</div>")
    return "".join(parts)


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


def start_card_html(
    *, text_bytes: int, tokens: int, first: MergeStep | None, tokenizer: Tokenizer
) -> str:
    """Step 0: the text as bytes, and which pair merge 1 will join."""
    start = start_sentence(
        text_bytes,
        tokens,
        end_of_word=tokenizer.end_of_word,
        specials=bool(tokenizer.special_tokens),
    )
    parts = [
        '<div class="bpe-card">',
        '<div class="bpe-card-title">Step 0: no merges yet</div>',
        f"<p>{esc(start)}</p>",
    ]
    if first is not None:
        sentence = (
            f"Merge 1 will join {pair_text(tokenizer, first.pair)}, the most frequent pair "
            f"({first.count:,} times). Its occurrences are outlined below."
        )
        parts.append(f"<p>{esc(sentence)}</p>")
    else:
        parts.append("<p>No pair of tokens occurs in this text, so there is nothing to merge.</p>")
    parts.append("</div>")
    return "".join(parts)
