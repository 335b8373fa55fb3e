"""The Step page as a student with a colour-vision deficiency sees it (issue 19).

Chromium simulates protanopia, deuteranopia and tritanopia (the matrices of Machado, Oliveira
& Fernandes 2009, applied in linear RGB) and achromatopsia over what it draws
(``Emulation.setEmulatedVisionDeficiency``, Chrome DevTools Protocol). The test shoots the
text with the pair about to merge outlined, the text with the new token outlined, and the quiz
answered, with full colour vision and under each deficiency, and reads the shots' pixels back:

- the simulation took effect (pixels changed; achromatopsia leaves only greys);
- each token's fill, as drawn, is the palette's fill, and under each dichromacy is what
  ``tests/colour_vision.py`` computes for it: Chromium is an independent implementation of the
  same published method, so the palette's unit test (``tests/test_palette.py``) speaks of the
  colours a student really gets;
- neighbouring tokens' fills as drawn stay ΔE2000 ≥ 8 apart with full colour vision and under
  each dichromacy; in greyscale a token's own border stands 3:1 or more against its fill, and
  the outlined pair and new token are drawn in black: edges, not hues, separate tokens there;
- quiz right and wrong, and Before/After, say so in text, not by colour alone.

The shots go to ``$BPEVIZ_SCREENSHOTS`` as ``colour-vision-<state>-<vision>.png``, to look at.
"""

from __future__ import annotations

import base64
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from colour_vision import contrast_ratio, delta_e2000, lab, linear_rgb, simulated

from bpeviz.web import PALETTE

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

DICHROMACIES = ("protanopia", "deuteranopia", "tritanopia")
VISIONS = ("none", *DICHROMACIES, "achromatopsia")
LEAST_DELTA_E = 8.0  # tests/test_palette.py's figure
NON_TEXT = 3.0  # WCAG 2.1 1.4.11
CHANNEL_SLACK = 2  # Chromium's 8-bit rounding against ours

# The PNGs' pixels, decoded by the browser (no imaging library needed): [width, RGBA bytes
# in base64].
_DECODE_JS = """async (urls) => Promise.all(urls.map(async (url) => {
  const image = new Image();
  image.src = url;
  await image.decode();
  const canvas = new OffscreenCanvas(image.width, image.height);
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const data = context.getImageData(0, 0, image.width, image.height).data;
  let binary = "";
  for (let i = 0; i < data.length; i += 0x8000)
    binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
  return [image.width, btoa(binary)];
}))"""

# The text's tokens on screen, in order: their fill's palette index (null when outlined or
# special), the first column of their left border and the column of their fill (the left
# padding, where no glyph is), the middle row, their top row and top border, and whether they
# are outlined (the pair or the new token).
_TOKENS_JS = """([left, top, right, bottom]) => [...document.querySelectorAll(".bpe-scroll .bpe-t")]
  .map((t) => {
    const box = t.getBoundingClientRect();
    const style = getComputedStyle(t);
    const border = parseFloat(style.borderLeftWidth);
    const colour = t.className.match(/\\bbpe-c(\\d)\\b/);
    const outlined = /\\bbpe-(ps|pe|new)\\b/.test(t.className);
    return {fill: colour && !outlined ? Number(colour[1]) : null, outlined, border,
            topBorder: parseFloat(style.borderTopWidth), top: Math.floor(box.top) - top,
            edge: Math.floor(box.left) - left, inner: Math.floor(box.left + border) + 1 - left,
            row: Math.round(box.top + box.height / 2) - top, line: Math.round(box.top),
            shown: box.left >= left && box.right <= right && box.top >= top
                   && box.bottom <= bottom};
  }).filter((t) => t.shown)"""


class Shot:
    """A screenshot's pixels: ``rgb[y, x]`` is one pixel's R, G, B (0 to 255)."""

    def __init__(self, width: int, rgba: bytes) -> None:
        self.rgb = np.frombuffer(rgba, dtype=np.uint8).reshape(-1, width, 4)[:, :, :3]

    def at(self, x: int, y: int) -> tuple[int, int, int]:
        r, g, b = (int(channel) for channel in self.rgb[y, x])
        return r, g, b


def shoot(page: Any, cdp: Any, clip: dict[str, float], name: str, folder: Path) -> dict[str, Shot]:
    """``clip`` shot under each vision (saved as ``colour-vision-<name>-<vision>.png``),
    decoded in a page of its own (the emulation is the shot page's alone)."""
    shots = {}
    try:
        for vision in VISIONS:
            cdp.send("Emulation.setEmulatedVisionDeficiency", {"type": vision})
            path = folder / f"colour-vision-{name}-{vision}.png"
            shots[vision] = page.screenshot(path=str(path), clip=clip, animations="disabled")
    finally:
        cdp.send("Emulation.setEmulatedVisionDeficiency", {"type": "none"})
    decoder = page.context.new_page()
    try:
        urls = ["data:image/png;base64," + base64.b64encode(png).decode() for png in shots.values()]
        decoded = decoder.evaluate(_DECODE_JS, urls)
    finally:
        decoder.close()
    return {
        vision: Shot(width, base64.b64decode(rgba))
        for vision, (width, rgba) in zip(VISIONS, decoded, strict=True)
    }


def as_hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def srgb(linear: tuple[float, float, float]) -> tuple[int, int, int]:
    """8-bit sRGB of a linear colour (IEC 61966-2-1's curve)."""

    def encode(c: float) -> int:
        return round(255 * (12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055))

    r, g, b = (encode(c) for c in linear)
    return r, g, b


