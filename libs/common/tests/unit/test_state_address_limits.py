"""The table of per-address limits: every row reads a limit setting of its own kind."""

from __future__ import annotations

from idp_common.config import Settings
from idp_common.state.address_limits import ADDRESS_LIMITS, RESET, TOKEN


def test_every_row_names_an_integer_setting_and_a_positive_window() -> None:
    settings = Settings()
    for bucket, row in ADDRESS_LIMITS.items():
        assert row.bucket == bucket
        assert row.limit_setting.endswith("_per_ip")
        assert isinstance(row.limit(settings), int) and row.limit(settings) >= 1
        assert row.window_seconds >= 60


def test_spec_part_8_defaults() -> None:
    settings = Settings()
    assert (TOKEN.limit(settings), TOKEN.window_seconds) == (120, 60)
    assert (RESET.limit(settings), RESET.window_seconds) == (10, 3600)


def test_the_limit_follows_the_setting() -> None:
    assert TOKEN.limit(Settings(token_per_ip=7)) == 7
