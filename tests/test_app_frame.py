"""AppTest: the frame (app.py) with its shared sidebar, navigation, links and bad inputs.

Every run is followed by ``assert not at.exception`` (see :func:`run`). Widgets are found by
their keys, which are also the names of their query parameters. The autouse fixture comes
from ``apptest_support``: it clears Streamlit's caches.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from apptest_support import new_app, plain, run
from streamlit.testing.v1 import AppTest

from bpeviz.app.frame.text_input import MAX_PASTE_BYTES, MAX_UPLOAD_MB
from bpeviz.engine.history import train
from bpeviz.engine.samples import list_samples

APP = Path(__file__).parents[1] / "app.py"
PAGES = [
    "app_pages/step.py",
    "app_pages/tokenize.py",
    "app_pages/compression.py",
    "app_pages/compare.py",
    "app_pages/export.py",
    "app_pages/about.py",
]


def messages(elements) -> list[str]:
    return [plain(element.value) for element in elements]


def use_paste(at: AppTest, text: str) -> AppTest:
    """Run a fresh app, switch the sidebar to "Paste" and type ``text``."""
    run(at)
    run(at.radio(key="src").set_value("paste"))
    return run(at.text_area(key="paste").input(text))


@pytest.mark.parametrize("sample", list_samples(), ids=lambda sample: sample.key)
def test_the_frame_renders_each_sample_with_its_settings(sample) -> None:
    at = run(new_app(sample=sample.key))
    assert [title.value for title in at.title] == ["Step through training"]
    assert at.selectbox(key="sample").value == sample.key
    assert at.number_input(key="vocab").value == sample.settings.vocab_size
    assert at.selectbox(key="pretok").value == sample.settings.pretokenizer
    assert at.selectbox(key="tie").value == sample.settings.tie_break
    assert not at.error and not at.warning


def test_choosing_a_sample_applies_its_settings_and_puts_it_in_the_link() -> None:
    at = run(new_app())
    assert at.query_params == {}
    run(at.selectbox(key="sample").set_value("aaabdaaabac"))
    assert at.number_input(key="vocab").value == 259
    assert at.selectbox(key="pretok").value == "bytes"
    assert at.selectbox(key="tie").value == "lexmin"
    assert at.query_params == {"sample": "aaabdaaabac"}
    run(at.number_input(key="vocab").set_value(258))
    assert at.query_params == {"sample": "aaabdaaabac", "vocab": "258"}


def test_a_link_reproduces_the_settings() -> None:
    at = run(new_app(sample="ties", vocab="300", tie="lexmax", special="<|x|>"))
    assert at.selectbox(key="sample").value == "ties"
    assert at.number_input(key="vocab").value == 300
    assert at.selectbox(key="pretok").value == "words"  # the sample's suggestion
    assert at.selectbox(key="tie").value == "lexmax"
    assert at.text_input(key="special").value == "<|x|>"
    assert at.query_params == {
        "sample": "ties",
        "vocab": "300",
        "tie": "lexmax",
        "special": "<|x|>",
    }


def test_bad_link_values_are_ignored_with_a_warning() -> None:
    at = run(new_app(sample="nope", pretok="spaces"))
    assert at.selectbox(key="sample").value == "english"
    warnings = messages(at.warning)
    assert len(warnings) == 2 and all("ignored" in text for text in warnings)
    run(at)
    assert not at.warning  # said once, not on every rerun


def test_every_page_is_in_the_navigation() -> None:
    at = run(new_app())
    for page in PAGES:
        at.switch_page(page)  # raises ValueError for a page st.navigation does not list
    for page, title in [
        ("app_pages/tokenize.py", "Tokenize text"),
        ("app_pages/step.py", "Step through training"),
    ]:
        run(at.switch_page(page))
        assert at.title[0].value == title
        assert at.number_input(key="vocab").value == 512  # the sidebar is on every page


def test_presentation_mode_switches_the_stylesheet() -> None:
    at = run(new_app())
    styles = [h.value for h in at.html if h.value.startswith("<style>")]
    assert styles and "stMainMenu" not in styles[0]
    run(at.toggle(key="present").set_value(True))
    styles = [h.value for h in at.html if h.value.startswith("<style>")]
    assert "stMainMenu" in styles[0]


def step_record(at: AppTest) -> dict:
    """The record the Step page gave its view (``bpeviz.records.step.payload``)."""
    (view,) = [node for node in at.main if getattr(node, "type", None) == "bidi_component"]
    kind = view.proto.WhichOneof("data")
    data = json.loads(view.proto.mixed.json if kind == "mixed" else view.proto.json)
    return json.loads(data["payload"])


def test_pasted_text_is_trained_on_and_kept_when_switching_sources() -> None:
    text = "the cat sat on the mat"
    at = use_paste(new_app(), text)
    expected = train(text, 512, pretokenizer="gpt4", tie_break="first")
    assert step_record(at)["merge_count"] == expected.merge_count
    assert any("stopped early" in message for message in messages(at.info))
    assert "paste" in at.query_params and at.query_params["src"] == "paste"
    run(at.radio(key="src").set_value("sample"))
    run(at.radio(key="src").set_value("paste"))
    assert at.text_area(key="paste").value == "the cat sat on the mat"


def test_an_empty_paste_shows_an_error_not_an_exception() -> None:
    at = use_paste(new_app(), "")
    assert any("empty" in text for text in messages(at.error))
    assert not at.slider


def test_one_character_warns_that_nothing_can_be_learned() -> None:
    at = use_paste(new_app(), "a")
    assert any("single character" in text for text in messages(at.warning))
    assert not any("stopped early" in text for text in messages(at.info))  # said once, above


def test_a_paste_over_the_limit_is_refused_but_kept_in_the_box() -> None:
    big = "a" * (MAX_PASTE_BYTES + 10)
    at = use_paste(new_app(), big)
    assert any("limited to 2.0 MB" in text for text in messages(at.error))
    assert at.text_area(key="paste").value == big
    assert "paste" not in at.query_params  # too long for a link


@pytest.mark.parametrize(
    ("link", "vocab", "expected"),
    [({}, 2_000_000, "above the limit")],
    ids=["vocab-2M"],
)
def test_a_vocab_size_out_of_bounds_is_explained(
    link: dict[str, str], vocab: int, expected: str
) -> None:
    at = run(new_app(**link))
    run(at.number_input(key="vocab").set_value(vocab))
    assert any(expected in text for text in messages(at.error))
    assert not at.slider


def test_a_huge_vocab_trains_anyway_and_says_how_far_it_got() -> None:
    at = run(new_app(sample="low_lower"))
    run(at.number_input(key="vocab").set_value(1_000_000))
    info = " ".join(messages(at.info))
    assert "Training stopped early" in info and "no pair left" in info
    assert 0 < step_record(at)["merge_count"] < 1_000_000 - 256


def test_the_upload_limit_is_stated_up_front() -> None:
    at = run(new_app(src="upload"))
    assert f"up to {MAX_UPLOAD_MB} MB" in at.file_uploader[0].label
    assert any("Upload a text file" in text for text in messages(at.info))


def test_an_invalid_utf8_upload_trains_on_its_bytes_and_says_so() -> None:
    at = run(new_app(src="upload"))
    data = "café au lait, café noir, ".encode("latin-1") * 20
    run(at.file_uploader(key="upload").set_value(("menu.txt", data, "text/plain")))
    assert any("not valid UTF-8" in text for text in messages(at.info))
    assert step_record(at)["merge_count"] > 0


def test_a_binary_upload_is_refused() -> None:
    at = run(new_app(src="upload"))
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200)
    run(at.file_uploader(key="upload").set_value(("photo.png", png, "image/png")))
    assert any("binary" in text for text in messages(at.error))
    assert not at.slider


def test_the_vocab_size_boxes_start_at_257() -> None:
    """256 bytes and one merge, the least that trains (issue 31): the sidebar took 1, then
    failed, and 256 with the end-of-word marker failed too (257 base symbols)."""
    from apptest_support import open_page

    at = run(new_app())
    assert at.number_input(key="vocab").proto.min == 257
    runs = open_page("app_pages/two_runs.py")
    assert {box.proto.min for box in runs.number_input if box.key.startswith("runs_")} == {257}
