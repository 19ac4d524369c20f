"""PyJWT against the stack, for each algorithm: an application that speaks OAuth with
plain httpx and verifies every token with PyJWT.

``PyJWKClient`` fetches the published JWKS and picks the key by ``kid``;
``jwt.decode_complete`` verifies the signature with ``algorithms=[alg]`` (the algorithm
under test only), ``iss``, ``aud`` (the client for the ID token and signed userinfo, the
API for access tokens) and ``exp``. What PyJWT leaves to the application is checked here,
as such an application does: the state and ``iss`` of the authorization response
(RFC 9207), the ID token's nonce and the access token's ``typ`` (RFC 9068 §4).
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import jwt
import pytest

from tests.harness.pkce import pkce_pair
from tests.harness.stack import Stack
from tests.interop.support import (
    ACCESS_TOKEN_TYP,
    Registration,
    assert_result,
    assert_spent_refresh_refused,
    browser_sign_in,
)

pytestmark = pytest.mark.e2e
TIMEOUT = 20


class Application:
    """The application's back end: its registration, the provider's metadata, its JWKS."""

    def __init__(self, registration: Registration) -> None:
        self.reg = registration
        self.metadata: dict[str, Any] = httpx.get(
            registration.issuer + "/.well-known/openid-configuration", timeout=TIMEOUT
        ).json()
        assert self.metadata["issuer"] == registration.issuer
        self.jwks = jwt.PyJWKClient(self.metadata["jwks_uri"])

    def verify(self, token: str, audience: str, require: list[str]) -> dict[str, Any]:
        key = self.jwks.get_signing_key_from_jwt(token)
        decoded = jwt.decode_complete(
            token,
            key.key,
            algorithms=[self.reg.alg],
            audience=audience,
            issuer=self.reg.issuer,
            options={"require": ["iss", "aud", *require]},
        )
        return {"header": decoded["header"], "claims": decoded["payload"]}

    def id_token(self, token: str) -> dict[str, Any]:
        return self.verify(token, self.reg.client_id, ["sub", "exp", "iat"])

    def access_token(self, token: str) -> dict[str, Any]:
        verified = self.verify(
            token, self.reg.api_audience, ["sub", "exp", "iat", "jti", "client_id"]
        )
        assert verified["header"].get("typ") == ACCESS_TOKEN_TYP, verified["header"]
        return verified

    def token_request(self, form: dict[str, str]) -> dict[str, Any]:
        answer = httpx.post(
            self.metadata["token_endpoint"],
            data=form,
            auth=(self.reg.client_id, self.reg.client_secret),
            timeout=TIMEOUT,
        )
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        assert body["token_type"].lower() == "bearer", body
        return body


def pyjwt_flow(stack: Stack, registration: Registration) -> dict[str, Any]:
    """The result of :mod:`tests.interop.support`, from what PyJWT verified."""
    app, reg = Application(registration), registration
    code_verifier, challenge = pkce_pair()
    state, nonce = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    authorize = httpx.URL(
        app.metadata["authorization_endpoint"],
        params={
            "response_type": "code",
            "client_id": reg.client_id,
            "redirect_uri": reg.redirect_uri,
            "scope": reg.scope,
            "state": state,
            "nonce": nonce,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        },
    )
    callback = browser_sign_in(stack, str(authorize), reg.person)
    values = {k: v[0] for k, v in parse_qs(urlsplit(callback).query).items()}
    assert values["state"] == state
    assert values["iss"] == reg.issuer
    tokens = app.token_request(
        {
            "grant_type": "authorization_code",
            "code": values["code"],
            "redirect_uri": reg.redirect_uri,
            "code_verifier": code_verifier,
        }
    )
    id_token = app.id_token(tokens["id_token"])
    assert id_token["claims"]["nonce"] == nonce

    answer = httpx.get(
        app.metadata["userinfo_endpoint"],
        headers={"Authorization": f"Bearer {tokens['access_token']}"},
        timeout=TIMEOUT,
    )
    assert answer.status_code == 200, answer.text
    if answer.headers["content-type"].startswith("application/jwt"):
        userinfo = app.verify(answer.text, reg.client_id, [])
    else:
        userinfo = {"header": None, "claims": answer.json()}

    refreshed = app.token_request(
        {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}
    )
    machine = app.token_request({"grant_type": "client_credentials", "scope": reg.api_scope})
    return {
        "discovery": app.metadata,
        "nonce": nonce,
        "id_token": id_token,
        "access_token": app.access_token(tokens["access_token"]),
        "userinfo": userinfo,
        "refresh": {
            "spent": tokens["refresh_token"],
            "refresh_token": refreshed["refresh_token"],
            "access_token": app.access_token(refreshed["access_token"]),
            "id_token": app.id_token(refreshed["id_token"]) if "id_token" in refreshed else None,
        },
        "client_credentials": {"access_token": app.access_token(machine["access_token"])},
    }


def test_code_flow_userinfo_refresh_and_client_credentials(
    stack: Stack, registration: Registration
) -> None:
    result = pyjwt_flow(stack, registration)
    assert_result(result, registration)
    assert_spent_refresh_refused(registration, result["refresh"]["spent"])