def assert_simulated(shots: dict[str, Shot], where: str) -> None:
    """The simulation took effect: each vision changed many pixels (1% or more of the shot,
    mostly white); achromatopsia left only greys."""
    normal = shots["none"].rgb.astype(int)
    for vision in VISIONS[1:]:
        changed = int((np.abs(shots[vision].rgb - normal).max(axis=2) > 8).sum())
        share = changed / (normal.shape[0] * normal.shape[1])
        assert share >= 0.01, f"{where}, {vision}: {changed} pixels changed ({share:.1%})"
    grey = shots["achromatopsia"].rgb.astype(int)
    spread = int((grey.max(axis=2) - grey.min(axis=2)).max())
    assert spread <= CHANNEL_SLACK, f"{where}: a pixel with colour under achromatopsia ({spread})"


def assert_tokens_stay_apart(shots: dict[str, Shot], tokens: list[dict[str, Any]]) -> None:
    """Fills as drawn are the palette's (as simulated); neighbours stay ΔE2000 ≥ 8 apart; in
    greyscale each plain token's border stands 3:1 against its fill, outlines are black."""
    plain = [token for token in tokens if token["fill"] is not None]
    assert len(plain) >= 20, f"too few tokens on screen: {len(plain)}"
    for vision in VISIONS[:-1]:
        for token in plain:
            fill = linear_rgb(PALETTE[token["fill"]][0])
            want = srgb(simulated(fill, vision) if vision != "none" else fill)
            got = shots[vision].at(token["inner"], token["row"])
            assert max(abs(a - b) for a, b in zip(got, want, strict=True)) <= CHANNEL_SLACK, (
                vision, token, got, want,
            )  # fmt: skip
        closest = min(
            delta_e2000(
                lab(as_hex(shots[vision].at(a["inner"], a["row"]))),
                lab(as_hex(shots[vision].at(b["inner"], b["row"]))),
            )
            for a, b in pairwise(tokens)
            if a["fill"] is not None and b["fill"] is not None and a["line"] == b["line"]
        )
        assert closest >= LEAST_DELTA_E, f"{vision}: neighbours ΔE2000 {closest:.1f}"
    grey = shots["achromatopsia"]
    for token in plain:
        columns = range(token["edge"], token["inner"])  # the border falls in one of these
        edge = min((grey.at(x, token["row"]) for x in columns), key=sum)
        fill = grey.at(token["inner"], token["row"])
        ratio = contrast_ratio(as_hex(edge), as_hex(fill))
        assert ratio >= NON_TEXT, f"greyscale: border {edge} on fill {fill}, {ratio:.2f}:1"
    for token in (token for token in tokens if token["outlined"]):  # its top edge: the pair's
        assert token["topBorder"] == 3, token  # two halves join without a left or right one
        top = range(token["top"], token["top"] + 4)
        darkest = min(max(grey.at(token["inner"] + 1, y)) for y in top)
        assert darkest <= 40, ("outline not black", token, darkest)


def text_pane(app: AppPage) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """The text box's part on screen (a clip) and its tokens there."""
    box = app.page.locator(".bpe-step .bpe-scroll")
    box.scroll_into_view_if_needed()
    clip = box.bounding_box()
    clip = {key: round(value) for key, value in clip.items()}
    clip["height"] = min(clip["height"], app.page.viewport_size["height"] - clip["y"])
    edges = [clip["x"], clip["y"], clip["x"] + clip["width"], clip["y"] + clip["height"]]
    return clip, app.page.evaluate(_TOKENS_JS, edges)


def test_the_step_page_under_simulated_colour_vision(app: AppPage, screenshots: Path) -> None:
    page = app.page
    app.open("step", step=3)
    app.wait_view(3)
    cdp = page.context.new_cdp_session(page)

    app.step(lambda: app.step_button("Before merge").click(), 3, "before")
    app.wait_reported(3, "before")  # its report's rerun would fade the page mid-shot
    clip, tokens = text_pane(app)
    assert sum(token["outlined"] for token in tokens) >= 2, "no pair outlined on screen"
    shots = shoot(page, cdp, clip, "before", screenshots)
    assert_simulated(shots, "before")
    assert_tokens_stay_apart(shots, tokens)

    app.step(lambda: app.step_button("After merge").click(), 3, "after")
    app.wait_reported(3, "after")
    chosen = app.step_button("After merge").evaluate("b => getComputedStyle(b, '::before').content")
    assert "✓" in chosen, "the state shown is marked in text, not by colour alone"
    clip, tokens = text_pane(app)
    assert any(token["outlined"] for token in tokens), "no new token on screen"
    shots = shoot(page, cdp, clip, "after", screenshots)
    assert_simulated(shots, "after")
    assert_tokens_stay_apart(shots, tokens)

    page.locator(".bpe-root label").filter(has_text="Guess the next merge").click()
    app.wait_view(3, "quiz")
    page.locator('.bpe-choice:not([data-row="0"])').first.click()  # a wrong guess
    page.locator(".bpe-verdict").wait_for()
    card = page.locator(".bpe-card")
    card.scroll_into_view_if_needed()
    clip = {key: round(value) for key, value in card.bounding_box().items()}
    assert_simulated(shoot(page, cdp, clip, "quiz", screenshots), "the quiz answered")
    # right and wrong said in text: a student who sees no red or green still reads them
    assert page.locator(".bpe-verdict").inner_text().startswith("✗")
    assert page.locator(".bpe-wrong .bpe-mark").inner_text() == "✗ your guess"
    assert page.locator(".bpe-right .bpe-mark").inner_text() == "✓ right"
    app.assert_clean()
