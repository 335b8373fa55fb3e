"""How far apart two colours look, to a person with full colour vision and to one without.

Test support for the token palette (``tests/test_palette.py``): nothing at run time needs it.
Three published methods, written here from their papers and standards:

- sRGB to CIELAB (IEC 61966-2-1 for sRGB and its D65 white; CIE 15 for L*a*b*);
- colour-vision deficiency by the matrices of Machado, Oliveira & Fernandes, "A
  physiologically-based model for simulation of color vision deficiency" (IEEE TVCG 15(6),
  2009), severity 1.0 (dichromacy), applied to linear RGB;
- CIEDE2000, as written out by Sharma, Wu & Dalal, "The CIEDE2000 color-difference formula:
  implementation notes, supplementary test data, and mathematical observations" (Color
  Research & Application 30(1), 2005). ``tests/test_palette.py`` checks it on their 34 pairs.

It leaves out anomalous trichromacy (severities below 1): dichromacy is the harder case.

>>> round(delta_e2000(lab("#ffffff"), lab("#000000")), 1)
100.0
"""

from __future__ import annotations

import math

Lab = tuple[float, float, float]
Matrix = tuple[tuple[float, float, float], ...]

# Machado, Oliveira & Fernandes (2009), table of simulation matrices, severity 1.0.
DEFICIENCIES: dict[str, Matrix] = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}

# IEC 61966-2-1: linear sRGB to CIE XYZ, and the D65 white point.
SRGB_TO_XYZ: Matrix = (
    (0.4124, 0.3576, 0.1805),
    (0.2126, 0.7152, 0.0722),
    (0.0193, 0.1192, 0.9505),
)
WHITE = (0.95047, 1.0, 1.08883)


def linear_rgb(hex_colour: str) -> tuple[float, float, float]:
    """The linear-light R, G, B (0 to 1) of ``#rrggbb``: the sRGB curve undone."""
    channels = [int(hex_colour[index : index + 2], 16) / 255 for index in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return r, g, b


def _times(matrix: Matrix, vector: tuple[float, float, float]) -> tuple[float, float, float]:
    x, y, z = (sum(m * v for m, v in zip(row, vector, strict=True)) for row in matrix)
    return x, y, z


def simulated(rgb: tuple[float, float, float], deficiency: str) -> tuple[float, float, float]:
    """Linear RGB as seen with ``deficiency`` (a key of :data:`DEFICIENCIES`), kept in gamut."""
    r, g, b = (min(1.0, max(0.0, c)) for c in _times(DEFICIENCIES[deficiency], rgb))
    return r, g, b


def lab_of_linear(rgb: tuple[float, float, float]) -> Lab:
    """CIELAB (D65) of a linear sRGB colour."""

    def f(t: float) -> float:
        delta = 6 / 29
        return t ** (1 / 3) if t > delta**3 else t / (3 * delta**2) + 4 / 29

    fx, fy, fz = (
        f(value / white) for value, white in zip(_times(SRGB_TO_XYZ, rgb), WHITE, strict=True)
    )
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def lab(hex_colour: str, deficiency: str | None = None) -> Lab:
    """CIELAB of ``#rrggbb``, as seen with ``deficiency`` when one is given."""
    rgb = linear_rgb(hex_colour)
    return lab_of_linear(simulated(rgb, deficiency) if deficiency else rgb)


def delta_e2000(first: Lab, second: Lab) -> float:
    """CIEDE2000 colour difference (kL = kC = kH = 1), Sharma, Wu & Dalal's equations 1–22."""
    l1, a1, b1 = first
    l2, a2, b2 = second
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0

    delta_l = l2 - l1
    delta_c = c2p - c1p
    if c1p * c2p == 0:
        delta_h_angle = 0.0
    elif abs(h2p - h1p) <= 180:
        delta_h_angle = h2p - h1p
    elif h2p - h1p > 180:
        delta_h_angle = h2p - h1p - 360
    else:
        delta_h_angle = h2p - h1p + 360
    delta_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(delta_h_angle) / 2)

    l_mean = (l1 + l2) / 2
    cp_mean = (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        h_mean = (h1p + h2p + 360) / 2
    else:
        h_mean = (h1p + h2p - 360) / 2

    def cos(degrees: float) -> float:
        return math.cos(math.radians(degrees))

    t = (
        1
        - 0.17 * cos(h_mean - 30)
        + 0.24 * cos(2 * h_mean)
        + 0.32 * cos(3 * h_mean + 6)
        - 0.20 * cos(4 * h_mean - 63)
    )
    delta_theta = 30 * math.exp(-(((h_mean - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_mean**7 / (cp_mean**7 + 25**7))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * cp_mean
    s_h = 1 + 0.015 * cp_mean * t
    r_t = -math.sin(math.radians(2 * delta_theta)) * r_c
    lightness, chroma, hue = delta_l / s_l, delta_c / s_c, delta_h / s_h
    return math.sqrt(lightness**2 + chroma**2 + hue**2 + r_t * chroma * hue)


def contrast_ratio(first: str, second: str) -> float:
    """WCAG 2.1's contrast ratio of two ``#rrggbb`` colours (1 to 21).

    >>> round(contrast_ratio("#777777", "#ffffff"), 2)
    4.48
    """
    lighter, darker = sorted(
        (_times(SRGB_TO_XYZ, linear_rgb(c))[1] for c in (first, second)), reverse=True
    )
    return (lighter + 0.05) / (darker + 0.05)
