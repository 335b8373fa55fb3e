"""AppTest: the Step page shows exactly what the trainer recorded, at any step.

Expected values come from ``bpeviz.trainer`` called here directly, not from the page. The autouse
fixture (``apptest_support.prepare``) clears caches around each test.
"""

from __future__ import annotations

import html
from pathlib import Path

import apptest_support
import pytest
from apptest_support import new_app, plain, run
from streamlit.testing.v1 import AppTest

from bpeviz.app.marks import FOCUS_SCRIPT
from bpeviz.history import History, train
from bpeviz.samples import get_sample

APP = Path(__file__).parents[1] / "app.py"


@pytest.fixture(autouse=True)
def _app(monkeypatch: pytest.MonkeyPatch):
    """Clean Streamlit caches around each test (see ``apptest_support``)."""
    yield from apptest_support.prepare(monkeypatch)


def sample_history(key: str, **overrides) -> History:
    sample = get_sample(key)
    options = {
        "pretokenizer": sample.settings.pretokenizer,
        "tie_break": sample.settings.tie_break,
        "end_of_word": sample.settings.end_of_word,
    }
    options.update(overrides)
    vocab = options.pop("vocab_size", sample.settings.vocab_size)
    return train(sample.text, vocab, **options)


def card(at: AppTest) -> str:
    cards = [h.value for h in at.html if h.value.startswith('<div class="bpe-card">')]
    assert len(cards) == 1
    return html.unescape(cards[0])


def spans(at: AppTest) -> str:
    texts = [h.value for h in at.html if h.value.startswith('<div class="bpe-scroll"')]
    assert len(texts) == 1
    return texts[0]


def goto(at: AppTest, k: int) -> AppTest:
    return run(at.slider(key="step").set_value(k))


def assert_shows_merge(at: AppTest, history: History, k: int) -> None:
    step = history.steps[k - 1]
    shown = card(at)
    assert f"Merge {k:,} of {history.merge_count:,}" in shown
    for token_id in (*step.pair, step.new_id):
        assert f"id {token_id}<" in shown
    times = "once" if step.count == 1 else f"{step.count:,} times"
    assert f"The pair occurred {times}" in shown
    table = at.dataframe[0].value
    assert (table.left_id[0], table.right_id[0], table["count"][0]) == (*step.pair, step.count)
    assert table["note"][0] == f"◀ merge {k}"


@pytest.mark.parametrize(
    ("key", "steps"),
    [("english", [1, 2, 17, 256]), ("japanese", [1, 3, 100]), ("aaabdaaabac", [1, 2, 3])],
)
def test_moving_the_step_to_k_shows_merge_k_exactly(key: str, steps: list[int]) -> None:
    history = sample_history(key)
    at = run(new_app(sample=key))
    assert at.slider(key="step").max == history.merge_count
    for k in steps:
        goto(at, k)
        assert_shows_merge(at, history, k)
        assert at.metric[0].value == f"{history.token_count(k):,}"


@pytest.mark.parametrize("rule", ["first", "lexmin", "lexmax"])
def test_ties_are_explained_with_the_rule_that_broke_them(rule: str) -> None:
    history = sample_history("ties", tie_break=rule)
    at = run(new_app(sample="ties", tie=rule, step="1"))
    assert_shows_merge(at, history, 1)
    shown = card(at)
    assert "3 pairs occurred 2 times each" in shown
    assert f"The rule “{rule}” picked" in shown
    assert at.dataframe[0].value["note"].tolist()[:3] == ["◀ merge 1", "tied", "tied"]


def test_step_zero_names_the_pair_merge_one_will_join() -> None:
    history = sample_history("cat_sat")
    at = run(new_app(sample="cat_sat"))
    assert at.slider(key="step").value == 0
    assert "Step 0: no merges yet" in card(at)
    assert "Merge 1 will join “a” + “t”" in card(at)
    assert spans(at).count("bpe-ps") == history.steps[0].replacements == 3


def test_buttons_and_the_jump_box_move_the_step() -> None:
    at = run(new_app())
    run(at.button(key="step_next").click())
    run(at.button(key="step_next").click())
    assert at.slider(key="step").value == 2
    run(at.button(key="step_prev").click())
    assert at.slider(key="step").value == 1
    run(at.button(key="step_last").click())
    assert at.slider(key="step").value == 256
    assert at.button(key="step_next").disabled
    run(at.button(key="step_first").click())
    assert at.slider(key="step").value == 0
    assert at.button(key="step_prev").disabled
    run(at.number_input(key="jump").set_value(42))
    assert at.slider(key="step").value == 42
    assert at.number_input(key="jump").value is None  # emptied, ready for the next jump
    run(at.button(key="step_next").click())
    run(at.number_input(key="jump").set_value(42))
    assert at.slider(key="step").value == 42
    assert_shows_merge(at, sample_history("english"), 42)


def test_a_link_opens_at_its_step() -> None:
    at = run(new_app(sample="aaabdaaabac", step="2"))
    assert at.slider(key="step").value == 2
    assert "Merge 2 of 3" in card(at)


