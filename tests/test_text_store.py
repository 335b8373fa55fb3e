"""The store of texts too long for a link: bounded, least recently used dropped first, and a
link to a text it no longer keeps gets a message, not an empty box without a word."""

from __future__ import annotations

import hashlib

from apptest_support import new_app, run

from bpeviz.app.frame.text_store import TextStore, text_ref


def test_the_reference_is_the_texts_blake2b_digest() -> None:
    text = "駅前の小さな本屋で"
    assert text_ref(text) == hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def test_the_store_never_holds_more_than_its_bound() -> None:
    store = TextStore(max_bytes=1_000)
    refs = [store.put(f"{i:04d}" * 50) for i in range(20)]  # 200 bytes each
    assert store.size_bytes == 1_000
    assert [store.get(ref) is not None for ref in refs] == [False] * 15 + [True] * 5


def test_a_text_read_again_is_kept_over_older_ones() -> None:
    store = TextStore(max_bytes=600)
    first, second, third = (store.put(c * 200) for c in "abc")
    assert store.get(first) == "a" * 200  # now the most recently used
    store.put("d" * 200)
    assert store.get(second) is None
    assert store.get(first) == "a" * 200 and store.get(third) == "c" * 200


def test_the_same_text_is_held_once_and_a_text_over_the_bound_not_at_all() -> None:
    store = TextStore(max_bytes=500)
    assert store.put("x" * 300) == store.put("x" * 300)
    assert store.size_bytes == 300
    store.put("y" * 501)
    assert store.size_bytes == 300


def test_a_link_to_a_forgotten_text_says_so() -> None:
    at = run(new_app(src="paste", paste_ref="0" * 32))
    assert any("no longer keeps" in warning.value for warning in at.warning)
    at = run(new_app(tok_text_ref="0" * 32))
    run(at.switch_page("app_pages/tokenize.py"))
    assert any("no longer keeps" in warning.value for warning in at.warning)
