"""AppTest: what a student typed in the Tokenize and Compare boxes survives a page switch.

Typed text, and a text that came in the link, was empty after visiting another page and
coming back: the box's value went with the box when a page without it ran. Expected texts
are the ones typed here.
"""

from __future__ import annotations

import pytest
from apptest_support import new_app, run

from bpeviz.app.frame.links import MAX_LINK_TEXT_CHARS

TOKENIZE = "app_pages/tokenize.py"
COMPARE = "app_pages/compare.py"
STEP = "app_pages/step.py"
BOXES = [(TOKENIZE, "tok_text"), (COMPARE, "compare_text")]
SHORT = "The printer counted pairs: th, he, in. 1234 times a day!"
LONG = "Merges never cross a piece boundary. " * (MAX_LINK_TEXT_CHARS // 30)


@pytest.mark.parametrize(("page", "key"), BOXES, ids=["tokenize", "compare"])
@pytest.mark.parametrize("typed", [SHORT, LONG], ids=["short", "long"])
def test_typed_text_survives_a_visit_to_another_page(page: str, key: str, typed: str) -> None:
    at = run(new_app())
    run(at.switch_page(page))
    run(at.text_area(key=key).input(typed))
    run(at.switch_page(STEP))
    run(at.switch_page(page))
    assert at.text_area(key=key).value == typed
    assert len(typed) > MAX_LINK_TEXT_CHARS or at.query_params[key] == typed


@pytest.mark.parametrize(("page", "key"), BOXES, ids=["tokenize", "compare"])
def test_a_text_from_the_link_survives_a_visit_to_another_page(page: str, key: str) -> None:
    at = new_app(**{key: SHORT})
    run(at)
    run(at.switch_page(page))
    assert at.text_area(key=key).value == SHORT
    run(at.switch_page(STEP))
    run(at.switch_page(page))
    assert at.text_area(key=key).value == SHORT


@pytest.mark.parametrize("step", ["²", "١٢", "-3", "9" * 40])
def test_a_step_in_the_link_that_is_no_count_opens_a_step_in_range(step: str) -> None:
    """``/?step=²`` showed a traceback: ``"²".isdigit()`` holds and ``int("²")`` fails."""
    at = run(new_app(step=step))
    assert not at.exception
    assert at.session_state["step"] in (0, 256)  # ignored, or the last merge of the sample


SLOW_ON_X = "minbpe v1\n(?:x|x)*y|.\n0\n97 97\n"  # passes the probe (it holds no x), not 40 x's


@pytest.mark.parametrize(("page", "key"), BOXES, ids=["tokenize", "compare"])
def test_a_split_that_runs_out_of_time_gets_a_message(page: str, key: str) -> None:
    """A file's pattern that passes the load-time probe can still take too long on a text:
    the split's time limit then ends in a message on the page, not a traceback."""
    at = run(new_app())
    run(at.switch_page("app_pages/export.py"))
    run(at.file_uploader(key="export_model_files").upload("slow.model", SLOW_ON_X.encode()))
    run(at.switch_page(page))
    if page == TOKENIZE:
        run(at.radio(key="tok_model").set_value("Imported"))
    else:
        run(at.selectbox(key="cmp_left").set_value("Imported"))
    run(at.text_area(key=key).input("x" * 40))
    assert any("took longer than" in error.value for error in at.error)
