"""minbpe's files (karpathy/minbpe): the ``.model`` it reads back and the ``.vocab`` for people.

A ``.model`` is a ``minbpe v1`` header, the split pattern (empty for plain bytes), the
special tokens, then one ``idx1 idx2`` line per merge; merge ``i`` makes id ``256 + i``.
The ``.vocab`` companion (``[a][b] -> [ab] 300``) is lossy (broken UTF-8 becomes U+FFFD), so
it is written, never read.
"""

from __future__ import annotations

from bpeviz.engine.pretokenize import check_split_pattern, to_bytes
from bpeviz.engine.tokenizer import Tokenizer, pretokenizer_for_pattern
from bpeviz.formats.common import (
    NUMBER,
    check_representable,
    decode_text,
    preview,
    render_token,
    require_merges,
    split_lines,
)

MINBPE_HEADER = "minbpe v1"


def to_minbpe_model(tokenizer: Tokenizer) -> str:
    """The tokenizer as a minbpe ``.model`` file (what minbpe's ``Tokenizer.save`` writes).

    >>> print(to_minbpe_model(Tokenizer.from_merges([(97, 97), (256, 97)])), end="")
    minbpe v1
    <BLANKLINE>
    0
    97 97
    256 97
    """
    kind = ".model file"
    check_representable(tokenizer, kind)
    require_merges(tokenizer, kind)
    if tokenizer.pretokenizer == "words":
        raise ValueError(
            "the 'words' pre-tokenizer keeps whitespace out of every merge, which a minbpe "
            ".model cannot express (minbpe merges inside every piece its pattern cuts): "
            "retrain with the 'bytes', 'gpt2' or 'gpt4' pre-tokenizer to save a .model"
        )
    if tuple(tokenizer.byte_ids) != tuple(range(256)):
        raise ValueError(
            "a .model file numbers the bytes 0..255, but this tokenizer numbers them "
            "differently: save it as GPT-2 vocab.json + merges.txt instead"
        )
    for index, (_, _, new) in enumerate(tokenizer.merges):
        if new != 256 + index:
            raise ValueError(
                f"a .model file gives merge {index + 1} the id {256 + index}, but this "
                f"tokenizer gives it {new}: save it as GPT-2 vocab.json + merges.txt instead"
            )
    pattern = tokenizer.split_pattern
    if "\n" in pattern or "\r" in pattern:
        raise ValueError("the split pattern contains a line break, which a .model cannot hold")
    lines = [MINBPE_HEADER, pattern, str(len(tokenizer.special_tokens))]
    for text, token_id in tokenizer.special_tokens.items():
        if not text or any(char.isspace() for char in text):
            raise ValueError(
                f"special token {text!r} is empty or contains whitespace, which a .model "
                "cannot hold (minbpe splits each line on whitespace): rename it"
            )
        lines.append(f"{text} {token_id}")
    lines.extend(f"{left} {right}" for left, right, _ in tokenizer.merges)
    return "\n".join(lines) + "\n"


def to_minbpe_vocab(tokenizer: Tokenizer) -> str:
    """minbpe's human-readable ``.vocab``: ``[a][b] -> [ab] id`` per merge, ``[x] id`` otherwise.

    Ids come in increasing order, then special tokens (as minbpe lists a loaded model). For a
    minbpe-style model this is byte for byte what minbpe writes. A rank table has no merges,
    so every token shows as ``[x] id``.

    >>> print(to_minbpe_vocab(Tokenizer.from_merges([(104, 105)])).splitlines()[-1])
    [h][i] -> [hi] 256
    """
    children = {new: (left, right) for left, right, new in tokenizer.merges}
    vocab = tokenizer.vocab
    lines = []
    for token_id in sorted(vocab):
        shown = render_token(vocab[token_id])
        if token_id in children:
            left, right = children[token_id]
            lines.append(
                f"[{render_token(vocab[left])}][{render_token(vocab[right])}] -> [{shown}] "
                f"{token_id}"
            )
        else:
            lines.append(f"[{shown}] {token_id}")
    for text, token_id in tokenizer.special_tokens.items():
        lines.append(f"[{render_token(to_bytes(text))}] {token_id}")
    return "".join(line + "\n" for line in lines)


