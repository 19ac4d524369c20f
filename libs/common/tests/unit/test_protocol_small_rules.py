"""Small public helpers of ``protocol/``: error descriptions, the bare Bearer challenge,
API scopes, the issuer's base, and the RSA public JWK."""

from __future__ import annotations

from idp_common.protocol.rfc6749_errors import bearer_required_challenge, safe_description
from idp_common.protocol.rfc6749_scope import is_api_scope
from idp_common.protocol.rfc7517_jwk import rfc7638_thumbprint, rsa_public_jwk
from token_service.protocol.rfc8414_metadata import issuer_base


def test_safe_description_keeps_only_the_rfc6749_charset() -> None:
    assert safe_description('bad "quote" \\ and é\n') == "bad ?quote? ? and ??"
    assert len(safe_description("x" * 1000)) == 300


def test_a_request_without_token_gets_a_bare_challenge() -> None:
    assert bearer_required_challenge() == 'Bearer realm="idp"'


def test_api_scopes_are_everything_but_the_oidc_scopes() -> None:
    assert not any(is_api_scope(s) for s in ("openid", "profile", "email", "offline_access"))
    assert is_api_scope("idp:admin")


def test_issuer_base_drops_a_trailing_slash() -> None:
    assert issuer_base("https://idp.example/") == "https://idp.example"
    assert issuer_base("https://idp.example") == "https://idp.example"


def test_rsa_public_jwk() -> None:
    jwk = rsa_public_jwk(n=2**2048 - 1, e=65537, kid="k", alg="RS256")
    assert list(jwk) == ["kty", "use", "alg", "kid", "n", "e"]
    assert jwk["e"] == "AQAB" and jwk["kid"] == "k" and jwk["use"] == "sig"
    assert len(rfc7638_thumbprint(jwk)) == 43
