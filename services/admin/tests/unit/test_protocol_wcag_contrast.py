"""Unit tests of admin_service.protocol.wcag_contrast (WCAG 2.x contrast)."""

from __future__ import annotations

import pytest

from admin_service.protocol.wcag_contrast import (
    AA_NORMAL_TEXT,
    contrast_ratio,
    format_ratio,
    normalize_hex_color,
    parse_hex_color,
    primary_color_problem,
    relative_luminance,
)


def test_parse_reads_channels_in_any_case() -> None:
    assert parse_hex_color("#FF8000") == (255, 128, 0)
    assert parse_hex_color("#0a0B0c") == (10, 11, 12)
    assert normalize_hex_color("#ABCDEF") == "#abcdef"


@pytest.mark.parametrize(
    "value",
    ["", "fff", "#fff", "#ffffff0", "ffffff", "#gggggg", " #ffffff", "#ffffff\n", "#ff ff ff"],
)
def test_parse_refuses_other_shapes(value: str) -> None:
    with pytest.raises(ValueError, match="#rrggbb"):
        parse_hex_color(value)


def test_luminance_ends_and_a_mid_grey() -> None:
    assert relative_luminance("#000000") == 0
    assert relative_luminance("#ffffff") == pytest.approx(1)
    # 0x80 = 128: ((128/255 + 0.055) / 1.055) ** 2.4
    assert relative_luminance("#808080") == pytest.approx(0.21586, abs=1e-5)


def test_known_ratios() -> None:
    assert contrast_ratio("#ffffff", "#000000") == pytest.approx(21)
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21)  # either order
    assert contrast_ratio("#123456", "#123456") == pytest.approx(1)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.005)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.005)


def test_aa_threshold_is_compared_unrounded() -> None:
    assert contrast_ratio("#777777", "#ffffff") < AA_NORMAL_TEXT  # rounds to 4.5, still fails
    assert primary_color_problem("#777777") == (
        "contrast with white text is 4.4:1; WCAG AA needs at least 4.5:1"
    )
    assert primary_color_problem("#767676") is None
    assert primary_color_problem("#000000") is None
    assert primary_color_problem("#1A73E8") is None  # a common brand blue, any case


def test_low_contrast_message_names_the_ratio() -> None:
    problem = primary_color_problem("#ffff00")
    assert problem == "contrast with white text is 1.0:1; WCAG AA needs at least 4.5:1"
    assert primary_color_problem("#ffffff") is not None


def test_not_a_colour() -> None:
    assert primary_color_problem("red") == (
        "must be a colour written #rrggbb (six hexadecimal digits)"
    )


def test_format_ratio_rounds_down() -> None:
    assert format_ratio(4.4999) == "4.4:1"
    assert format_ratio(21.0) == "21.0:1"
    assert format_ratio(2.36) == "2.3:1"
