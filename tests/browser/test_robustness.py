"""Big and broken inputs: a limit message or a working page, never a hang or a dead server.

After each of them the page must still answer a click, and the server its health check.
The limits are the app's own (``bpeviz.app.frame.text_input``): pasting up to 2 MB into the sidebar,
uploading up to 10 MB (Streamlit's uploader enforces it in decimal megabytes).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from bpeviz.app.frame.text_input import MAX_PASTE_BYTES
from bpeviz.app.frame.training import APART_FROM_SYMBOLS

if TYPE_CHECKING:
    from conftest import AppPage, AppServer

pytestmark = pytest.mark.browser

TWO_MIB = 2 * 1024 * 1024
LINE = "The printer counted pairs of letters, then merged the most frequent pair.\n"

# Setting a textarea's value the way React notices it; Playwright's fill() types megabytes
# too slowly. The person's Ctrl+Enter that follows is a real key press.
_SET_VALUE_JS = """(el, value) => {
  const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
  setter.call(el, value);
  el.dispatchEvent(new Event("input", { bubbles: true }));
}"""


def big_text(size: int) -> str:
    return (LINE * (size // len(LINE) + 1))[:size]


def paste_into(app: AppPage, selector: str, text: str) -> None:
    box = app.page.locator(selector)
    box.evaluate(_SET_VALUE_JS, text)
    box.focus()
    app.rerun(lambda: box.press("Control+Enter"))


def choose_source(app: AppPage, label: str) -> None:
    app.rerun(app.page.locator(".st-key-src").get_by_text(label, exact=True).click)


def upload(app: AppPage, selector: str, name: str, data: bytes, *, runs: bool = True) -> None:
    """Choose a file in an uploader; with ``runs``, wait for the run the upload starts."""
    files = [{"name": name, "mimeType": "application/octet-stream", "buffer": data}]
    if runs:
        app.upload_files(selector, files)
    else:
        app.page.locator(selector).set_input_files(files=files)


def assert_still_responsive(app: AppPage, server: AppServer) -> None:
    """A later click works (back to the default sample draws step 0), and the server is up."""
    choose_source(app, "Sample")
    if app.page.locator(".bpe-card").count() == 0:  # not on the Step page: go there
        app.rerun(app.page.locator('[data-testid="stSidebarNav"] a').first.click)
    assert app.card_title() == "Step 0: no merges yet"
    assert server.healthy()
    app.assert_clean()


def test_a_paste_over_the_limit_is_refused_with_the_limit(
    app: AppPage, app_server: AppServer
) -> None:
    assert MAX_PASTE_BYTES < TWO_MIB
    app.open("step")
    choose_source(app, "Paste")
    paste_into(app, ".st-key-paste textarea", big_text(TWO_MIB))
    errors = app.alerts("Error")
    assert any("pasting is limited to 2.0 MB" in text for text in errors), errors
    assert any("2.1 MB" in text for text in errors), errors
    assert app.page.locator(".bpe-card").count() == 0
    assert_still_responsive(app, app_server)


def test_two_megabytes_on_the_tokenize_page_work(app: AppPage, app_server: AppServer) -> None:
    app.open("tokenize")
    paste_into(app, ".st-key-tok_text textarea", big_text(TWO_MIB))
    # The box keeps it all and the page tokenizes the first MAX_BOX_CHARS (200,000), saying so.
    assert len(app.page.locator(".st-key-tok_text textarea").input_value()) == TWO_MIB
    assert (
        f"The text is {TWO_MIB:,} characters long: this page tokenizes the first 200,000 "
        "(the box keeps all of it)." in app.main_text()
    )
    metrics = app.page.locator('[data-testid="stMetricValue"]').all_inner_texts()
    assert metrics[:2] == ["200,000", "200,000"], metrics  # characters, bytes tokenized
    assert "Showing the first 5,000 of" in app.main_text()
    assert len(app.spans()) == 5_000
    # Still responsive: the ids view redraws the spans.
    app.rerun(app.page.locator(".st-key-tok_view").get_by_text("Token ids").first.click)
    assert app.spans()[0]["text"].isdigit()
    assert app_server.healthy()
    app.assert_clean()


def test_an_upload_over_ten_megabytes_is_refused(app: AppPage, app_server: AppServer) -> None:
    app.open("step")
    choose_source(app, "Upload")
    upload(app, ".st-key-upload input[type=file]", "big.txt", b"a" * 10_500_000, runs=False)
    uploader = app.page.locator(".st-key-upload")
    uploader.get_by_text("File must be 10.0MB or smaller").wait_for()
    assert "Upload a text file in the sidebar" in " ".join(app.alerts("Info"))
    assert_still_responsive(app, app_server)


@pytest.mark.slow
def test_a_ten_megabyte_upload_trains(app: AppPage, app_server: AppServer) -> None:
    size = 9_990_000  # just under the uploader's 10.0 MB
    app.open("step")
    choose_source(app, "Upload")
    upload(app, ".st-key-upload input[type=file]", "big.txt", big_text(size).encode())
    assert app.card_title() == "Step 0: no merges yet"
    assert f"{size:,} bytes" in app.main_text()
    app.step(app.step_button("Next").click, 1)
    assert app.card_title().startswith("Merge 1 of ")
    app.wait_reported(1)
    assert app_server.healthy()
    app.assert_clean()


def test_invalid_utf8_upload_is_explained_and_shown_as_hex(
    app: AppPage, app_server: AppServer
) -> None:
    data = b"caf\xe9 au lait, " * 40 + b"\xff\xfe\xfd end"
    app.open("step")
    choose_source(app, "Upload")
    upload(app, ".st-key-upload input[type=file]", "latin1.txt", data)
    notes = " ".join(app.alerts("Info"))
    assert "not valid UTF-8 (first bad byte at offset 3)" in notes, notes
    assert app.card_title() == "Step 0: no merges yet"
    assert "<E9>" in [span["text"] for span in app.spans()]
    assert_still_responsive(app, app_server)


def test_a_binary_upload_is_refused(app: AppPage, app_server: AppServer) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    app.open("step")
    choose_source(app, "Upload")
    upload(app, ".st-key-upload input[type=file]", "picture.txt", png)
    # the message is the state to wait for: CI read no error box once, right after the
    # upload's first rerun (a loaded machine draws it a rerun later)
    boxes = app.page.locator('[data-testid="stAlertContentError"]')
    boxes.filter(has_text="looks like a binary file").first.wait_for(timeout=60_000)
    assert_still_responsive(app, app_server)


MALFORMED_MODELS = {
    "not-a-model.model": b"this is not a minbpe model\n\x00\x01",
    "bad-ids.model": b"minbpe v1\n\n0\n97 x\n",
    "truncated.tiktoken": b"YQ== 0\nYg== one\n",
    "vocab.json": b"{not json",
    "tokenizer.json": b'{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [',
    "deep-tokenizer.json": b"[" * 200_000 + b"]" * 200_000,
    "wordpiece-tokenizer.json": b'{"model": {"type": "WordPiece", "vocab": {"a": 0}}}',
}


@pytest.mark.parametrize("name", list(MALFORMED_MODELS))
def test_a_malformed_model_file_gets_a_message(
    kept_app: AppPage, app_server: AppServer, name: str
) -> None:
    """Each file alone in the uploader: one Export page for them all (an open costs Chromium
    seconds of CPU), the file an earlier test chose removed first, as a person would."""
    app = kept_app
    app.navigate("export")
    remove = app.page.locator(".st-key-export_model_files [data-testid=stFileChipDeleteBtn]")
    while remove.count():
        app.rerun(remove.first.locator("button").click)
    assert app.alerts("Error") == [], "an earlier file's message is still shown"
    upload(app, ".st-key-export_model_files input[type=file]", name, MALFORMED_MODELS[name])
    # the message is the state to wait for: a loaded machine may draw it a rerun later (CI
    # read no error box once, right after the upload's first rerun)
    boxes = app.page.locator('[data-testid="stAlertContentError"]')
    boxes.filter(has_text="Could not read the upload").first.wait_for(timeout=60_000)
    errors = " ".join(app.alerts("Error"))
    assert "Could not read the upload" in errors and name in errors, errors
    assert app_server.healthy()
    app.assert_clean()


def test_a_model_file_within_the_stated_limit_reaches_the_page(
    app: AppPage, app_server: AppServer
) -> None:
    """The Export uploader states a per-file limit; a file under it must reach the app."""
    app.open("export")
    uploader = app.page.locator(".st-key-export_model_files")
    stated = re.search(r"(\d+)\s*MB per file", uploader.inner_text())
    assert stated, uploader.inner_text()
    size = (int(stated.group(1)) - 1) * 1_000_000
    upload(app, ".st-key-export_model_files input[type=file]", "big.model", b"x" * size, runs=False)
    answered = app.page.locator('[data-testid="stAlertContentError"]').or_(
        uploader.get_by_text("Error")
    )
    answered.first.wait_for(timeout=60_000)
    assert "AxiosError" not in uploader.inner_text(), (
        f"a {size / 1e6:.0f} MB file, under the stated {stated.group(1)} MB, was refused by the "
        f"server: {uploader.inner_text()!r}"
    )
    app.wait_idle()
    assert "Could not read the upload" in " ".join(app.alerts("Error"))
    assert app_server.healthy()
    app.assert_clean()


def test_the_server_survived(app_server: AppServer, app: AppPage) -> Any:
    """Last in this file: after all of the above, a fresh session still gets a clean page."""
    assert app_server.healthy()
    app.open("step")
    assert app.card_title() == "Step 0: no merges yet"
    app.assert_clean()


def children_cpu_seconds(server: AppServer) -> float:
    """CPU time of the server's child processes that have ended (cutime + cstime)."""
    fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def test_a_big_paste_trains_in_a_child_process_and_steps_as_any_run(
    app: AppPage, app_server: AppServer
) -> None:
    """``ab`` × 15,000 in bytes mode, 30,000 symbols: past ``APART_FROM_SYMBOLS``, so it
    trains in a child process of the server. Worked by hand: ``ab`` (id 256), then 15,000
    ``ab`` in a row give ``abab`` (257, 7,500 of them), whose 7,499 pairs give ``abababab``
    (258) at merge 3."""
    assert len("ab" * 15_000) >= APART_FROM_SYMBOLS
    app.open("step", src="paste", pretok="bytes", vocab="259", step="3")
    before = children_cpu_seconds(app_server)
    paste_into(app, ".st-key-paste textarea", "ab" * 15_000)
    app.wait_view(3, "after", timeout=120_000)
    assert app.card_title() == "Merge 3 of 3"
    chip_ids = app.page.locator(".bpe-card .bpe-chipid").all_inner_texts()
    assert chip_ids == ["id 257", "id 257", "id 258"]
    assert "7,499" in app.pair_rows(1)[0].split("|")
    assert {span["text"] for span in app.spans() if "bpe-new" in span["cls"].split()} == {
        "abababab"
    }
    assert children_cpu_seconds(app_server) > before  # a training process ran and ended
    app.assert_clean()
