"""The token palette: its fills stay apart for every student, and token text stays readable.

Neighbouring tokens never share a fill (``record.js``), so every pair of fills is a pair some
student sees side by side. Each pair must stay ΔE2000 ≥ 8 apart to a dichromat: protanopia,
deuteranopia and tritanopia as simulated by Machado, Oliveira & Fernandes (2009) at full
severity, and with full colour vision. ΔE2000 ≈ 1 is a just-noticeable difference; 8 is a
margin for small boxes of text on a screen. The methods are in ``tests/colour_vision.py``; its
CIEDE2000 is checked first on the published test pairs.
"""

from __future__ import annotations

import re
from itertools import combinations

import pytest
from colour_vision import DEFICIENCIES, contrast_ratio, delta_e2000, lab

from bpeviz.web import PALETTE, asset

LEAST_DELTA_E = 8.0
AA_TEXT = 4.5  # WCAG 2.1 1.4.3, normal-size text
NON_TEXT = 3.0  # WCAG 2.1 1.4.11, the edge of a token against its fill and against the page
PAGE = "#ffffff"  # the text box's background (.bpe-scroll)


def css_colour(selector: str) -> str:
    """The ``color`` of ``selector``'s rule in ``tokens.css``, as ``#rrggbb``."""
    rule = re.search(
        re.escape(selector) + r"\{[^}]*?(?<![-\w])color:#([0-9a-fA-F]{3,6});",
        asset("core/tokens.css"),
    )
    assert rule, selector
    digits = rule.group(1)
    return "#" + ("".join(c * 2 for c in digits) if len(digits) == 3 else digits)


# The colours written on a token's fill: its text, its hex bytes, its </w>.
TEXT_ON_FILL = {"token text": ".bpe-t", "hex bytes": ".bpe-hex", "end of word": ".bpe-eow"}

# Sharma, Wu & Dalal (2005), Table 1: L*a*b* of each pair and its CIEDE2000, 4 decimals.
SHARMA_PAIRS = [
    ((50.0000, 2.6772, -79.7751), (50.0000, 0.0000, -82.7485), 2.0425),
    ((50.0000, 3.1571, -77.2803), (50.0000, 0.0000, -82.7485), 2.8615),
    ((50.0000, 2.8361, -74.0200), (50.0000, 0.0000, -82.7485), 3.4412),
    ((50.0000, -1.3802, -84.2814), (50.0000, 0.0000, -82.7485), 1.0000),
    ((50.0000, -1.1848, -84.8006), (50.0000, 0.0000, -82.7485), 1.0000),
    ((50.0000, -0.9009, -85.5211), (50.0000, 0.0000, -82.7485), 1.0000),
    ((50.0000, 0.0000, 0.0000), (50.0000, -1.0000, 2.0000), 2.3669),
    ((50.0000, -1.0000, 2.0000), (50.0000, 0.0000, 0.0000), 2.3669),
    ((50.0000, 2.4900, -0.0010), (50.0000, -2.4900, 0.0009), 7.1792),
    ((50.0000, 2.4900, -0.0010), (50.0000, -2.4900, 0.0010), 7.1792),
    ((50.0000, 2.4900, -0.0010), (50.0000, -2.4900, 0.0011), 7.2195),
    ((50.0000, 2.4900, -0.0010), (50.0000, -2.4900, 0.0012), 7.2195),
    ((50.0000, -0.0010, 2.4900), (50.0000, 0.0009, -2.4900), 4.8045),
    ((50.0000, -0.0010, 2.4900), (50.0000, 0.0010, -2.4900), 4.8045),
    ((50.0000, -0.0010, 2.4900), (50.0000, 0.0011, -2.4900), 4.7461),
    ((50.0000, 2.5000, 0.0000), (50.0000, 0.0000, -2.5000), 4.3065),
    ((50.0000, 2.5000, 0.0000), (73.0000, 25.0000, -18.0000), 27.1492),
    ((50.0000, 2.5000, 0.0000), (61.0000, -5.0000, 29.0000), 22.8977),
    ((50.0000, 2.5000, 0.0000), (56.0000, -27.0000, -3.0000), 31.9030),
    ((50.0000, 2.5000, 0.0000), (58.0000, 24.0000, 15.0000), 19.4535),
    ((50.0000, 2.5000, 0.0000), (50.0000, 3.1736, 0.5854), 1.0000),
    ((50.0000, 2.5000, 0.0000), (50.0000, 3.2972, 0.0000), 1.0000),
    ((50.0000, 2.5000, 0.0000), (50.0000, 1.8634, 0.5757), 1.0000),
    ((50.0000, 2.5000, 0.0000), (50.0000, 3.2592, 0.3350), 1.0000),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((63.0109, -31.0961, -5.8663), (62.8187, -29.7946, -4.0864), 1.2630),
    ((61.2901, 3.7196, -5.3901), (61.4292, 2.2480, -4.9620), 1.8731),
    ((35.0831, -44.1164, 3.7933), (35.0232, -40.0716, 1.5901), 1.8645),
    ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
    ((36.4612, 47.8580, 18.3852), (36.2715, 50.5065, 21.2231), 1.4146),
    ((90.8027, -2.0831, 1.4410), (91.1528, -1.6435, 0.0447), 1.4441),
    ((90.9257, -0.5406, -0.9208), (88.6381, -0.8985, -0.7239), 1.5381),
    ((6.7747, -0.2908, -2.4247), (5.8714, -0.0985, -2.2286), 0.6377),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
]


