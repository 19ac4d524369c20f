"""Unit tests of token_service.protocol.rfc7523_client_assertion (RFC 7523 §2.2, §3; OIDC
Core §9): request shape, header, key choice, signature and claims, without HTTP."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from joserfc.jwk import KeySet, RSAKey

from idp_common.protocol.constants import CLIENT_ASSERTION_TYPE_JWT_BEARER
from idp_common.protocol.rfc4648_base64url import base64url_encode
from idp_common.protocol.rfc6749_errors import InvalidClient, InvalidRequest
from tests.harness.client_assertions import (
    claims,
    new_key,
    public_jwks,
    secret_assertion,
    sign,
    sign_assertion,
)
from token_service.protocol.rfc7523_client_assertion import (
    MAX_EXP_AHEAD_SECONDS,
    MAX_LIFETIME_SECONDS,
    VerifiedAssertion,
    check_assertion_request,
    has_kid,
    read_assertion,
    secret_key,
    verify_assertion,
)

CLIENT = "client-a"
ISSUER = "https://id.example.com"
TOKEN_URL = ISSUER + "/oauth2/token"
AUDIENCES = frozenset({ISSUER, TOKEN_URL})
NOW = 1_800_000_000
PKJ, SJ = "private_key_jwt", "client_secret_jwt"
SECRET = "s3cr3t-" + "x" * 36
RSA = new_key("RS256", "rsa-1")
EC = new_key("ES256", "ec-1")
PS = new_key("PS256", "ps-1")
KEYS = KeySet.import_key_set(public_jwks(RSA, EC, PS))  # type: ignore[arg-type]


def verify(
    token: str, *, method: str = PKJ, keys: KeySet = KEYS, client_id: str | None = None
) -> VerifiedAssertion:
    return verify_assertion(
        token,
        read_assertion(token, client_id),
        method=method,
        keys=keys,
        audiences=AUDIENCES,
        now=NOW,
    )


def signed(key: Any = RSA, **overrides: Any) -> str:
    return sign_assertion(key, CLIENT, TOKEN_URL, **{"iat": NOW, "exp": NOW + 60, **overrides})


@pytest.mark.parametrize("key", [RSA, EC, PS], ids=["RS256", "ES256", "PS256"])
def test_private_key_jwt_verifies(key: Any) -> None:
    verified = verify(signed(key))
    assert verified.client_id == CLIENT
    assert verified.usable_until == NOW + 60
    assert verified.jti


@pytest.mark.parametrize("audience", [ISSUER, TOKEN_URL, [TOKEN_URL, "urn:other"]])
def test_audience_issuer_or_endpoint(audience: Any) -> None:
    verify(sign_assertion(RSA, CLIENT, audience, iat=NOW, exp=NOW + 60))


@pytest.mark.parametrize("audience", ["https://elsewhere.example/token", ["urn:x"], [], 5])
def test_wrong_audience(audience: Any) -> None:
    token = sign_assertion(RSA, CLIENT, audience, iat=NOW, exp=NOW + 60)
    with pytest.raises(InvalidClient, match="aud"):
        verify(token)


def test_client_secret_jwt() -> None:
    token = secret_assertion(SECRET, CLIENT, ISSUER, iat=NOW, exp=NOW + 60)
    assert verify(token, method=SJ, keys=secret_key(SECRET)).client_id == CLIENT
    with pytest.raises(InvalidClient, match="signature"):
        verify(token, method=SJ, keys=secret_key(SECRET + "!"))


def test_alg_must_match_the_method() -> None:
    hs = secret_assertion(SECRET, CLIENT, ISSUER, iat=NOW, exp=NOW + 60)
    with pytest.raises(InvalidClient, match="signed with RS256"):
        verify(hs, method=PKJ, keys=secret_key(SECRET))
    with pytest.raises(InvalidClient, match="signed with HS256"):
        verify(signed(), method=SJ, keys=secret_key(SECRET))


def test_alg_none_refused() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        token = sign(claims(CLIENT, TOKEN_URL, now=NOW), None, {"alg": "none"})
    with pytest.raises(InvalidClient, match="algorithm"):
        verify(token + "x" if token.endswith(".") else token)
    with pytest.raises(InvalidClient):
        read_assertion(token, None)


def test_signed_by_another_key() -> None:
    other = new_key("RS256", "rsa-1")  # same kid, other key
    with pytest.raises(InvalidClient, match="signature"):
        verify(signed(other))


def test_unknown_kid_has_no_key() -> None:
    stranger = new_key("ES256", "not-registered")
    assert not has_kid(KEYS, "not-registered")
    assert has_kid(KEYS, "ec-1") and has_kid(KEYS, None)
    with pytest.raises(InvalidClient, match="no registered key"):
        verify(signed(stranger))


def test_without_kid_every_fitting_key_is_tried() -> None:
    payload = {**claims(CLIENT, TOKEN_URL, now=NOW)}
    token = sign(payload, EC, {"alg": "ES256"})
    assert verify(token).client_id == CLIENT


def test_small_rsa_key_not_used() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small = RSAKey.generate_key(1024, parameters={"kid": "small", "alg": "RS256"})
        keys = KeySet.import_key_set(public_jwks(small))  # type: ignore[arg-type]
    with pytest.raises(InvalidClient, match="no registered key"):
        verify(signed(small), keys=keys)


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"exp": None}, "needs exp"),
        ({"exp": NOW - 31}, "expired"),
        ({"exp": NOW + MAX_EXP_AHEAD_SECONDS + 31}, "over 3600 s ahead"),
        ({"iat": None, "exp": NOW + MAX_LIFETIME_SECONDS + 31}, "without iat"),
        ({"iat": NOW - MAX_LIFETIME_SECONDS - 31}, "older than"),
        ({"iat": NOW + 31}, "iat is in the future"),
        ({"nbf": NOW + 31}, "nbf is in the future"),
        ({"jti": None}, "needs jti"),
        ({"jti": "x" * 257}, "needs jti"),
        ({"iss": "someone-else"}, "iss"),
        ({"exp": "soon"}, "invalid exp"),
    ],
)
def test_claims_refused(overrides: dict[str, Any], reason: str) -> None:
    with pytest.raises(InvalidClient, match=reason):
        verify(signed(**overrides))


def test_leeway_accepts_small_skew() -> None:
    verify(signed(exp=NOW - 29, iat=NOW + 29))


def test_an_hour_long_assertion_is_used_five_minutes_after_iat() -> None:
    """Authlib's default: exp = iat + 3600. Accepted, remembered until iat + 300."""
    verified = verify(signed(iat=NOW - 100, exp=NOW + 3500))
    assert verified.usable_until == NOW - 100 + MAX_LIFETIME_SECONDS
    without_iat = verify(signed(iat=None, exp=NOW + 200))
    assert without_iat.usable_until == NOW + 200


