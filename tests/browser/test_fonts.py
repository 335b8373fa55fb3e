"""Japanese text really renders in the CJK font: real glyphs, not tofu boxes.

On the Step page showing the Japanese sample at merge 200, a token span with Japanese text
(whole characters, not bytes) is checked two
ways. Chromium itself names the fonts that drew the span's glyphs (the DevTools call
``CSS.getPlatformFontsForNode``): Noto Sans CJK must have drawn them all. And the glyphs are
drawn again on a canvas in the span's own font: a tofu box looks the same for every
character, so distinct kana and kanji must give distinct pictures, none equal to the box drawn
for a code point that no font has (U+10FFFD), each a full em wide as CJK glyphs are.

``document.fonts.check`` alone proves nothing here: for a font that is not a web font it
answers true whether or not the font exists, so it is only asked for completeness.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

CJK_FAMILIES = ("Noto Sans CJK JP", "Noto Sans Mono CJK JP")
PROBE = "日本語のひらがなカタカナ"

JAPANESE = re.compile("[\u3040-\u30ff\u4e00-\u9fff]")  # kana and kanji

# Draw each character alone on a canvas in ``family`` at 32 px; return its width, a hash of
# its pixels and how many it inked. A missing glyph is the same box (or nothing) every time.
_GLYPHS_JS = """
([family, chars]) => {
  const canvas = document.createElement("canvas");
  canvas.width = 48; canvas.height = 48;
  const context = canvas.getContext("2d", {willReadFrequently: true});
  context.font = "32px " + family;
  context.textBaseline = "top";
  return chars.map((char) => {
    context.clearRect(0, 0, 48, 48);
    context.fillText(char, 4, 4);
    const data = context.getImageData(0, 0, 48, 48).data;
    let hash = 2166136261, ink = 0;  // FNV-1a over the alpha channel
    for (let i = 3; i < data.length; i += 4) {
      hash = Math.imul(hash ^ data[i], 16777619) >>> 0;
      if (data[i]) ink += 1;
    }
    return {char, width: context.measureText(char).width, pixels: hash.toString(16), ink};
  });
}
"""


def platform_fonts(app: AppPage, element: Any) -> list[dict[str, Any]]:
    """The fonts Chromium used for ``element``'s glyphs, with how many glyphs each drew.

    The element is handed over as a JavaScript object, so it is found even inside a
    component's shadow root.
    """
    element.evaluate("(el) => { window.__bpevizFontProbe = el; }")
    session = app.page.context.new_cdp_session(app.page)
    try:
        session.send("DOM.enable")
        session.send("CSS.enable")
        session.send("DOM.getDocument", {"depth": 0})
        probe = session.send("Runtime.evaluate", {"expression": "window.__bpevizFontProbe"})
        node = session.send("DOM.requestNode", {"objectId": probe["result"]["objectId"]})
        return session.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
    finally:
        session.detach()


def cjk_font_missing_reason() -> str | None:
    """Why this machine cannot draw Noto Sans CJK (fontconfig does not list it), or ``None``."""
    try:
        listed = subprocess.run(
            ["fc-list", ":lang=ja", "family"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        return f"fc-list could not list the fonts ({error}): install fontconfig"
    if "Noto Sans CJK JP" not in listed:
        return "fonts-noto-cjk is not installed (scripts/install_system_deps.sh, as root)"
    return None


def test_japanese_sample_renders_in_the_cjk_font(
    app: AppPage, unavailable: Callable[[str], None]
) -> None:
    reason = cjk_font_missing_reason()
    if reason:
        unavailable(reason)
    app.open("step", sample="japanese", step=200)  # by then tokens are whole characters
    main = app.page.locator('[data-testid="stMain"]')
    element = main.locator(".bpe-t").filter(has_text=JAPANESE).first  # pierces shadow roots
    element.wait_for(timeout=30_000)
    element.scroll_into_view_if_needed()  # lines out of sight are not laid out (no fonts)
    span = element.evaluate(
        "(el) => ({text: el.textContent, font: getComputedStyle(el).fontFamily})"
    )
    assert any(family in span["font"] for family in CJK_FAMILIES), span["font"]

    fonts = platform_fonts(app, element)
    cjk_glyphs = sum(f["glyphCount"] for f in fonts if f["familyName"] in CJK_FAMILIES)
    japanese = len(JAPANESE.findall(span["text"]))
    assert japanese > 0 and cjk_glyphs >= japanese, (span["text"], fonts)

    glyphs = app.page.evaluate(_GLYPHS_JS, [span["font"], [*PROBE, "\U0010fffd"]])
    *real, tofu = glyphs
    pictures = [glyph["pixels"] for glyph in real]
    assert len(set(pictures)) == len(set(PROBE)), "two different characters drew alike: tofu"
    assert tofu["pixels"] not in pictures
    for glyph in real:  # CJK glyphs are square: one em (32 px) wide, and they draw ink
        assert glyph["width"] == pytest.approx(32, abs=1), glyph["char"]
        assert glyph["ink"] > 20, glyph["char"]
    assert app.page.evaluate("""() => document.fonts.check('16px "Noto Sans CJK JP"', '日本語')""")
    app.assert_clean()