def from_minbpe_model(data: str | bytes) -> Tokenizer:
    """Read a minbpe ``.model`` file; the pattern picks the pre-tokenizer.

    >>> tokenizer = from_minbpe_model("minbpe v1\\n\\n0\\n97 97\\n256 97\\n257 98\\n")
    >>> tokenizer.encode("aaabdaaabac")
    [258, 100, 258, 97, 99]
    """
    lines = split_lines(decode_text(data, _MODEL))
    if not any(lines):
        raise ValueError(f"the {_MODEL} is empty: expected {MINBPE_HEADER!r} on line 1")
    header = _model_line(lines, 1, repr(MINBPE_HEADER))
    if header.strip() != MINBPE_HEADER:
        raise ValueError(
            f"line 1 of the {_MODEL}: expected {MINBPE_HEADER!r}, got {preview(header)}: "
            "this is not a minbpe model file"
        )
    pattern = _model_line(lines, 2, "the split pattern (an empty line for none)")
    if pattern:
        try:
            check_split_pattern(pattern)
        except ValueError as error:
            raise ValueError(f"line 2 of the {_MODEL}: {error}") from None
    specials = _model_specials(lines)  # text -> (id, line number)
    first_merge_line = 4 + len(specials)
    pairs = _model_merges(lines, first_merge_line)
    merge_end = 256 + len(pairs)
    for text, (token_id, number) in specials.items():
        if token_id < merge_end:
            made_by = (
                "a byte"
                if token_id < 256
                else f"the merge on line {first_merge_line + token_id - 256}"
            )
            raise ValueError(
                f"line {number} of the {_MODEL}: special token {text!r} has id {token_id}, "
                f"which is already {made_by}: give it an id of {merge_end} or more"
            )
    pretokenizer, override = pretokenizer_for_pattern(pattern)
    return Tokenizer(
        merges=[(left, right, 256 + index) for index, (left, right) in enumerate(pairs)],
        pretokenizer=pretokenizer,
        pattern=override,
        special_tokens={text: token_id for text, (token_id, _) in specials.items()},
    )


_MODEL = ".model file"


def _model_line(lines: list[str], number: int, what: str) -> str:
    """Line ``number`` (from 1) of a ``.model`` file, which must exist."""
    if number > len(lines):
        raise ValueError(f"the {_MODEL} ends after line {len(lines)}: expected {what} next")
    return lines[number - 1]


def _model_specials(lines: list[str]) -> dict[str, tuple[int, int]]:
    """Line 3 (how many special tokens) and the ``token id`` lines after it."""
    count_line = _model_line(lines, 3, "the number of special tokens")
    if not NUMBER.fullmatch(count_line.strip()):
        raise ValueError(
            f"line 3 of the {_MODEL}: expected the number of special tokens, "
            f"got {preview(count_line)}"
        )
    specials: dict[str, tuple[int, int]] = {}
    owners: dict[int, str] = {}
    for number in range(4, 4 + int(count_line.strip())):
        line = _model_line(lines, number, "a special token line 'token id'")
        parts = line.rsplit(None, 1)
        if len(parts) != 2 or not NUMBER.fullmatch(parts[1]):
            raise ValueError(
                f"line {number} of the {_MODEL}: expected a special token 'token id', "
                f"got {preview(line)}"
            )
        text, token_id = parts[0].strip(), int(parts[1])
        if text in specials:
            raise ValueError(
                f"line {number} of the {_MODEL}: special token {text!r} is already on line "
                f"{specials[text][1]}"
            )
        if token_id in owners:
            other = owners[token_id]
            raise ValueError(
                f"line {number} of the {_MODEL}: special token {text!r} reuses id {token_id} "
                f"of {other!r} (line {specials[other][1]})"
            )
        specials[text] = (token_id, number)
        owners[token_id] = text
    return specials


def _model_merges(lines: list[str], first_line: int) -> list[tuple[int, int]]:
    """The ``idx1 idx2`` lines from ``first_line`` on: merge ``i`` makes id ``256 + i``."""
    merge_lines = lines[first_line - 1 :]
    while merge_lines and not merge_lines[-1].strip():
        merge_lines.pop()  # trailing blank lines carry nothing
    pairs: list[tuple[int, int]] = []
    seen: dict[tuple[int, int], int] = {}  # pair -> line number
    for index, line in enumerate(merge_lines):
        number = first_line + index
        parts = line.split()
        if len(parts) != 2 or not all(NUMBER.fullmatch(part) for part in parts):
            raise ValueError(
                f"line {number} of the {_MODEL}: expected two ids 'idx1 idx2', got {preview(line)}"
            )
        pair = (int(parts[0]), int(parts[1]))
        for token_id in pair:
            if token_id >= 256 + index:
                raise ValueError(
                    f"line {number} of the {_MODEL}: merge uses id {token_id}, which no earlier "
                    f"line makes (ids so far run 0..{255 + index})"
                )
        if pair in seen:
            raise ValueError(
                f"line {number} of the {_MODEL}: the merge {pair[0]} {pair[1]} is already on "
                f"line {seen[pair]}"
            )
        seen[pair] = number
        pairs.append(pair)
    return pairs



