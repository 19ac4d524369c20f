"""TOTP (RFC 6238: ±1 step, no step twice), secrets and recovery codes."""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import parse_qs, urlsplit

import pyotp

from idp_common.protocol.rfc6238_totp import (
    match_totp_step,
    new_recovery_codes,
    new_secret,
    provisioning_uri,
    recovery_code_digest,
    time_step,
)

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


def test_a_new_secret_is_160_bits_of_base32() -> None:
    secret = new_secret()
    assert len(base64.b32decode(secret)) == 20 and secret != new_secret()


def test_provisioning_uri() -> None:
    uri = urlsplit(provisioning_uri(SECRET, account="ada@example.org", issuer="IdP"))
    assert (uri.scheme, uri.netloc) == ("otpauth", "totp")
    query = parse_qs(uri.query)
    assert query["secret"] == [SECRET] and query["issuer"] == ["IdP"]


def test_recovery_codes_are_distinct_and_found_whatever_their_spelling() -> None:
    codes = new_recovery_codes()
    assert len(set(codes)) == 10 and all(len(c) == 11 and c[5] == "-" for c in codes)
    code = codes[0]
    expected = hashlib.sha256(code.replace("-", "").encode()).digest()
    for typed in (code, code.upper(), code.replace("-", " "), f" {code} "):
        assert recovery_code_digest(typed) == expected


def test_a_six_digit_code_is_not_a_recovery_code() -> None:
    assert recovery_code_digest("123456") is None
    assert recovery_code_digest("abcde-fgh1j") is None  # 1 is not in the alphabet