def test_sub_must_match_form_client_id() -> None:
    token = signed()
    assert verify(token, client_id=CLIENT).client_id == CLIENT
    with pytest.raises(InvalidRequest, match="sub"):
        read_assertion(token, "client-b")


@pytest.mark.parametrize("typ", ["at+jwt", "dpop+jwt", "logout+jwt"])
def test_other_typ_refused(typ: Any) -> None:
    token = sign(claims(CLIENT, TOKEN_URL, now=NOW), RSA, {"alg": "RS256", "typ": typ})
    with pytest.raises(InvalidClient, match="typ"):
        verify(token)


def test_crit_header_refused() -> None:
    """Refused before the signature is even looked at."""

    def segment(value: dict[str, Any]) -> str:
        return base64url_encode(json.dumps(value).encode())

    header = {"alg": "RS256", "kid": "rsa-1", "crit": ["x"], "x": 1}
    token = f"{segment(header)}.{segment(claims(CLIENT, TOKEN_URL, now=NOW))}.c2ln"
    with pytest.raises(InvalidClient, match="header"):
        verify(token)


@pytest.mark.parametrize("value", ["", "a.b", "a.b.c", "x" * 9000, "e30.e30.sig"])
def test_malformed(value: str) -> None:
    with pytest.raises(InvalidClient):
        read_assertion(value, None)


def test_one_method_per_request() -> None:
    kwargs: dict[str, Any] = {
        "client_assertion": "a.b.c",
        "client_assertion_type": CLIENT_ASSERTION_TYPE_JWT_BEARER,
    }
    assert check_assertion_request(authorization=None, client_secret=None, **kwargs) == "a.b.c"
    with pytest.raises(InvalidRequest, match="more than one"):
        check_assertion_request(authorization="Basic abc", client_secret=None, **kwargs)
    with pytest.raises(InvalidRequest, match="more than one"):
        check_assertion_request(authorization=None, client_secret="s", **kwargs)
    # A bearer header is not client authentication.
    check_assertion_request(authorization="Bearer x", client_secret=None, **kwargs)


@pytest.mark.parametrize(
    ("assertion", "assertion_type"),
    [("a.b.c", None), ("a.b.c", "urn:other"), (None, CLIENT_ASSERTION_TYPE_JWT_BEARER)],
)
def test_type_and_assertion_required(assertion: str | None, assertion_type: str | None) -> None:
    with pytest.raises(InvalidRequest):
        check_assertion_request(
            authorization=None,
            client_secret=None,
            client_assertion=assertion,
            client_assertion_type=assertion_type,
        )
