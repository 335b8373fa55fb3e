"""The link format: the settings that matter live in the URL's query parameters, and
:func:`query_from_state` / :func:`state_from_query` convert both ways. A missing parameter
means "what the chosen sample suggests", so a link stays short and ``?sample=ties`` alone
opens that sample with its own settings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from bpeviz.app.frame.run_settings import (
    KEY_ALGORITHM,
    KEY_END_OF_WORD,
    KEY_PASTE,
    KEY_PRETOKENIZER,
    KEY_SAMPLE,
    KEY_SCORE_RULE,
    KEY_SOURCE,
    KEY_SPECIALS,
    KEY_TIE_BREAK,
    KEY_VOCAB,
    MIN_VOCAB,
    SOURCES,
    STATE_KEYS,
    SUGGESTED_KEYS,
    UNIGRAM_KEYS,
    Message,
    default_state,
    fitted_pretokenizer,
    min_vocab,
    parse_special_tokens,
    sample_keys,
    specials_beyond_the_box,
    suggested_state,
)
from bpeviz.engine.algorithms import ALGORITHM_REGISTRY, ALGORITHMS
from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.samples import DEFAULT_SAMPLE_KEY, get_sample
from bpeviz.engine.tie_rules import TIE_BREAKS
from bpeviz.engine.wordpiece import SCORE_RULES

MAX_LINK_TEXT_CHARS = 1_000  # a pasted text this short travels in the link
MAX_LINK_DIGITS = 12  # of a count in a link: far past any vocab size or step
MAX_SHOWN_LINK_VALUE = 40  # characters of a link's value quoted in a warning


def _baseline(state: Mapping[str, Any]) -> dict[str, Any]:
    """What a missing parameter means: the chosen sample's suggested settings (fitted to the
    algorithm)."""
    key = state.get(KEY_SAMPLE) or DEFAULT_SAMPLE_KEY
    try:
        sample = get_sample(str(key))
    except ValueError:
        sample = get_sample(DEFAULT_SAMPLE_KEY)
    return suggested_state(sample, str(state.get(KEY_ALGORITHM) or "bpe"))


FLAG_WORDS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def link_flag(text: str) -> bool | None:
    """An on/off setting as a link writes it: ``1``, ``true`` or ``yes`` is on, ``0``,
    ``false`` or ``no`` off (any case), anything else ``None``. The one rule for every flag,
    so that ``?present=1`` works as ``?quiz=1`` does.

    >>> [link_flag(text) for text in ("1", "Yes", "TRUE", "no", "2", "")]
    [True, True, True, False, None, None]
    """
    return FLAG_WORDS.get(text.strip().lower())


def bound_flags(params: Mapping[str, str], names: Sequence[str]) -> dict[str, str]:
    """The flags among ``names`` that a widget bound to the link would misread, rewritten as
    the ``true`` / ``false`` Streamlit's bound toggles and checkboxes accept.

    >>> bound_flags({"present": "1", "focus": "true", "step": "1"}, ["present", "focus"])
    {'present': 'true'}
    """
    rewritten = {}
    for name in names:
        value = params.get(name)
        flag = link_flag(value) if isinstance(value, str) else None
        if flag is not None and value != str(flag).lower():
            rewritten[name] = str(flag).lower()
    return rewritten


def whole_number(text: str) -> int | None:
    """A count as a link writes it (ASCII digits, ``,`` or ``_`` between them, at most
    ``MAX_LINK_DIGITS`` of them after leading zeros), else ``None``.

    Python's ``int`` also reads other scripts' digits and ``str.isdigit`` accepts ``²``,
    which ``int`` then refuses: a link holds neither. Past 4,300 digits ``int`` refuses the
    text with a message for programmers, and long before that no count means anything.

    >>> [whole_number(text) for text in ("512", "1,024", "-1", "²", "١٢", "", "9" * 13)]
    [512, 1024, None, None, None, None, None]
    """
    digits = text.replace(",", "").replace("_", "")
    if not (digits.isascii() and digits.isdigit()) or len(digits.lstrip("0")) > MAX_LINK_DIGITS:
        return None
    return int(digits)


def unread_number(key: str, text: str) -> Message:
    """The warning for a link's count that :func:`whole_number` does not read, with the
    value shown short (a link can hold thousands of digits).

    >>> unread_number("step", "9" * 5_000).text  # doctest: +ELLIPSIS
    "The link's step='999...'… (5,000 characters) has more than 12 digits; ignored."
    """
    digits = text.replace(",", "").replace("_", "")
    if digits.isascii() and digits.isdigit():
        why = f"has more than {MAX_LINK_DIGITS} digits"
    else:
        why = "is not a whole number" + (f" of at least {MIN_VOCAB}" if key == KEY_VOCAB else "")
    return Message("warning", f"The link's {key}={_short(text)} {why}; ignored.")


def _short(value: str) -> str:
    """``value`` quoted, cut to ``MAX_SHOWN_LINK_VALUE`` characters with its length when longer."""
    if len(value) <= MAX_SHOWN_LINK_VALUE:
        return repr(value)
    return f"{value[:MAX_SHOWN_LINK_VALUE]!r}… ({len(value):,} characters)"


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def query_from_state(state: Mapping[str, Any]) -> dict[str, str]:
    """The query parameters for a link that reproduces these settings.

    Only what differs from the default is written: the source unless it is ``sample``, the
    sample unless it is the default one, a setting unless it is what the sample suggests,
    special tokens when there are any, and a pasted text when it is at most
    :data:`MAX_LINK_TEXT_CHARS` characters.

    >>> query_from_state({"src": "sample", "sample": "ties", "vocab": 300, "pretok": "words",
    ...                   "tie": "first", "eow": False, "special": "", "paste": ""})
    {'sample': 'ties', 'vocab': '300'}
    """
    # by the settings' keys, not the state's: a session's state is read key by key, and a
    # following student's holds every page's widgets (a third of the sidebar's run)
    full = {**default_state(), **{key: state[key] for key in STATE_KEYS if key in state}}
    params: dict[str, str] = {}
    defaults = default_state()
    for key in (KEY_ALGORITHM, KEY_SCORE_RULE):
        if full[key] != defaults[key]:
            params[key] = str(full[key])
    if full[KEY_ALGORITHM] == "unigram":
        for key in UNIGRAM_KEYS:
            if full[key] != defaults[key]:
                params[key] = f"{full[key]:g}"
    if full[KEY_SOURCE] != "sample":
        params[KEY_SOURCE] = str(full[KEY_SOURCE])
    if full[KEY_SAMPLE] != DEFAULT_SAMPLE_KEY:
        params[KEY_SAMPLE] = str(full[KEY_SAMPLE])
    baseline = _baseline(full)
    for key in SUGGESTED_KEYS:
        value = full[key]
        if key == KEY_VOCAB and isinstance(value, float) and value.is_integer():
            value = int(value)
        if value != baseline[key]:
            params[key] = _format(value)
    tokens = parse_special_tokens(str(full[KEY_SPECIALS] or ""))
    if tokens and specials_beyond_the_box(tokens) is None:  # else the page says it is too much
        params[KEY_SPECIALS] = " ".join(tokens)
    paste = str(full[KEY_PASTE] or "")
    if full[KEY_SOURCE] == "paste" and 0 < len(paste) <= MAX_LINK_TEXT_CHARS:
        params[KEY_PASTE] = paste
    return params


def state_from_query(params: Mapping[str, str]) -> tuple[dict[str, Any], list[Message]]:
    """Session state from a link's query parameters, and warnings for values it ignored.

    The inverse of :func:`query_from_state`: ``state_from_query(query_from_state(s))`` gives
    back ``s`` (a long pasted text excepted: it never went into the link).
    """
    messages: list[Message] = []
    state = default_state()

    def ignored(key: str, why: str) -> None:
        shown = _short(params[key])
        messages.append(Message("warning", f"The link's {key}={shown} {why}; ignored."))

    def choose(key: str, choices: Sequence[str], why: str) -> None:
        value = params.get(key)
        if value is None:
            return
        if value in choices:
            state[key] = value
        else:
            ignored(key, why)

    choose(KEY_ALGORITHM, ALGORITHMS, f"is not one of {', '.join(ALGORITHMS)}")
    choose(KEY_SCORE_RULE, SCORE_RULES, f"is not one of {', '.join(SCORE_RULES)}")
    choose(KEY_SOURCE, SOURCES, f"is not one of {', '.join(SOURCES)}")
    choose(KEY_SAMPLE, sample_keys(), f"is not a bundled sample ({', '.join(sample_keys())})")
    state.update(_baseline(state))
    algorithm = ALGORITHM_REGISTRY[state[KEY_ALGORITHM]]
    vocab = params.get(KEY_VOCAB)
    if vocab is not None:
        count = whole_number(vocab)
        if count is not None and count >= min_vocab(algorithm.name):
            state[KEY_VOCAB] = count
        elif count is None:
            messages.append(unread_number(KEY_VOCAB, vocab))
        elif algorithm.name == "bpe":
            ignored(KEY_VOCAB, f"is below {MIN_VOCAB}, the 256 bytes and one merge")
        else:
            ignored(KEY_VOCAB, "is below 1")
    for key, name in UNIGRAM_KEYS.items():
        if params.get(key) is not None:
            _unigram_setting(key, name, params[key], state, messages)
    known = tuple(dict.fromkeys(name for info in ALGORITHM_REGISTRY.values()
                                for name in info.pretokenizers))  # fmt: skip
    choose(KEY_PRETOKENIZER, known, f"is not one of {', '.join(known)}")
    choose(KEY_TIE_BREAK, TIE_BREAKS, f"is not one of {', '.join(TIE_BREAKS)}")
    fitted = fitted_pretokenizer(algorithm.name, state[KEY_PRETOKENIZER])
    if fitted != state[KEY_PRETOKENIZER]:
        messages.append(
            Message(
                "warning",
                f"The link's pretok={state[KEY_PRETOKENIZER]!r} does not fit {algorithm.title}, "
                f"which takes {' or '.join(algorithm.pretokenizers)}: using {fitted!r}.",
            )
        )
        state[KEY_PRETOKENIZER] = fitted
    eow = params.get(KEY_END_OF_WORD)
    if eow is not None and algorithm.name != "bpe":
        ignored(KEY_END_OF_WORD, f"is BPE's end-of-word marker, not {algorithm.title}'s")
    elif eow is not None:
        flag = link_flag(eow)
        if flag is not None:
            state[KEY_END_OF_WORD] = flag
        else:
            ignored(KEY_END_OF_WORD, "is not 1 or 0")
    if params.get(KEY_SPECIALS):
        tokens = parse_special_tokens(params[KEY_SPECIALS])
        beyond = specials_beyond_the_box(tokens)
        if beyond is None:
            state[KEY_SPECIALS] = " ".join(tokens)
        else:
            ignored(KEY_SPECIALS, f"holds {beyond}")
    if params.get(KEY_PASTE):
        state[KEY_PASTE] = params[KEY_PASTE]
    return state, messages


def _unigram_setting(
    key: str, name: str, text: str, state: dict[str, Any], messages: list[Message]
) -> None:
    """Read one of Unigram's settings from a link into ``state``, or warn in one sentence
    (the same bounds, in the same words, as the trainer's: ``TrainingConfig.unigram_problems``).

    >>> state, messages = {}, []
    >>> _unigram_setting("ushrink", "shrinking_factor", "2", state, messages)
    >>> messages[0].text
    "The link's ushrink='2' is ignored: the shrinking factor (the share of tokens a round \
keeps) must lie between 0.05 and 0.95, got 2.0."
    """
    try:
        value: int | float = float(text) if name == "shrinking_factor" else int(text)
    except ValueError:
        value = math.nan if name == "shrinking_factor" else -1
    if name != "shrinking_factor" and whole_number(text) is None:
        messages.append(unread_number(key, text))
        return
    problems = TrainingConfig(1, algorithm="unigram", **{name: value}).unigram_problems()
    if problems:
        first = problems[0].split()[0]
        why = problems[0] if first.isupper() else problems[0][0].lower() + problems[0][1:]
        messages.append(Message("warning", f"The link's {key}={_short(text)} is ignored: {why}"))
        return
    state[key] = value
