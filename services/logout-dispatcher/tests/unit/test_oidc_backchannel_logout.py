"""Unit tests of the logout token (OIDC Back-Channel Logout 1.0 §2.4, §2.8; contract §6)
and of the dispatcher's pure pieces: signing one token per application and the audit row
of one attempt (logout_dispatcher.fanout)."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from idp_common.crypto.jwt import TYP_LOGOUT_TOKEN, InvalidToken, sign_jwt, verify_jwt
from idp_common.crypto.keys import KeySet, SigningKey
from idp_common.protocol.constants import BACKCHANNEL_LOGOUT_EVENT
from idp_common.usecases.session_end import SessionEnded
from logout_dispatcher.delivery import Attempt
from logout_dispatcher.fanout import audit_entry, sign_logout_tokens
from logout_dispatcher.oidc_backchannel_logout import (
    LOGOUT_TOKEN_PARAMETER,
    is_delivered,
    logout_token_claims,
)
from logout_dispatcher.recipients import Recipient

_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
SIGNING = SigningKey.from_private_key("2026.pem", _KEY)
KEYS = KeySet((SIGNING,))

ISSUER = "https://id.example.com"
CLIENT = "app-one"
SUBJECT = "2b0c1a44-7d0e-4a4b-9a53-1f0f3f3c1a10"
SID = "Yk3c2v0bX1dQ0mN8rZ1sP4tU6wA9yC2eF5hJ7kL0nO3"
NOW = 1_800_000_000
JTI = "j-0123456789abcdef"
EVENT_URI = "http://schemas.openid.net/event/backchannel-logout"


def claims(**overrides: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "issuer": ISSUER,
        "client_id": CLIENT,
        "subject": SUBJECT,
        "sid": SID,
        "now": NOW,
        "jti": JTI,
    }
    values.update(overrides)
    return logout_token_claims(**values)


def decode_part(token: str, index: int) -> Any:
    part = token.split(".")[index]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


# --- logout_token_claims (§2.4) ------------------------------------------------------------


def test_claims_are_exactly_those_of_section_2_4() -> None:
    assert claims() == {
        "iss": ISSUER,
        "aud": CLIENT,
        "iat": NOW,
        "exp": NOW + 120,
        "jti": JTI,
        "sub": SUBJECT,
        "sid": SID,
        "events": {EVENT_URI: {}},
    }


def test_the_event_member_is_the_back_channel_logout_event_with_an_empty_object() -> None:
    assert BACKCHANNEL_LOGOUT_EVENT == EVENT_URI
    events = claims()["events"]
    assert list(events) == [EVENT_URI]
    assert events[EVENT_URI] == {}


def test_never_a_nonce() -> None:
    # §2.4: a nonce is prohibited, so a logout token can never pass for an ID token.
    assert "nonce" not in claims()


def test_audience_is_the_client_id_and_expiry_two_minutes_after_issue() -> None:
    token_claims = claims(client_id="other-app", now=NOW + 7)
    assert token_claims["aud"] == "other-app"
    assert token_claims["iat"] == NOW + 7
    assert token_claims["exp"] == NOW + 7 + 120


@pytest.mark.parametrize("field", ["issuer", "client_id", "subject", "sid", "jti"])
def test_an_empty_input_is_refused(field: str) -> None:
    with pytest.raises(ValueError, match="required"):
        claims(**{field: ""})


def test_the_form_parameter_is_logout_token() -> None:
    assert LOGOUT_TOKEN_PARAMETER == "logout_token"  # §2.5


# --- is_delivered (§2.8, contract §6 rule 5) -----------------------------------------------


@pytest.mark.parametrize(
    ("status", "delivered"),
    [
        (200, True),
        (204, True),
        (0, False),  # no answer
        (201, False),
        (202, False),
        (302, False),  # redirects are not followed
        (400, False),
        (500, False),
    ],
)
def test_is_delivered(status: int, delivered: bool) -> None:
    assert is_delivered(status) is delivered


# --- signing round trip ----------------------------------------------------------------------


def test_signed_token_round_trip_with_logout_typ() -> None:
    token = sign_jwt(claims(), KEYS, typ=TYP_LOGOUT_TOKEN)
    assert decode_part(token, 0) == {"alg": "RS256", "kid": SIGNING.kid, "typ": "logout+jwt"}
    verified = verify_jwt(token, KEYS, issuer=ISSUER, audience=CLIENT, now=NOW, typ="logout+jwt")
    assert verified == claims()


def test_signed_logout_token_is_refused_as_an_access_token() -> None:
    token = sign_jwt(claims(), KEYS, typ=TYP_LOGOUT_TOKEN)
    with pytest.raises(InvalidToken) as info:
        verify_jwt(token, KEYS, issuer=ISSUER, audience=CLIENT, now=NOW, typ="at+jwt")
    assert info.value.reason == "wrong token type"


def test_signed_logout_token_expires_after_two_minutes() -> None:
    token = sign_jwt(claims(), KEYS, typ=TYP_LOGOUT_TOKEN)
    options: dict[str, Any] = {"issuer": ISSUER, "audience": CLIENT, "typ": "logout+jwt"}
    assert verify_jwt(token, KEYS, now=NOW + 119, **options)["sid"] == SID
    with pytest.raises(InvalidToken, match="expired"):
        verify_jwt(token, KEYS, now=NOW + 120, **options)


# --- logout_dispatcher.fanout: sign_logout_tokens ------------------------------------------

EVENT = SessionEnded(user_id=SUBJECT, sid=SID, clients=["a", "b", "c"], reason="logout")
RECIPIENTS = [
    Recipient(client_id="a", uri="https://a.example/bcl"),
    Recipient(client_id="b", uri="https://b.example/bcl"),
    Recipient(client_id="c", uri="https://c.example/bcl"),
]


def test_one_token_per_recipient_each_with_its_own_audience_and_jti() -> None:
    before = int(time.time())
    tokens = sign_logout_tokens(KEYS, ISSUER, EVENT, RECIPIENTS)
    after = int(time.time())
    assert len(tokens) == len(RECIPIENTS)
    seen_jti: set[str] = set()
    for token, recipient in zip(tokens, RECIPIENTS, strict=True):
        assert decode_part(token, 0)["typ"] == "logout+jwt"
        verified = verify_jwt(
            token, KEYS, issuer=ISSUER, audience=recipient.client_id, now=after, typ="logout+jwt"
        )
        assert verified["aud"] == recipient.client_id
        assert verified["sid"] == SID
        assert verified["sub"] == SUBJECT
        assert verified["events"] == {EVENT_URI: {}}
        assert "nonce" not in verified
        assert before <= verified["iat"] <= after
        assert verified["exp"] == verified["iat"] + 120
        assert isinstance(verified["jti"], str) and len(verified["jti"]) >= 16
        seen_jti.add(verified["jti"])
    assert len(seen_jti) == len(RECIPIENTS)


def test_a_token_for_one_application_is_refused_by_another() -> None:
    first, second = sign_logout_tokens(KEYS, ISSUER, EVENT, RECIPIENTS[:2])
    with pytest.raises(InvalidToken, match="wrong audience"):
        verify_jwt(first, KEYS, issuer=ISSUER, audience="b", now=int(time.time()))
    assert first != second


def test_no_recipients_no_tokens() -> None:
    assert sign_logout_tokens(KEYS, ISSUER, EVENT, []) == []


# --- logout_dispatcher.fanout: audit_entry ---------------------------------------------------


AUDIT_FIELDS = {"uri", "status_code", "delivered", "elapsed_ms", "sid", "user_id", "reason"}


def test_audit_entry_of_a_delivered_attempt() -> None:
    entry = audit_entry(EVENT, RECIPIENTS[0], Attempt(status_code=204, elapsed_ms=12))
    assert entry.action == "POST backchannel_logout"
    assert entry.target_type == "client"
    assert entry.target == "a"
    assert entry.status_code == 204
    assert entry.actor == "service:logout-dispatcher"
    assert entry.detail == {
        "uri": "https://a.example/bcl",
        "status_code": 204,
        "delivered": True,
        "elapsed_ms": 12,
        "sid": SID,
        "user_id": SUBJECT,
        "reason": "logout",
    }


@pytest.mark.parametrize(
    ("attempt", "delivered", "error"),
    [
        (Attempt(status_code=500, elapsed_ms=30), False, None),
        (Attempt(status_code=302, elapsed_ms=8), False, None),
        (Attempt(status_code=0, elapsed_ms=5001, error="timeout"), False, "timeout"),
        (Attempt(status_code=0, elapsed_ms=1, error="connect"), False, "connect"),
    ],
)
def test_audit_entry_of_a_failed_attempt(
    attempt: Attempt, delivered: bool, error: str | None
) -> None:
    entry = audit_entry(EVENT, RECIPIENTS[1], attempt)
    assert entry.action == "POST backchannel_logout"
    assert entry.target_type == "client"
    assert entry.target == "b"
    assert entry.status_code == attempt.status_code
    assert entry.detail["status_code"] == attempt.status_code
    assert entry.detail["delivered"] is delivered
    assert entry.detail["uri"] == "https://b.example/bcl"
    assert entry.detail["elapsed_ms"] == attempt.elapsed_ms
    if error is None:
        assert "error" not in entry.detail
    else:
        assert entry.detail["error"] == error
    # Identifiers only (audit rows never carry a token): no other field.
    assert set(entry.detail) == AUDIT_FIELDS | ({"error"} if error else set())


def test_audit_entry_never_holds_the_token() -> None:
    (token,) = sign_logout_tokens(KEYS, ISSUER, EVENT, RECIPIENTS[:1])
    entry = audit_entry(EVENT, RECIPIENTS[0], Attempt(status_code=200, elapsed_ms=3))
    stored = json.dumps(msgspec.to_builtins(entry))
    assert all(segment not in stored for segment in token.split("."))
