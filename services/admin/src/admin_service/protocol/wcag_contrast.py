"""Colour contrast as WCAG 2.x defines it (WCAG 2.2 "relative luminance", "contrast ratio";
Success Criterion 1.4.3 Contrast (Minimum), level AA).

The brand's ``primaryColor`` is the background of primary buttons with white text, so it
must reach :data:`AA_NORMAL_TEXT` (4.5:1) against ``#ffffff``.

- :func:`parse_hex_color` reads ``#rrggbb`` (any case) into its three 8-bit channels.
- :func:`relative_luminance`: 0.2126 R + 0.7152 G + 0.0722 B of the linearised sRGB
  channels (``c/12.92`` up to 0.04045, else ``((c+0.055)/1.055)^2.4``; WCAG's own
  threshold, which sRGB's 0.04045 equals to the precision of 8-bit channels).
- :func:`contrast_ratio`: ``(L1 + 0.05) / (L2 + 0.05)``, lighter over darker, 1 to 21.
- :func:`primary_color_problem`: the sentence a 422 carries, naming the ratio, or None.

Pure: no I/O. The ratio is compared unrounded (``#777777`` on white is 4.478:1 and fails,
although it rounds to 4.5); messages show it with one decimal, rounded down so that a
refused colour is never shown as "4.5:1".
"""

from __future__ import annotations

import math
import re
from typing import Final

__all__ = [
    "AA_NORMAL_TEXT",
    "WHITE",
    "contrast_ratio",
    "format_ratio",
    "normalize_hex_color",
    "parse_hex_color",
    "primary_color_problem",
    "relative_luminance",
]

#: WCAG 2.x SC 1.4.3 (AA): at least 4.5:1 for text of normal size.
AA_NORMAL_TEXT: Final = 4.5
WHITE: Final = "#ffffff"
_HEX: Final = re.compile(r"#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})")


def parse_hex_color(value: str) -> tuple[int, int, int]:
    """The (red, green, blue) of ``#rrggbb`` (any case); ValueError for anything else."""
    match = _HEX.fullmatch(value)
    if match is None:
        raise ValueError(f"{value!r} is not a #rrggbb colour")
    red, green, blue = (int(part, 16) for part in match.groups())
    return red, green, blue


def normalize_hex_color(value: str) -> str:
    """``#rrggbb`` in lower case (the stored form); ValueError when not one."""
    parse_hex_color(value)
    return value.lower()


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(color: str) -> float:
    """WCAG relative luminance of ``#rrggbb``: 0 (black) to 1 (white)."""
    red, green, blue = parse_hex_color(color)
    return 0.2126 * _linear(red) + 0.7152 * _linear(green) + 0.0722 * _linear(blue)


def contrast_ratio(first: str, second: str) -> float:
    """WCAG contrast ratio of two ``#rrggbb`` colours, in either order: 1.0 to 21.0."""
    a, b = relative_luminance(first), relative_luminance(second)
    lighter, darker = max(a, b), min(a, b)
    return (lighter + 0.05) / (darker + 0.05)


def format_ratio(ratio: float) -> str:
    """``4.4:1``: one decimal, rounded down (a failing ratio never reads as the minimum)."""
    return f"{math.floor(ratio * 10) / 10:.1f}:1"


def primary_color_problem(value: str) -> str | None:
    """Why ``value`` cannot be the primary colour (white text on it), or None when it can."""
    try:
        ratio = contrast_ratio(value, WHITE)
    except ValueError:
        return "must be a colour written #rrggbb (six hexadecimal digits)"
    if ratio < AA_NORMAL_TEXT:
        return (
            f"contrast with white text is {format_ratio(ratio)}; "
            f"WCAG AA needs at least {AA_NORMAL_TEXT}:1"
        )
    return None
