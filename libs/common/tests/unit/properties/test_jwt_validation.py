"""Properties of JWT header and claim validation (``idp_common.crypto.jwt``) and of the
``id_token_hint`` check built on it (``idp_common.protocol.oidc_id_token_hint``).

Whatever string arrives as a bearer token or a hint, the answer is the claims or the
documented refusal (``InvalidToken`` / ``InvalidIdTokenHint``), never another exception;
and whatever is accepted satisfies the rule (issuer, audience, expiry, type).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from idp_common.crypto.jwt import TYP_ACCESS_TOKEN, InvalidToken, sign_jwt, verify_jwt
from idp_common.protocol.oidc_id_token_hint import (
    EXPIRED_GRACE_SECONDS,
    InvalidIdTokenHint,
    verify_id_token_hint,
)
from libs.common.tests.unit.properties.support import (
    AUDIENCE,
    CLIENT_ID,
    FAST,
    ISSUER,
    KEY,
    KEYS,
    NOW,
    SLOW,
    b64,
    header,
    sign_raw,
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
#: Claims drawn near the values the checks look at, so that both answers occur.
NUMBER = st.one_of(
    st.integers(NOW - 2 * EXPIRED_GRACE_SECONDS, NOW + 2 * EXPIRED_GRACE_SECONDS),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=5),
    st.none(),
)
AUD = st.one_of(
    st.sampled_from([AUDIENCE, CLIENT_ID, "other"]),
    st.lists(st.sampled_from([AUDIENCE, CLIENT_ID, "other", ""]), max_size=3),
    JSON,
)
CLAIMS = st.fixed_dictionaries(
    {},
    optional={
        "iss": st.sampled_from([ISSUER, ISSUER + "/", "https://evil.example"]) | JSON,
        "sub": st.sampled_from(["user-1", ""]) | JSON,
        "aud": AUD,
        "azp": st.sampled_from([CLIENT_ID, "other"]) | JSON,
        "exp": NUMBER,
        "nbf": NUMBER,
        "iat": NUMBER,
        "events": JSON,
        "sid": JSON,
    },
)
TYP = st.none() | st.sampled_from(["JWT", "at+jwt", "application/AT+JWT", "logout+jwt", ""])
#: A header nested deeper than the JSON decoder's recursion limit.
DEEP_HEADER = b64(b"[" * 5000) + "." + b64(b"{}") + ".c2ln"
DEEP_KNOWN_HEADER = (
    b64(b'{"alg":"RS256","kid":"k","x":' + b"[" * 5000 + b"]" * 5000 + b"}") + ".e30.c2ln"
)


def _verify_access_token(token: str) -> dict[str, Any] | None:
    try:
        return verify_jwt(
            token, KEYS, issuer=ISSUER, audience=AUDIENCE, now=NOW, typ=TYP_ACCESS_TOKEN
        )
    except InvalidToken:
        return None


def _verify_hint(token: str, client_id: str | None = None) -> Any:
    try:
        return verify_id_token_hint(token, KEYS, issuer=ISSUER, now=NOW, client_id=client_id)
    except InvalidIdTokenHint:
        return None


@FAST
@given(st.text(max_size=300))
@example(DEEP_HEADER)
@example(DEEP_KNOWN_HEADER)
@example("a.b.c")
@example("." * 2)
def test_any_string_is_claims_or_the_documented_refusal(token: str) -> None:
    assert _verify_access_token(token) is None
    assert _verify_hint(token) is None


@FAST
@given(st.binary(max_size=200), st.binary(max_size=200), st.binary(max_size=64))
def test_any_three_segments_are_refused_without_a_signature_of_ours(
    head: bytes, body: bytes, signature: bytes
) -> None:
    token = f"{b64(head)}.{b64(body)}.{b64(signature)}"
    assert _verify_access_token(token) is None
    assert _verify_hint(token) is None


@FAST
@given(st.dictionaries(st.text(max_size=8), JSON, max_size=6) | JSON)
def test_any_json_header_is_refused_when_unsigned(head: Any) -> None:
    token = f"{b64(json.dumps(head).encode())}.{b64(b'{}')}.{b64(b'sig')}"
    assert _verify_access_token(token) is None
    assert _verify_hint(token) is None


@SLOW
@given(CLAIMS, TYP)
def test_an_accepted_access_token_satisfies_every_rule(claims: dict[str, Any], typ: Any) -> None:
    token = sign_raw(header(**({} if typ is None else {"typ": typ})), json.dumps(claims).encode())
    accepted = _verify_access_token(token)
    if accepted is None:
        return
    assert accepted == claims
    assert isinstance(typ, str) and typ.lower().removeprefix("application/") == "at+jwt"
    assert accepted["iss"] == ISSUER
    aud = accepted["aud"]
    assert aud == AUDIENCE or (isinstance(aud, list) and AUDIENCE in aud)
    assert accepted["exp"] > NOW
    for name in ("nbf", "iat"):
        assert accepted.get(name) is None or accepted[name] <= NOW


@SLOW
@given(CLAIMS, TYP, st.none() | st.sampled_from([CLIENT_ID, "other"]))
def test_an_accepted_hint_is_an_id_token_of_ours_for_the_client(
    claims: dict[str, Any], typ: Any, client_id: str | None
) -> None:
    token = sign_raw(header(**({} if typ is None else {"typ": typ})), json.dumps(claims).encode())
    hint = _verify_hint(token, client_id)
    if hint is None:
        return
    assert typ is None or typ.lower().removeprefix("application/") == "jwt"
    assert "events" not in claims
    assert claims["iss"] == ISSUER
    assert hint.subject == claims["sub"] and hint.subject
    audiences = [claims["aud"]] if isinstance(claims["aud"], str) else claims["aud"]
    assert hint.client_id in audiences
    assert client_id is None or hint.client_id == client_id
    assert claims["exp"] > NOW - EXPIRED_GRACE_SECONDS
    assert hint.expired == (claims["exp"] <= NOW)


@SLOW
@given(st.binary(max_size=300))
@example(b"[" * 5000)
@example(b"\xff")
def test_a_signed_payload_of_any_bytes_is_claims_or_refused(payload: bytes) -> None:
    token = sign_raw(header(typ="at+jwt"), payload)
    _verify_access_token(token)
    _verify_hint(token)


@SLOW
@given(
    st.text(min_size=1, max_size=20),
    st.lists(st.text(alphabet="abc:", min_size=1, max_size=6), max_size=4),
)
def test_a_signed_access_token_verifies_to_its_claims(subject: str, scopes: list[str]) -> None:
    claims = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": subject,
        "exp": NOW + 60,
        "scope": " ".join(scopes),
    }
    token = sign_jwt(claims, KEYS, typ=TYP_ACCESS_TOKEN)
    assert _verify_access_token(token) == claims


@SLOW
@given(st.data())
def test_any_change_to_the_signed_part_is_refused(data: st.DataObject) -> None:
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "user-1", "exp": NOW + 60}
    token = sign_jwt(claims, KEYS, typ=TYP_ACCESS_TOKEN)
    signed_length = token.rindex(".")
    position = data.draw(st.integers(0, signed_length - 1))
    replacement = data.draw(st.characters(codec="ascii").filter(lambda c: c != token[position]))
    tampered = token[:position] + replacement + token[position + 1 :]
    assert _verify_access_token(tampered) is None


def test_the_key_used_is_the_one_under_test() -> None:
    assert KEYS.find(KEY.kid) is KEY
