"""A relying party and a browser, as plain HTTP: what the hosted page's script and an
application's back end do, so tests can sign people in through the proxy.

``Browser`` keeps the ``svc_session`` cookie. ``sign_in`` goes through the sign-in API with
a password (and consent when asked); ``reach`` authorizes another application with the
session the browser already has; ``exchange`` trades the code for tokens.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
from joserfc import jwt
from joserfc.jwk import KeySet

from tests.harness import records
from tests.harness.stack import Stack


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


@dataclass
class Authorization:
    """One authorization request in flight: its URL and the values to check afterwards."""

    app: records.TestClient
    verifier: str = field(default_factory=lambda: secrets.token_urlsafe(48))
    nonce: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    state: str = field(default_factory=lambda: secrets.token_urlsafe(12))

    def params(self, scope: str = "openid profile offline_access") -> dict[str, str]:
        challenge = records.pkce_challenge(self.verifier)
        return {
            "response_type": "code",
            "client_id": self.app.client_id,
            "redirect_uri": self.app.redirect_uri,
            "scope": scope,
            "state": self.state,
            "nonce": self.nonce,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }


class Browser(httpx.Client):
    """A browser at the proxy: keeps cookies, never follows redirects."""

    def __init__(self, stack: Stack) -> None:
        super().__init__(base_url=stack.proxy_url, follow_redirects=False, timeout=20)

    def authorize(self, authorization: Authorization, scope: str | None = None) -> httpx.Response:
        params = authorization.params() if scope is None else authorization.params(scope)
        return self.get("/oauth2/authorize", params=params)

    def sign_in(
        self, authorization: Authorization, person: records.TestUser, scope: str | None = None
    ) -> str:
        """Password sign-in for ``authorization`` (asking for ``scope`` when given);
        returns the code it ends with."""
        to_login = self.authorize(authorization, scope)
        assert to_login.status_code in (302, 303), to_login.text
        challenge = query_of(to_login.headers["location"])["challenge"]
        step = self.post(
            "/api/v1/auth/login",
            json={"challenge": challenge, "email": person.email, "password": person.password},
        )
        assert step.status_code == 200, step.text
        if step.json()["next"] == "consent":
            step = self.post("/api/v1/auth/consent", json={"challenge": challenge, "approve": True})
            assert step.status_code == 200, step.text
        assert step.json()["next"] == "done", step.text
        return self._code_from(self.get(step.json()["redirectTo"]), authorization)

    def reach(self, authorization: Authorization) -> str:
        """Authorize with the session this browser has (no prompt); returns the code."""
        return self._code_from(self.authorize(authorization), authorization)

    @staticmethod
    def _code_from(response: httpx.Response, authorization: Authorization) -> str:
        assert response.status_code in (302, 303), response.text
        values = query_of(response.headers["location"])
        assert values.get("state") == authorization.state, values
        assert "code" in values, values
        return values["code"]

    @property
    def session_cookie(self) -> str:
        value = self.cookies.get("svc_session")
        assert value, "no session cookie"
        return str(value)


def exchange(
    stack: Stack, authorization: Authorization, code: str, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """The application's back end trades ``code`` for tokens at the proxy (with
    ``headers``: a DPoP proof, say)."""
    app = authorization.app
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": app.redirect_uri,
        "code_verifier": authorization.verifier,
    }
    auth = (app.client_id, app.secret) if app.secret else None
    if auth is None:
        form["client_id"] = app.client_id
    response = httpx.post(
        stack.proxy_url + "/oauth2/token", data=form, auth=auth, headers=headers, timeout=20
    )
    assert response.status_code == 200, response.text
    tokens: dict[str, Any] = response.json()
    return tokens


def jwks(stack: Stack) -> KeySet:
    document = httpx.get(stack.proxy_url + "/.well-known/jwks.json", timeout=10).json()
    return KeySet.import_key_set(document)


def verified_claims(
    stack: Stack, token: str, *, audience: str, typ: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Header and claims of ``token`` after checking its signature against the JWKS that
    the proxy publishes, and ``iss``, ``aud`` and ``exp``; ``typ`` too when given."""
    decoded = jwt.decode(token, jwks(stack), algorithms=["RS256"])
    claims = dict(decoded.claims)
    assert claims["iss"] == stack.issuer
    assert claims["aud"] == audience
    assert claims["exp"] > time.time()
    if typ is not None:
        assert decoded.header.get("typ") == typ, decoded.header
    return dict(decoded.header), claims
