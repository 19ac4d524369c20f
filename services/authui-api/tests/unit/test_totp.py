"""Unit tests of authui_service.totp (RFC 6238, ±1 step, no step twice)."""

from __future__ import annotations

import pyotp

from idp_common.protocol.rfc6238_totp import match_totp_step, time_step

SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"  # 160 bits (pyotp needs >= 112)
NOW = 1_700_000_015.0  # mid-step
STEP = time_step(NOW)


def code_at(step: int) -> str:
    return str(pyotp.TOTP(SECRET).generate_otp(step))


def test_rfc6238_step() -> None:
    assert time_step(59) == 1 and time_step(60) == 2
    assert code_at(STEP) == pyotp.TOTP(SECRET).at(NOW)


def test_current_previous_and_next_steps_are_accepted() -> None:
    for step in (STEP - 1, STEP, STEP + 1):
        assert match_totp_step(SECRET, code_at(step), now=NOW, last_used_step=None) == step


def test_steps_outside_the_window_are_refused() -> None:
    for step in (STEP - 2, STEP + 2):
        assert match_totp_step(SECRET, code_at(step), now=NOW, last_used_step=None) is None


def test_a_used_step_is_refused_and_later_ones_accepted() -> None:
    assert match_totp_step(SECRET, code_at(STEP), now=NOW, last_used_step=STEP) is None
    assert match_totp_step(SECRET, code_at(STEP - 1), now=NOW, last_used_step=STEP) is None
    assert match_totp_step(SECRET, code_at(STEP + 1), now=NOW, last_used_step=STEP) == STEP + 1


def test_malformed_codes() -> None:
    for code in ("", "12345", "1234567", "abcdef", "١٢٣٤٥٦"):
        assert match_totp_step(SECRET, code, now=NOW, last_used_step=None) is None
    spaced = code_at(STEP)[:3] + " " + code_at(STEP)[3:]
    assert match_totp_step(SECRET, spaced, now=NOW, last_used_step=None) == STEP