@pytest.mark.parametrize(
    ("first", "second", "expected"), SHARMA_PAIRS, ids=[f"pair {n}" for n in range(1, 35)]
)
def test_delta_e2000_gives_the_published_differences(
    first: tuple, second: tuple, expected: float
) -> None:
    assert delta_e2000(first, second) == pytest.approx(expected, abs=5e-5)
    assert delta_e2000(second, first) == pytest.approx(expected, abs=5e-5)  # symmetric


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
def test_the_simulation_keeps_greys_and_merges_the_confused_colours(deficiency: str) -> None:
    """Machado et al.'s matrices leave white and grey as they are (each row sums to 1), and
    bring the colours each dichromat confuses, red and green (protan, deutan) or blue and
    green (tritan), to less than 0.6 of their distance with full vision."""
    for grey in ("#ffffff", "#777777"):
        assert delta_e2000(lab(grey, deficiency), lab(grey)) < 0.01
    one, other = ("#0000ff", "#00ff00") if deficiency == "tritanopia" else ("#ff0000", "#00ff00")
    seen = delta_e2000(lab(one, deficiency), lab(other, deficiency))
    assert seen < 0.6 * delta_e2000(lab(one), lab(other))


def closest_pair(vision: str | None) -> tuple[float, str, str]:
    fills = [fill for fill, _ in PALETTE]
    return min(
        (delta_e2000(lab(one, vision), lab(other, vision)), one, other)
        for one, other in combinations(fills, 2)
    )


@pytest.mark.parametrize("vision", [None, *DEFICIENCIES], ids=["full colour vision", *DEFICIENCIES])
def test_every_pair_of_fills_stays_apart(vision: str | None) -> None:
    distance, one, other = closest_pair(vision)
    assert distance >= LEAST_DELTA_E, (
        f"{one} and {other}: ΔE2000 {distance:.1f} under {vision or 'full vision'}"
    )


@pytest.mark.parametrize("selector", TEXT_ON_FILL.values(), ids=list(TEXT_ON_FILL))
def test_text_on_every_fill_passes_aa(selector: str) -> None:
    colour = css_colour(selector)
    for fill, _ in PALETTE:
        assert contrast_ratio(colour, fill) >= AA_TEXT, f"{selector} {colour} on {fill}"


def test_each_tokens_edge_shows_without_colour() -> None:
    """A second cue for the boundary between tokens, one that survives greyscale: each
    border is 3:1 against its own fill and against the page around the token."""
    for fill, border in PALETTE:
        assert contrast_ratio(border, fill) >= NON_TEXT, f"border {border} on {fill}"
        assert contrast_ratio(border, PAGE) >= NON_TEXT, f"border {border} on the page"
