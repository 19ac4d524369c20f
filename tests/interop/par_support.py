"""What the PAR (RFC 9126) and FAPI 2.0 tests share: clients registered through the admin API
with the new properties, a person signed in and consenting already, hand-built pushes and
authorization requests at the proxy, and private_key_jwt assertions."""

from __future__ import annotations

import secrets
import time
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
from joserfc import jwt
from joserfc.jwk import ECKey

from idp_common.protocol.constants import CLIENT_ASSERTION_TYPE_JWT_BEARER
from tests.harness import records
from tests.harness.api import ApiClient
from tests.harness.pkce import pkce_pair
from tests.harness.stack import Stack

SCOPE = "openid profile email"
REDIRECT_URI = "http://127.0.0.1:9/callback"  # never fetched: the browser stops there


@dataclass(frozen=True)
class App:
    """A client made through the admin API; ``key`` (private_key_jwt) or ``secret``
    (client_secret_basic). ``issued_secret``: the secret the admin API answered at creation
    (a private_key_jwt client gets one too, which it must not be able to use)."""

    client_id: str
    redirect_uri: str
    secret: str | None = None
    key: ECKey | None = None
    issued_secret: str | None = None

    @property
    def kid(self) -> str:
        assert self.key is not None
        return self.key.thumbprint()


def register_app(admin: ApiClient, **fields: Any) -> App:
    """A confidential code-flow client with ``fields`` added to ``POST /admin/clients``; a
    ``key`` field makes it a ``private_key_jwt`` client of that EC key."""
    key: ECKey | None = fields.pop("key", None)
    body: dict[str, Any] = {
        "name": f"PAR {uuid.uuid4().hex[:10]}",
        "type": "confidential",
        "redirectUris": [REDIRECT_URI],
        "postLogoutRedirectUris": [],
        "grantTypes": ["authorization_code", "refresh_token"],
        **fields,
    }
    if key is not None:
        public = key.as_dict(private=False)
        public["kid"] = key.thumbprint()
        body |= {"token_endpoint_auth_method": "private_key_jwt", "jwks": {"keys": [public]}}
    created = admin.post("/admin/clients", json=body)
    assert created.status_code == 201, created.text
    client = created.json()
    path = f"/admin/clients/{client['client_id']}/scopes"
    scopes = admin.put(path, json={"scopes": SCOPE.split()})
    assert scopes.status_code == 200, scopes.text
    issued = client.get("client_secret")
    secret = None if key is not None else issued
    return App(client["client_id"], REDIRECT_URI, secret=secret, key=key, issued_secret=issued)


def new_key() -> ECKey:
    return ECKey.generate_key("P-256", private=True)


def private_jwk(app: App) -> dict[str, Any]:
    """The client's private key as the Node script imports it (with its ``kid``)."""
    assert app.key is not None
    return {**app.key.as_dict(private=True), "kid": app.kid}


def assertion(stack: Stack, app: App, audience: str | None = None) -> dict[str, str]:
    """RFC 7523 §2.2 client authentication fields: a fresh ES256 assertion (``aud``: the
    issuer unless given)."""
    assert app.key is not None
    now = int(time.time())
    claims = {
        "iss": app.client_id,
        "sub": app.client_id,
        "aud": audience or stack.issuer,
        "jti": secrets.token_urlsafe(16),
        "iat": now,
        "exp": now + 60,
    }
    token = jwt.encode({"alg": "ES256", "kid": app.kid}, claims, app.key)
    return {"client_assertion_type": CLIENT_ASSERTION_TYPE_JWT_BEARER, "client_assertion": token}


def request_params(app: App, **changes: str | None) -> dict[str, str]:
    """An authorization request with PKCE S256 (``changes``: None removes a parameter)."""
    params: dict[str, str | None] = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": app.redirect_uri,
        "scope": SCOPE,
        "state": "st-" + secrets.token_hex(4),
        "nonce": "n-" + secrets.token_hex(4),
        "code_challenge": pkce_pair()[1],
        "code_challenge_method": "S256",
        **changes,
    }
    return {k: v for k, v in params.items() if v is not None}


def push(
    proxy: httpx.Client,
    app: App,
    params: dict[str, str],
    *,
    auth: dict[str, str] | None = None,
    url: str = "/oauth2/par",
) -> httpx.Response:
    """``POST /oauth2/par``; client_secret_basic for a secret client unless ``auth``
    (form fields) is given."""
    if app.secret is not None and auth is None:
        return proxy.post(url, data=params, auth=(app.client_id, app.secret))
    return proxy.post(url, data={**params, **(auth or {})})


def pushed_uri(response: httpx.Response) -> str:
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["request_uri"].startswith("urn:ietf:params:oauth:request_uri:"), body
    request_uri: str = body["request_uri"]
    return request_uri


def query_of(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def use(
    proxy: httpx.Client,
    client_id: str,
    request_uri: str,
    headers: dict[str, str] | None = None,
    **extra: str,
) -> httpx.Response:
    """``GET /oauth2/authorize?client_id=...&request_uri=...`` (``extra`` query parameters)."""
    query = {"client_id": client_id, "request_uri": request_uri, **extra}
    return proxy.get("/oauth2/authorize", params=query, headers=headers)


def signed_in_person(stack: Stack, app: App) -> tuple[records.TestUser, dict[str, str]]:
    """A person with a browser session who approved the app's scopes: an authorization
    request answers with a code at once. Returns the person and the cookie header."""
    person = records.create_user(stack)
    records.give_consent(stack, app.client_id, person.id, SCOPE.split())
    cookie, _ = records.create_browser_session(stack, person.id)
    return person, {"Cookie": f"svc_session={cookie}"}


def refused_page(response: httpx.Response, error: str) -> None:
    """An error page, nothing sent to a redirect URI, naming ``error``."""
    assert response.status_code == 400, response.text
    assert "location" not in response.headers
    assert response.headers["content-type"].startswith("text/html")
    assert error in response.text


def refused_json(response: httpx.Response, status: int, error: str) -> None:
    """An RFC 6749 §5.2 error object, ``no-store``."""
    assert response.status_code == status, response.text
    assert response.json()["error"] == error, response.text
    assert response.headers["cache-control"] == "no-store"
