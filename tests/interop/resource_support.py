"""Registrations of the resource-indicator and token-exchange tests (RFC 8707, RFC 8693),
made through the administration API at the proxy: APIs with one scope each, clients with
the grants and scopes asked for, and a person holding the APIs' scopes."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx
from authlib.common.security import generate_token  # type: ignore[import-untyped]
from authlib.integrations.httpx_client import OAuth2Client  # type: ignore[import-untyped]

from tests.harness import records
from tests.harness.api import ApiClient
from tests.harness.stack import Stack
from tests.interop.support import browser_sign_in

EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"
#: What Authlib sends with a token request unless told other headers.
FORM_HEADERS = {
    "Accept": "application/json",
    "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8",
}
REDIRECT_URI = "http://127.0.0.1:9/callback"  # never fetched: the browser stops there
TIMEOUT = 20


@dataclass(frozen=True)
class Api:
    audience: str
    scope: str


@dataclass(frozen=True)
class Client:
    client_id: str
    secret: str

    @property
    def auth(self) -> tuple[str, str]:
        return (self.client_id, self.secret)


def sent(response: httpx.Response, status: int) -> dict[str, Any]:
    request = response.request
    assert response.status_code == status, f"{request.method} {request.url}: {response.text}"
    body: dict[str, Any] = response.json()
    return body


def token_request(stack: Stack, client: Client, form: list[tuple[str, str]]) -> httpx.Response:
    """``POST /oauth2/token`` at the proxy with client_secret_basic; ``form`` may repeat a
    name (``resource``, ``audience``)."""
    return httpx.post(
        stack.proxy_url + "/oauth2/token",
        content=urlencode(form),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        auth=client.auth,
        timeout=TIMEOUT,
    )


def create_api(admin: ApiClient, *, urn: bool = False) -> Api:
    """An API with one scope; its audience an https URL (a resource indicator as RFC 8707
    §2 shows it) or, with ``urn``, a URN."""
    n = uuid.uuid4().hex[:10]
    name = f"res{n}"
    audience = f"urn:res:{n}" if urn else f"https://{name}.example/api"
    api = sent(admin.post("/admin/apis", json={"name": name, "audience": audience}), 201)
    scope = f"{name}:things:read"
    body = {"value": scope, "description": f"Read things of {name}"}
    sent(admin.post(f"/admin/apis/{api['id']}/scopes", json=body), 201)
    return Api(audience, scope)


def create_client(
    admin: ApiClient,
    *,
    grants: Sequence[str],
    scopes: Sequence[str],
    exchange_audiences: Sequence[str] = (),
) -> Client:
    body: dict[str, Any] = {
        "name": f"Resource test {uuid.uuid4().hex[:8]}",
        "type": "confidential",
        "grantTypes": list(grants),
        "redirectUris": [REDIRECT_URI] if "authorization_code" in grants else [],
    }
    if exchange_audiences:
        body["tokenExchangeAudiences"] = list(exchange_audiences)
    client = sent(admin.post("/admin/clients", json=body), 201)
    path = f"/admin/clients/{client['client_id']}/scopes"
    sent(admin.put(path, json={"scopes": list(scopes)}), 200)
    return Client(client["client_id"], client["client_secret"])


def code_flow(
    stack: Stack,
    client: Client,
    person: Any,
    scope: str,
    *,
    authorize_resource: str | None = None,
    token_resource: str | None = None,
    token_headers: dict[str, str] | None = None,
) -> tuple[OAuth2Client, dict[str, Any]]:
    """Authlib's code flow with PKCE; ``resource`` sent at authorize and/or at the token
    endpoint (Authlib passes extra parameters through), ``token_headers`` with the code's
    redemption (a DPoP proof). Returns the client and tokens."""
    metadata = httpx.get(stack.issuer + "/.well-known/openid-configuration").json()
    rp = OAuth2Client(
        client.client_id,
        client.secret,
        scope=scope,
        redirect_uri=REDIRECT_URI,
        code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic",
        timeout=TIMEOUT,
    )
    verifier = generate_token(48)
    extra = {"resource": authorize_resource} if authorize_resource else {}
    url, state = rp.create_authorization_url(
        metadata["authorization_endpoint"],
        code_verifier=verifier,
        nonce=generate_token(20),
        **extra,
    )
    callback = browser_sign_in(stack, url, person)
    extra = {"resource": token_resource} if token_resource else {}
    token = rp.fetch_token(
        metadata["token_endpoint"],
        authorization_response=callback,
        code_verifier=verifier,
        state=state,
        headers=None if token_headers is None else {**FORM_HEADERS, **token_headers},
        **extra,
    )
    return rp, dict(token)


@dataclass(frozen=True)
class ExchangeSetting:
    """Three APIs; a front end reaching all three; the orders API's own client, which holds
    the orders scope (so tokens for orders are its) and may exchange for billing; a person
    holding the three scopes."""

    orders: Api
    billing: Api
    other: Api
    front: Client
    orders_service: Client
    person: records.TestUser


def exchange_setting(stack: Stack, admin: ApiClient) -> ExchangeSetting:
    orders, billing, other = create_api(admin), create_api(admin, urn=True), create_api(admin)
    front = create_client(
        admin,
        grants=["authorization_code", "refresh_token"],
        scopes=["openid", orders.scope, billing.scope, other.scope],
    )
    orders_service = create_client(
        admin, grants=[EXCHANGE], scopes=[orders.scope], exchange_audiences=[billing.audience]
    )
    person = records.create_user(stack, scopes=(orders.scope, billing.scope, other.scope))
    return ExchangeSetting(orders, billing, other, front, orders_service, person)
