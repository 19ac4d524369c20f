"""RFC 8628 rules: user codes, device codes, the polling state machine, the decision."""

from __future__ import annotations

import itertools

import msgspec
import pytest

from idp_common.protocol.rfc6749_errors import InvalidGrant
from idp_common.protocol.rfc8628_device import (
    SLOW_DOWN_SECONDS,
    USER_CODE_ALPHABET,
    AccessDenied,
    AuthorizationPending,
    DeviceApproval,
    DeviceState,
    ExpiredToken,
    SlowDown,
    decide,
    device_code_digest,
    format_user_code,
    new_device_code,
    new_user_code,
    normalise_user_code,
    poll,
)

APPROVAL = DeviceApproval(
    user_id="u1", scopes=["openid"], auth_time=1, acr="urn:idp:acr:1fa", amr=["pwd"], sid="s"
)


def state(**changes: object) -> DeviceState:
    base = DeviceState(
        client_id="tv", scopes=["openid"], user_code="BCDFGHJK", expires_at=1000, interval=5
    )
    return msgspec.structs.replace(base, **changes)


def test_user_code_uses_the_base20_alphabet_and_eight_characters() -> None:
    counter = itertools.count()
    code = new_user_code(lambda n: next(counter) % n)
    assert code == "BCDFGHJK"
    assert set(new_user_code()) <= set(USER_CODE_ALPHABET)
    assert len(USER_CODE_ALPHABET) == 20
    assert not set("AEIOUY0123456789") & set(USER_CODE_ALPHABET)


def test_user_code_is_shown_in_two_halves() -> None:
    assert format_user_code("BCDFGHJK") == "BCDF-GHJK"


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("BCDF-GHJK", "BCDFGHJK"),
        ("bcdf-ghjk", "BCDFGHJK"),
        (" bcdf ghjk ", "BCDFGHJK"),
        ("BC-DF-GH-JK", "BCDFGHJK"),
        ("BCDFGHJK", "BCDFGHJK"),
        ("BCDF-GHJ", None),  # too short
        ("BCDF-GHJKL", None),  # too long
        ("ABCD-GHJK", None),  # a vowel is not in the alphabet
        ("BCD1-GHJK", None),  # a digit neither
        ("BCDF_GHJK", None),  # other punctuation is not dropped
        ("", None),
        (None, None),
        ("-" * 1000 + "BCDFGHJK", None),  # absurdly long input is refused before work
    ],
)
def test_normalise_user_code(typed: str | None, expected: str | None) -> None:
    assert normalise_user_code(typed) == expected


def test_device_code_is_256_bits_and_stored_as_a_digest() -> None:
    code = new_device_code(lambda n: b"\x01" * n)
    assert len(code) == 43  # 32 bytes in base64url without padding
    assert new_device_code() != new_device_code()
    assert len(device_code_digest(code)) == 64
    assert device_code_digest(code) != code


def test_unknown_code_is_invalid_grant() -> None:
    outcome = poll(None, "tv", 0)
    assert isinstance(outcome.error, InvalidGrant)
    assert outcome.state is None and not outcome.redeem


def test_another_clients_code_is_invalid_grant() -> None:
    outcome = poll(state(), "other", 0)
    assert isinstance(outcome.error, InvalidGrant)
    assert outcome.state is None


def test_first_poll_is_pending_and_records_the_moment() -> None:
    outcome = poll(state(), "tv", 10_000)
    assert isinstance(outcome.error, AuthorizationPending)
    assert outcome.error.error == "authorization_pending"
    assert outcome.state == state(last_poll_ms=10_000)


@pytest.mark.parametrize(
    ("elapsed_ms", "too_fast"),
    [(0, True), (1_000, True), (4_700, True), (4_750, False), (5_000, False), (60_000, False)],
)
def test_polling_faster_than_the_interval_slows_down(elapsed_ms: int, too_fast: bool) -> None:
    outcome = poll(state(last_poll_ms=10_000), "tv", 10_000 + elapsed_ms)
    assert outcome.state is not None
    assert outcome.state.last_poll_ms == 10_000 + elapsed_ms
    if too_fast:
        assert isinstance(outcome.error, SlowDown)
        assert outcome.error.error == "slow_down"
        assert outcome.state.interval == 5 + SLOW_DOWN_SECONDS
    else:
        assert isinstance(outcome.error, AuthorizationPending)
        assert outcome.state.interval == 5


def test_the_grown_interval_holds_for_later_polls() -> None:
    slowed = state(interval=10, last_poll_ms=0)
    assert isinstance(poll(slowed, "tv", 6_000).error, SlowDown)
    assert isinstance(poll(slowed, "tv", 10_000).error, AuthorizationPending)


def test_expired_code() -> None:
    for status in ("pending", "approved", "denied"):
        outcome = poll(state(status=status, approval=APPROVAL), "tv", 1000 * 1000)
        assert isinstance(outcome.error, ExpiredToken)
        assert outcome.error.error == "expired_token"
        assert outcome.state is None


def test_denied_code() -> None:
    outcome = poll(state(status="denied"), "tv", 0)
    assert isinstance(outcome.error, AccessDenied)
    assert outcome.error.error == "access_denied"


def test_approved_code_is_redeemed_even_when_polled_fast() -> None:
    outcome = poll(state(status="approved", approval=APPROVAL, last_poll_ms=0), "tv", 1)
    assert outcome.redeem and outcome.approval == APPROVAL
    assert outcome.error is None and outcome.state is None


def test_decisions() -> None:
    assert decide(state(), 10, APPROVAL) == state(status="approved", approval=APPROVAL)
    assert decide(state(), 10, None) == state(status="denied")
    assert decide(None, 10, APPROVAL) is None
    assert decide(state(), 1000, APPROVAL) is None  # expired
    assert decide(state(status="denied"), 10, APPROVAL) is None  # final
    approved = state(status="approved", approval=APPROVAL)
    assert decide(approved, 10, None) is None
