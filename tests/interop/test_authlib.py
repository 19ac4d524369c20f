"""Authlib against the stack, for each algorithm, as an application uses it.

``OAuth2Client`` (httpx) builds the authorization URL with PKCE and the nonce, redeems the
code, refreshes and runs client_credentials; ``JsonWebKey`` holds the published JWKS and
``JsonWebToken([alg])`` verifies every token with the algorithm under test only, into
Authlib's claim classes: ``CodeIDToken`` (iss, aud, exp, nonce, at_hash), the RFC 9068
``JWTAccessTokenClaims`` (typ at+jwt, the API's audience) and, for signed userinfo, its
``JWTClaims`` with iss and aud. (``authlib.jose`` is what Authlib 1.x's relying-party side
still offers for this; it warns that it will move to joserfc.)
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from authlib.common.security import generate_token  # type: ignore[import-untyped]
from authlib.integrations.httpx_client import OAuth2Client  # type: ignore[import-untyped]
from authlib.jose import JsonWebKey, JsonWebToken, JWTClaims  # type: ignore[import-untyped]
from authlib.oauth2.rfc9068.claims import JWTAccessTokenClaims  # type: ignore[import-untyped]
from authlib.oidc.core import CodeIDToken, IDToken  # type: ignore[import-untyped]

from tests.harness.stack import Stack
from tests.interop.support import (
    Registration,
    assert_result,
    assert_spent_refresh_refused,
    browser_sign_in,
)

pytestmark = pytest.mark.e2e
TIMEOUT = 20


class Verifier:
    """The JWKS and the one algorithm the application accepts."""

    def __init__(self, registration: Registration, metadata: dict[str, Any]) -> None:
        self.registration = registration
        self.keys = JsonWebKey.import_key_set(httpx.get(metadata["jwks_uri"]).json())
        self.jwt = JsonWebToken([registration.alg])

    def verify(
        self,
        token: str,
        claims_cls: Any,
        options: dict[str, Any],
        params: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        claims = self.jwt.decode(
            token,
            self.keys,
            claims_cls=claims_cls,
            claims_options={
                "iss": {"essential": True, "value": self.registration.issuer},
                **options,
            },
            claims_params=params,
        )
        claims.validate()
        return {"header": dict(claims.header), "claims": dict(claims)}

    def access_token(self, token: str) -> dict[str, Any]:
        required = {name: {"essential": True} for name in ("sub", "client_id", "iat", "jti")}
        aud = {"essential": True, "value": self.registration.api_audience}
        return self.verify(token, JWTAccessTokenClaims, {**required, "aud": aud})


def authlib_flow(stack: Stack, registration: Registration) -> dict[str, Any]:
    """The result of :mod:`tests.interop.support`, from what Authlib verified."""
    reg = registration
    metadata = httpx.get(reg.issuer + "/.well-known/openid-configuration").json()
    assert metadata["issuer"] == reg.issuer
    verifier = Verifier(reg, metadata)
    rp = OAuth2Client(
        reg.client_id,
        reg.client_secret,
        scope=reg.scope,
        redirect_uri=reg.redirect_uri,
        code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic",
        timeout=TIMEOUT,
    )
    code_verifier, nonce = generate_token(48), generate_token(20)
    url, state = rp.create_authorization_url(
        metadata["authorization_endpoint"], nonce=nonce, code_verifier=code_verifier
    )
    callback = browser_sign_in(stack, url, reg.person)
    token = rp.fetch_token(
        metadata["token_endpoint"],
        authorization_response=callback,
        code_verifier=code_verifier,
        state=state,
    )
    id_params = {"nonce": nonce, "client_id": reg.client_id, "access_token": token["access_token"]}
    id_token = verifier.verify(token["id_token"], CodeIDToken, {}, id_params)

    answer = rp.get(metadata["userinfo_endpoint"])
    assert answer.status_code == 200, answer.text
    if answer.headers["content-type"].startswith("application/jwt"):
        aud = {"essential": True, "value": reg.client_id}
        userinfo = verifier.verify(answer.text, JWTClaims, {"aud": aud})
    else:
        userinfo = {"header": None, "claims": answer.json()}

    refreshed = rp.refresh_token(metadata["token_endpoint"], refresh_token=token["refresh_token"])
    refreshed_id = refreshed.get("id_token")
    machine_rp = OAuth2Client(reg.client_id, reg.client_secret, timeout=TIMEOUT)
    machine = machine_rp.fetch_token(
        metadata["token_endpoint"], grant_type="client_credentials", scope=reg.api_scope
    )
    return {
        "discovery": metadata,
        "nonce": nonce,
        "id_token": id_token,
        "access_token": verifier.access_token(token["access_token"]),
        "userinfo": userinfo,
        "refresh": {
            "spent": token["refresh_token"],
            "refresh_token": refreshed["refresh_token"],
            "access_token": verifier.access_token(refreshed["access_token"]),
            "id_token": verifier.verify(refreshed_id, IDToken, {}, {"client_id": reg.client_id})
            if refreshed_id
            else None,
        },
        "client_credentials": {"access_token": verifier.access_token(machine["access_token"])},
    }


def test_code_flow_userinfo_refresh_and_client_credentials(
    stack: Stack, registration: Registration
) -> None:
    result = authlib_flow(stack, registration)
    assert_result(result, registration)
    assert_spent_refresh_refused(registration, result["refresh"]["spent"])
