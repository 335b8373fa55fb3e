"""AppTest: the Tokenize page's menu of tokenization surprises, and links that open one."""

from __future__ import annotations

from apptest_support import new_app, open_page, plain, run

from bpeviz.app.tokenize.surprises import find_surprise

PAGE = "app_pages/tokenize.py"


def sentence(at) -> list[str]:
    return [plain(info.value) for info in at.info if "What to look at" in info.value]


def test_choosing_a_preset_fills_the_text_and_says_what_to_look_at() -> None:
    at = open_page(PAGE)
    assert at.selectbox(key="surprise").value is None
    assert not sentence(at)
    run(at.selectbox(key="surprise").select("arithmetic"))
    arithmetic = find_surprise("arithmetic")
    assert at.text_area(key="tok_text").value == arithmetic.text
    assert sentence(at) == [f"**What to look at.** {arithmetic.look}"]
    assert at.query_params["surprise"] == "arithmetic"
    assert "tok_text" not in at.query_params  # the preset's own text: the key says it all

    # Another preset replaces the text; editing it keeps the sentence and links the edit.
    run(at.selectbox(key="surprise").select("japanese"))
    assert at.text_area(key="tok_text").value == find_surprise("japanese").text
    run(at.text_area(key="tok_text").input("雨の日"))
    assert at.text_area(key="tok_text").value == "雨の日"
    assert len(sentence(at)) == 1


def test_a_link_opens_a_preset() -> None:
    at = run(new_app(surprise="endoftext"))
    at.switch_page(PAGE)
    run(at)
    endoftext = find_surprise("endoftext")
    assert at.text_area(key="tok_text").value == endoftext.text
    assert sentence(at) == [f"**What to look at.** {endoftext.look}"]


def test_a_link_with_an_unknown_preset_opens_the_page_as_usual() -> None:
    at = run(new_app(surprise="nope"))
    at.switch_page(PAGE)
    run(at)
    assert not sentence(at)
    assert at.text_area(key="tok_text").value.startswith("The printer counted pairs")
