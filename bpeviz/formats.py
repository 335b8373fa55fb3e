"""Read and write real BPE model files: minbpe, GPT-2 (Hugging Face) and tiktoken.

Each format stores something different, and the differences matter:

- minbpe ``.model`` (karpathy/minbpe): a ``minbpe v1`` header, the split pattern (empty for
  plain bytes), the special tokens, then one ``idx1 idx2`` line per merge; merge ``i`` makes
  id ``256 + i``. Its ``.vocab`` companion is for people (``[a][b] -> [ab] 300``) and lossy
  (broken UTF-8 becomes U+FFFD), so it is written, never read.
- GPT-2 ``vocab.json`` + ``merges.txt`` (also Hugging Face's byte-level BPE): token strings
  in GPT-2's byte-to-character mapping (a space shows as ``Ġ``) with their ids, and the merges
  as pairs of such strings in learned order. No split pattern is stored: GPT-2's is assumed.
- tiktoken ``.tiktoken``: ``base64(token bytes) rank`` lines, the rank being the id. There
  are no merges: tiktoken joins whichever adjacent pair forms the lowest-ranked token. The split
  pattern and the special tokens live in code, so the caller passes them when loading.

Every format has pure functions on file contents (``to_*`` returns ``str``, ``from_*`` takes
``str`` or ``bytes``) and thin path helpers (``save_*`` / ``load_*``). :func:`load_model_file`
picks the reader for an uploaded file.

Reading never trusts the file: anything malformed raises ``ValueError`` naming the file, the
line and what was expected. Writing refuses what a format cannot hold instead of approximating
it: the ``</w>`` end-of-word marker, the ``words`` pre-tokenizer in a ``.model``, ids a format
cannot number, and two tokens with the same bytes where tokens are keyed by their bytes.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import regex

from bpeviz.pretokenize import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, to_bytes
from bpeviz.tokenizer import Tokenizer, pretokenizer_for_pattern

MINBPE_HEADER = "minbpe v1"
GPT2_MERGES_HEADER = "#version: 0.2"
_NUMBER = re.compile(r"[0-9]+")  # ASCII digits only: int() would also take "+1", "1_0", "٣"
_LINE_PREVIEW = 60


# ---- shared helpers -----------------------------------------------------------------------


def render_token(token: bytes) -> str:
    """A token as minbpe's ``.vocab`` shows it: UTF-8 with U+FFFD for broken bytes, and
    control characters escaped as ``\\uXXXX`` (minbpe's ``render_token``, exactly).

    >>> render_token(b"hi\\n")
    'hi\\\\u000a'
    >>> render_token(b"\\xe6\\x97")
    '�'
    """
    text = token.decode("utf-8", errors="replace")
    return "".join(
        f"\\u{ord(char):04x}" if unicodedata.category(char)[0] == "C" else char for char in text
    )


def _preview(line: str) -> str:
    """A line quoted for an error message, shortened when long."""
    if len(line) > _LINE_PREVIEW:
        line = line[:_LINE_PREVIEW] + "…"
    return repr(line)


def _decode_text(data: str | bytes, kind: str) -> str:
    """File contents as text (a UTF-8 byte order mark is dropped); bytes that are not UTF-8
    are named by line and offset."""
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        bad = data[error.start : error.start + 1].hex()
        raise ValueError(
            f"line {line} of the {kind} is not UTF-8 text (byte 0x{bad} at offset "
            f"{error.start}): is this really a {kind}?"
        ) from None


def _lines(text: str) -> list[str]:
    """Lines split on ``\\n`` (a ``\\r`` before it is dropped), without the empty last one."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _check_representable(tokenizer: Tokenizer, kind: str) -> None:
    if tokenizer.end_of_word:
        raise ValueError(
            f"a model with the </w> end-of-word marker cannot be written as a {kind}: "
            "the format has no such symbol. Retrain without the marker (end_of_word=False) "
            "to save it in this format."
        )


def _require_merges(tokenizer: Tokenizer, kind: str) -> None:
    if tokenizer.ranks is not None:
        raise ValueError(
            f"this tokenizer is a rank table (tiktoken style) with no merge list, and a {kind} "
            "needs the merges: save it as a .tiktoken file instead"
        )


def _check_unique_bytes(tokenizer: Tokenizer, kind: str) -> None:
    """Refuse two ids with the same bytes (possible in BPE: ``a+bc`` and ``ab+c``)."""
    seen: dict[bytes, int] = {}
    for token_id in sorted(tokenizer.vocab):
        token = tokenizer.vocab[token_id]
        if token in seen:
            raise ValueError(
                f"ids {seen[token]} and {token_id} are both the token {render_token(token)!r}: "
                f"a {kind} keys tokens by their bytes, so it cannot hold both. "
                "Save the model as a minbpe .model instead."
            )
        seen[token] = token_id


# ---- minbpe .model and .vocab -------------------------------------------------------------


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
    _check_representable(tokenizer, kind)
    _require_merges(tokenizer, kind)
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
    lines = _lines(_decode_text(data, _MODEL))
    if not any(lines):
        raise ValueError(f"the {_MODEL} is empty: expected {MINBPE_HEADER!r} on line 1")
    header = _model_line(lines, 1, repr(MINBPE_HEADER))
    if header.strip() != MINBPE_HEADER:
        raise ValueError(
            f"line 1 of the {_MODEL}: expected {MINBPE_HEADER!r}, got {_preview(header)}: "
            "this is not a minbpe model file"
        )
    pattern = _model_line(lines, 2, "the split pattern (an empty line for none)")
    if pattern:
        try:
            regex.compile(pattern)
        except regex.error as error:
            raise ValueError(
                f"line 2 of the {_MODEL}: the split pattern does not compile ({error})"
            ) from None
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
    if not _NUMBER.fullmatch(count_line.strip()):
        raise ValueError(
            f"line 3 of the {_MODEL}: expected the number of special tokens, "
            f"got {_preview(count_line)}"
        )
    specials: dict[str, tuple[int, int]] = {}
    owners: dict[int, str] = {}
    for number in range(4, 4 + int(count_line.strip())):
        line = _model_line(lines, number, "a special token line 'token id'")
        parts = line.rsplit(None, 1)
        if len(parts) != 2 or not _NUMBER.fullmatch(parts[1]):
            raise ValueError(
                f"line {number} of the {_MODEL}: expected a special token 'token id', "
                f"got {_preview(line)}"
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
        if len(parts) != 2 or not all(_NUMBER.fullmatch(part) for part in parts):
            raise ValueError(
                f"line {number} of the {_MODEL}: expected two ids 'idx1 idx2', got {_preview(line)}"
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


# ---- GPT-2 vocab.json + merges.txt --------------------------------------------------------


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's printable stand-in character for each byte (``encoder.py``'s mapping).

    Printable Latin-1 bytes stand for themselves; the other 68 (controls, space, ...) get
    the characters from U+0100 up, in byte order. So a space is ``Ġ`` and a newline ``Ċ``.

    >>> mapping = bytes_to_unicode()
    >>> mapping[ord("a")], mapping[32], mapping[10]
    ('a', 'Ġ', 'Ċ')
    """
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    mapping = {byte: chr(byte) for byte in printable}
    extra = 0
    for byte in range(256):
        if byte not in mapping:
            mapping[byte] = chr(256 + extra)
            extra += 1
    return dict(sorted(mapping.items()))


_BYTE_TO_CHAR = bytes_to_unicode()


def _gpt2_string(token: bytes) -> str:
    return "".join(_BYTE_TO_CHAR[byte] for byte in token)


def to_gpt2_files(tokenizer: Tokenizer) -> tuple[str, str]:
    """The tokenizer as GPT-2's ``(vocab.json, merges.txt)`` contents, ids unchanged.

    Special tokens go into ``vocab.json`` under their own text. The split pattern is not
    part of these files: pass it again to :func:`from_gpt2_files` (GPT-2's is the default).

    >>> vocab_json, merges_txt = to_gpt2_files(Tokenizer.from_merges([(32, 116)]))
    >>> merges_txt
    '#version: 0.2\\nĠ t\\n'
    """
    kind = "GPT-2 vocab.json + merges.txt"
    _check_representable(tokenizer, kind)
    _require_merges(tokenizer, kind)
    _check_unique_bytes(tokenizer, kind)
    vocab = {
        _gpt2_string(tokenizer.vocab[token_id]): token_id for token_id in sorted(tokenizer.vocab)
    }
    for text, token_id in tokenizer.special_tokens.items():
        if text in vocab:
            raise ValueError(
                f"special token {text!r} is spelled like token {vocab[text]} in vocab.json, "
                "which maps each string to one id: rename the special token"
            )
        vocab[text] = token_id
    merges = [
        f"{_gpt2_string(tokenizer.vocab[left])} {_gpt2_string(tokenizer.vocab[right])}"
        for left, right, _ in tokenizer.merges
    ]
    vocab_json = json.dumps(vocab, ensure_ascii=False, indent=0) + "\n"
    merges_txt = "".join(line + "\n" for line in [GPT2_MERGES_HEADER, *merges])
    return vocab_json, merges_txt


def from_gpt2_files(
    vocab_json: str | bytes,
    merges_txt: str | bytes,
    *,
    pattern: str = GPT2_SPLIT_PATTERN,
) -> Tokenizer:
    """Read GPT-2 / Hugging Face byte-level BPE files: ``vocab.json`` and ``merges.txt``.

    Ids come from ``vocab.json``; each merge line ``left right`` joins two tokens into the
    token spelled ``left + right``. Entries of ``vocab.json`` that are neither a byte nor made
    by a merge (``<|endoftext|>``) become special tokens. ``pattern`` is the split pattern to
    use ("" for none), since the files do not store one.
    """
    vocab_kind, merges_kind = "vocab.json file", "merges.txt file"
    vocab = _read_gpt2_vocab(_decode_text(vocab_json, vocab_kind))
    byte_ids = []
    for byte, char in _BYTE_TO_CHAR.items():
        if char not in vocab:
            raise ValueError(
                f"the {vocab_kind} has no entry for byte {byte} (written {char!r}): a byte-level "
                "BPE needs all 256 bytes"
            )
        byte_ids.append(vocab[char])

    made = {char: 0 for char in _BYTE_TO_CHAR.values()}  # token -> line making it (0: a byte)
    merges = []
    for number, line in _merge_lines(_decode_text(merges_txt, merges_kind)):
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise ValueError(
                f"line {number} of the {merges_kind}: expected two tokens 'left right' "
                f"separated by one space, got {_preview(line)}"
            )
        left, right = parts
        for token in parts:
            if token not in made:
                where = "is not in vocab.json" if token not in vocab else "no earlier line makes"
                raise ValueError(
                    f"line {number} of the {merges_kind}: merge uses token {token!r}, which {where}"
                )
        joined = left + right
        if joined not in vocab:
            raise ValueError(
                f"line {number} of the {merges_kind}: the merge makes {joined!r}, which is "
                "not in vocab.json"
            )
        if joined in made:
            raise ValueError(
                f"line {number} of the {merges_kind}: the merge makes {joined!r}, which line "
                f"{made[joined]} already makes: bpeviz needs every merge to make a new token"
            )
        made[joined] = number
        merges.append((vocab[left], vocab[right], vocab[joined]))

    specials = {text: token_id for text, token_id in vocab.items() if text not in made}
    pretokenizer, override = pretokenizer_for_pattern(pattern)
    return Tokenizer(
        byte_ids=byte_ids,
        merges=merges,
        pretokenizer=pretokenizer,
        pattern=override,
        special_tokens=specials,
    )


def _read_gpt2_vocab(text: str) -> dict[str, int]:
    kind = "vocab.json file"
    if not text.strip():
        raise ValueError(f'the {kind} is empty: expected a JSON object like {{"a": 64}}')
    try:
        vocab = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"line {error.lineno} of the {kind} is not valid JSON (column {error.colno}: "
            f"{error.msg})"
        ) from None
    if not isinstance(vocab, dict):
        raise ValueError(
            f"the {kind} holds a JSON {type(vocab).__name__}: expected an object mapping each "
            'token to its id, like {"a": 64}'
        )
    owners: dict[int, str] = {}
    for token, token_id in vocab.items():
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id < 0:
            raise ValueError(
                f"line {_json_line(text, token)} of the {kind}: token {token!r} has id "
                f"{token_id!r}: expected a whole number of 0 or more"
            )
        if token_id in owners:
            raise ValueError(
                f"line {_json_line(text, token)} of the {kind}: tokens {owners[token_id]!r} and "
                f"{token!r} both have id {token_id}: ids must be unique"
            )
        owners[token_id] = token
    return vocab


def _json_line(text: str, token: str) -> int:
    """The line where a key of the JSON object appears (1 if it cannot be found)."""
    position = text.find(json.dumps(token, ensure_ascii=False) + ":")
    if position < 0:
        position = text.find(json.dumps(token) + ":")
    return text.count("\n", 0, position) + 1 if position >= 0 else 1


def _merge_lines(text: str) -> Iterator[tuple[int, str]]:
    """Numbered merge lines: a leading ``#version`` header and blank lines are skipped."""
    for number, line in enumerate(_lines(text), start=1):
        if number == 1 and line.startswith("#version"):
            continue
        if line.strip():
            yield number, line


# ---- tiktoken .tiktoken -------------------------------------------------------------------


def to_tiktoken(tokenizer: Tokenizer) -> str:
    """The tokenizer as a ``.tiktoken`` ranks file: ``base64(token) id`` per line, by id.

    Special tokens and the split pattern are not part of the file (tiktoken passes them in
    code). A merge list becomes ranks (rank = id, so later merges rank higher). Beware:
    tiktoken joins whichever adjacent pair forms the lowest-ranked token, even a pair that
    never was a merge, so a few texts can encode differently than with the merges (after
    ``a+b``, ``b+c``, ``a+bc``, the text ``abc`` gives ``ab c`` by merges, ``abc`` by ranks).

    >>> to_tiktoken(Tokenizer.from_merges([(104, 105)])).splitlines()[-1]
    'aGk= 256'
    """
    kind = ".tiktoken file"
    _check_representable(tokenizer, kind)
    _check_unique_bytes(tokenizer, kind)
    last = -1
    for index, (_, _, new) in enumerate(tokenizer.merges):
        if new <= last:
            raise ValueError(
                f"merge {index + 1} makes id {new}, lower than an earlier merge's id {last}: in a "
                ".tiktoken file the id is the rank, so ids must grow in merge order"
            )
        last = new
    vocab = tokenizer.vocab
    return "".join(
        f"{base64.b64encode(vocab[token_id]).decode('ascii')} {token_id}\n"
        for token_id in sorted(vocab)
    )


def from_tiktoken(
    data: str | bytes,
    *,
    pattern: str = GPT4_SPLIT_PATTERN,
    special_tokens: dict[str, int] | None = None,
) -> Tokenizer:
    """Read a ``.tiktoken`` ranks file (the format of ``cl100k_base.tiktoken``).

    ``pattern`` and ``special_tokens`` are not in the file; the default pattern is cl100k's.

    >>> ranks = "".join(f"{base64.b64encode(bytes([b])).decode()} {b}\\n" for b in range(256))
    >>> from_tiktoken(ranks + "aGk= 256\\n").encode("hi!")
    [256, 33]
    """
    kind = ".tiktoken file"
    lines = _lines(_decode_text(data, kind))
    ranks: dict[bytes, int] = {}
    rank_lines: dict[int, int] = {}  # rank -> line number
    token_lines: dict[bytes, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line:
            continue  # tiktoken skips empty lines too
        parts = line.split()
        if len(parts) != 2 or not _NUMBER.fullmatch(parts[1]):
            raise ValueError(
                f"line {number} of the {kind}: expected 'base64_token rank', got {_preview(line)}"
            )
        try:
            token = base64.b64decode(parts[0], validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(
                f"line {number} of the {kind}: {_preview(parts[0])} is not valid base64"
            ) from None
        rank = int(parts[1])
        if rank in rank_lines:
            raise ValueError(
                f"line {number} of the {kind}: rank {rank} is already used on line "
                f"{rank_lines[rank]}: every token needs its own rank"
            )
        if token in token_lines:
            raise ValueError(
                f"line {number} of the {kind}: token {render_token(token)!r} is already on line "
                f"{token_lines[token]}"
            )
        ranks[token] = rank
        rank_lines[rank] = number
        token_lines[token] = number
    if not ranks:
        raise ValueError(f"the {kind} is empty: expected lines 'base64_token rank'")
    missing = [value for value in range(256) if bytes([value]) not in ranks]
    if missing:
        raise ValueError(
            f"the {kind} lacks {len(missing)} single-byte tokens (first: byte {missing[0]}, "
            f"base64 {base64.b64encode(bytes([missing[0]])).decode()!r}): a byte-level BPE "
            "needs all 256"
        )
    owners: dict[int, str] = {}
    for text, token_id in (special_tokens or {}).items():
        if token_id in owners:
            raise ValueError(
                f"special tokens {owners[token_id]!r} and {text!r} both have id {token_id}: "
                "give each its own id"
            )
        owners[token_id] = text
        if token_id in rank_lines:
            raise ValueError(
                f"special token {text!r} has id {token_id}, which line {rank_lines[token_id]} "
                f"of the {kind} already uses: give it an unused id"
            )
    return Tokenizer.from_ranks(ranks, pattern=pattern, special_tokens=special_tokens)


# ---- path helpers and uploads -------------------------------------------------------------


def _write(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as file:
        file.write(text)


def _read(path: str | Path) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def save_minbpe(tokenizer: Tokenizer, prefix: str | Path) -> tuple[Path, Path]:
    """Write ``prefix.model`` and ``prefix.vocab`` (as minbpe's ``save(prefix)``)."""
    model_text = to_minbpe_model(tokenizer)  # check before writing anything
    model_path, vocab_path = Path(f"{prefix}.model"), Path(f"{prefix}.vocab")
    _write(model_path, model_text)
    _write(vocab_path, to_minbpe_vocab(tokenizer))
    return model_path, vocab_path


def load_minbpe(path: str | Path) -> Tokenizer:
    """Read a minbpe ``.model`` file from disk."""
    return from_minbpe_model(_read(path))


def save_gpt2(tokenizer: Tokenizer, vocab_path: str | Path, merges_path: str | Path) -> None:
    """Write GPT-2's ``vocab.json`` and ``merges.txt``."""
    vocab_json, merges_txt = to_gpt2_files(tokenizer)
    _write(Path(vocab_path), vocab_json)
    _write(Path(merges_path), merges_txt)


def load_gpt2(
    vocab_path: str | Path, merges_path: str | Path, *, pattern: str = GPT2_SPLIT_PATTERN
) -> Tokenizer:
    """Read GPT-2's ``vocab.json`` and ``merges.txt`` from disk."""
    return from_gpt2_files(_read(vocab_path), _read(merges_path), pattern=pattern)


def save_tiktoken(tokenizer: Tokenizer, path: str | Path) -> None:
    """Write a ``.tiktoken`` ranks file."""
    _write(Path(path), to_tiktoken(tokenizer))


def load_tiktoken(
    path: str | Path,
    *,
    pattern: str = GPT4_SPLIT_PATTERN,
    special_tokens: dict[str, int] | None = None,
) -> Tokenizer:
    """Read a ``.tiktoken`` ranks file from disk."""
    return from_tiktoken(_read(path), pattern=pattern, special_tokens=special_tokens)


_TIKTOKEN_LINE = re.compile(rb"[A-Za-z0-9+/=]+ [0-9]+\r?\n")


def load_model_file(name: str, data: bytes) -> Tokenizer:
    """Read one uploaded model file: a minbpe ``.model`` or a tiktoken ``.tiktoken``.

    The format comes from the file name, or from the content when the name says nothing.
    GPT-2 files come in pairs: read them with :func:`from_gpt2_files`.
    """
    lower = name.lower()
    if lower.endswith(".model"):
        return from_minbpe_model(data)
    if lower.endswith(".tiktoken"):
        return from_tiktoken(data)
    if lower.endswith(".vocab"):
        raise ValueError(
            f"{name!r} is minbpe's human-readable .vocab listing, which cannot be read back "
            "(it is lossy): load the .model file saved next to it"
        )
    if lower.endswith((".json", "merges.txt")):
        raise ValueError(
            f"{name!r} is half of a GPT-2 tokenizer: load vocab.json and merges.txt together "
            "(bpeviz.formats.from_gpt2_files)"
        )
    if data.startswith(MINBPE_HEADER.encode()):
        return from_minbpe_model(data)
    if _TIKTOKEN_LINE.match(data):
        return from_tiktoken(data)
    raise ValueError(
        f"cannot tell what kind of model {name!r} is: load a minbpe .model file (its first line "
        f"is {MINBPE_HEADER!r}) or a tiktoken .tiktoken file (lines 'base64_token rank')"
    )