def test_before_and_after_outline_the_pair_then_the_new_token() -> None:
    history = sample_history("aaabdaaabac")
    at = goto(run(new_app(sample="aaabdaaabac")), 1)
    replacements = history.steps[0].replacements
    assert spans(at).count("bpe-new") == replacements
    run(at.segmented_control(key="text_when").set_value("Before merge"))
    assert spans(at).count("bpe-ps") == spans(at).count("bpe-pe") == replacements
    assert "bpe-new" not in spans(at)


def test_a_link_reproduces_the_text_before_the_merge() -> None:
    """``text_when`` travels in the URL as its option text, the same at every step."""
    at = run(new_app(sample="aaabdaaabac", step="2", text_when="Before merge"))
    assert at.segmented_control(key="text_when").value == "Before merge"
    # Merge 2 of the walk-through joins (aa, a) twice: both halves outlined, nothing new yet.
    assert spans(at).count("bpe-ps") == spans(at).count("bpe-pe") == 2
    assert "bpe-new" not in spans(at)


def test_the_one_script_on_the_page_is_the_constant_focus_script() -> None:
    """Token text is drawn without scripts; the scroll helper is a constant, keyed by step."""
    at = goto(run(new_app(sample="aaabdaaabac")), 1)
    assert [h.value for h in at.html if "<script" in h.value] == [FOCUS_SCRIPT]
    assert spans(at).startswith('<div class="bpe-scroll" data-focus="1-After merge">')


def test_choosing_another_sample_starts_it_at_step_zero() -> None:
    at = goto(run(new_app()), 3)
    run(at.selectbox(key="sample").set_value("ties"))
    assert at.slider(key="step").value == 0
    assert card(at).startswith('<div class="bpe-card"><div class="bpe-card-title">Step 0')


def test_the_step_is_kept_in_range_when_training_gets_shorter() -> None:
    at = goto(run(new_app()), 200)
    run(at.selectbox(key="sample").set_value("cat_sat"))
    assert at.slider(key="step").max == 1
    assert at.slider(key="step").value <= 1


def test_play_advances_one_step_per_tick_and_stops_at_the_end() -> None:
    at = run(new_app(sample="aaabdaaabac"))
    run(at.button(key="step_play").click())
    assert at.session_state["_playing"] is True
    assert at.button(key="step_play").label == "Pause"
    at.session_state["_last_tick"] = 0.0  # as if the timer had fired
    run(at)
    assert at.slider(key="step").value == 1
    at.session_state["_last_tick"] = 0.0
    run(at)
    assert at.slider(key="step").value == 2
    at.session_state["_last_tick"] = 0.0
    run(at)  # reaches the last merge: playing stops
    assert at.slider(key="step").value == 3
    assert at.session_state["_playing"] is False
    assert at.button(key="step_play").label == "Play"


def test_pause_stops_playing() -> None:
    at = run(new_app())
    run(at.button(key="step_play").click())
    run(at.button(key="step_play").click())
    assert at.session_state["_playing"] is False


def test_a_long_text_shows_a_window_and_says_so() -> None:
    at = run(new_app(src="paste", paste="x"))
    text = "".join(f"w{i % 97} " for i in range(3000))  # about 12,000 bytes
    run(at.text_area(key="paste").input(text))
    run(at.selectbox(key="pretok").set_value("bytes"))
    caption = " ".join(c.value for c in at.caption)
    assert "Long text: showing tokens 1–4,000" in caption
    assert spans(at).count('class="bpe-t ') == 4000


def test_the_vocabulary_so_far_and_the_downloads() -> None:
    history = sample_history("english")
    at = goto(run(new_app()), 3)
    vocab = at.dataframe[1].value  # [0] is the pair table
    assert vocab["new_id"].tolist() == [258, 257, 256]
    assert vocab["count"].tolist() == [step.count for step in reversed(history.steps[:3])]
    labels = [button.label for button in at.get("download_button")]
    assert "Download merges 1–3 (CSV)" in labels
    assert any(label.startswith("Download all") for label in labels)


def test_presentation_mode_hides_the_downloads() -> None:
    at = goto(run(new_app(present="true")), 3)
    assert at.toggle(key="present").value is True
    assert not at.get("download_button")


def test_training_that_stops_early_says_how_far_it_got() -> None:
    at = run(new_app(src="paste", paste="abab abab"))
    info = " ".join(plain(i.value) for i in at.info)
    assert "Training stopped early" in info
    assert at.slider(key="step").max == train("abab abab", 512, pretokenizer="gpt4").merge_count


def test_a_text_with_nothing_to_merge_has_no_steps() -> None:
    at = run(new_app(src="paste", paste="a"))
    assert not at.slider
    assert "nothing to merge" in card(at)
    assert "The text is 1 byte: 1 token, one per byte." in card(at)
    # One warning says it; the card repeats it where the step would be, and nothing else does.
    assert len(at.warning) == 1 and not at.info


def test_bad_settings_stop_the_page_with_a_message() -> None:
    at = run(new_app(vocab="100"))
    assert any("at least 256" in plain(e.value) for e in at.error)
    assert not at.slider and not at.dataframe
