"""A FAPI 2.0 Security Profile client (``securityProfile: fapi2``) through the proxy.

The compliant flow passes with oauth4webapi: a pushed request (RFC 9126) authenticated with
private_key_jwt (RFC 7523), PKCE S256, the ``iss`` of the response (RFC 9207) checked, the
code redeemed with private_key_jwt and a DPoP proof (RFC 9449): a DPoP-bound access token.
Each rule then refuses the non-compliant request with the RFC's error code: no PAR, no or
plain PKCE, another response type, no redirect URI, client_secret_basic at PAR and at the
token endpoint (even with the secret the admin API issued), no DPoP proof.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import ECKey

from tests.e2e.test_oidc_flow_authlib import sign_in
from tests.harness import records, rows
from tests.harness.api import ApiClient
from tests.harness.pkce import pkce_challenge
from tests.harness.stack import Stack
from tests.interop.par_support import (
    SCOPE,
    App,
    assertion,
    new_key,
    private_jwk,
    push,
    pushed_uri,
    query_of,
    refused_json,
    register_app,
    request_params,
    signed_in_person,
    use,
)
from tests.interop.support import run_node

pytestmark = pytest.mark.e2e

#: FAPI 2.0 SP §5.3.2.1: at most 60 s; the provider gives the profile's clients 30.
FAPI2_CODE_SECONDS = 30


@pytest.fixture
def fapi(admin: ApiClient) -> App:
    return register_app(admin, key=new_key(), securityProfile="fapi2")


@pytest.fixture
def proxy_client(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=20) as client:
        yield client


def dpop_proof(
    stack: Stack, key: ECKey, *, method: str = "POST", path: str = "/oauth2/token"
) -> str:
    """An RFC 9449 §4.2 proof for one request to the issuer's ``path``."""
    header = {"typ": "dpop+jwt", "alg": "ES256", "jwk": key.as_dict(private=False)}
    claims = {
        "jti": secrets.token_urlsafe(16),
        "htm": method,
        "htu": stack.issuer + path,
        "iat": int(time.time()),
    }
    return jwt.encode(header, claims, key)


def code_for(stack: Stack, proxy: httpx.Client, app: App, verifier: str) -> str:
    """A code issued at once to a signed-in, consenting person, from a pushed request."""
    params = request_params(app, code_challenge=pkce_challenge(verifier))
    request_uri = pushed_uri(push(proxy, app, params, auth=assertion(stack, app)))
    _, cookie = signed_in_person(stack, app)
    issued = use(proxy, app.client_id, request_uri, headers=cookie)
    assert issued.status_code == 302, issued.text
    answer = query_of(issued.headers["location"])
    assert answer["iss"] == stack.issuer
    return answer["code"]


def code_expiry(stack: Stack, code: str) -> datetime:
    digest = hashlib.sha256(code.encode()).digest()
    found = rows.query(
        stack, "SELECT expires_at FROM authorization_codes WHERE code_digest = $1", digest
    )
    expires = found[0]["expires_at"]
    assert isinstance(expires, datetime)
    return expires


def test_the_compliant_flow_passes_with_oauth4webapi(stack: Stack, fapi: App) -> None:
    person = records.create_user(stack)
    config: dict[str, Any] = {
        "issuer": stack.issuer,
        "client_id": fapi.client_id,
        "redirect_uri": fapi.redirect_uri,
        "scope": SCOPE,
        "private_jwk": private_jwk(fapi),
        "dpop": True,
    }
    pushed = run_node("par.mjs", {"step": "push", **config})
    assert pushed["expires_in"] == 60
    with httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=20) as browser:
        before = time.time()
        callback = sign_in(browser, pushed["url"], person)
        after = time.time()
    code = query_of(callback)["code"]
    lifetime = code_expiry(stack, code).timestamp()
    assert before + FAPI2_CODE_SECONDS - 1 <= lifetime <= after + FAPI2_CODE_SECONDS + 1
    result = run_node(
        "par.mjs", {"step": "redeem", **config, **pushed["checks"], "callback": callback}
    )
    assert result["iss"] == stack.issuer
    assert result["token_type"].lower() == "dpop"  # oauth4webapi lowercases it
    assert result["access_token"]["claims"]["cnf"]["jkt"]
    assert result["access_token"]["claims"]["client_id"] == fapi.client_id
    assert result["id_token"]["claims"]["sub"] == person.id
    assert result["userinfo"]["sub"] == person.id


def test_an_authorization_request_that_was_not_pushed_is_refused(
    stack: Stack, fapi: App, proxy_client: httpx.Client
) -> None:
    params = request_params(fapi)
    response = proxy_client.get("/oauth2/authorize", params=params)
    assert response.status_code == 302, response.text
    assert response.headers["location"].startswith(fapi.redirect_uri + "?")
    answer = query_of(response.headers["location"])
    assert answer["error"] == "invalid_request"
    assert answer["state"] == params["state"]
    assert answer["iss"] == stack.issuer


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"code_challenge": None, "code_challenge_method": None}, "invalid_request"),
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge_method": None}, "invalid_request"),
        ({"response_type": "code id_token"}, "unsupported_response_type"),
        ({"redirect_uri": None}, "invalid_request"),
    ],
)
def test_a_pushed_request_breaking_a_rule_is_refused(
    stack: Stack,
    fapi: App,
    proxy_client: httpx.Client,
    changes: dict[str, str | None],
    error: str,
) -> None:
    params = request_params(fapi, **changes)
    refused_json(push(proxy_client, fapi, params, auth=assertion(stack, fapi)), 400, error)


def test_client_secret_basic_is_refused_at_par(fapi: App, proxy_client: httpx.Client) -> None:
    assert fapi.issued_secret is not None
    response = proxy_client.post(
        "/oauth2/par", data=request_params(fapi), auth=(fapi.client_id, fapi.issued_secret)
    )
    refused_json(response, 401, "invalid_client")


def test_a_client_assertion_must_name_only_the_issuer(
    stack: Stack, fapi: App, proxy_client: httpx.Client
) -> None:
    """FAPI 2.0 SP §5.3.2.1: the issuer, as a string, is the only ``aud`` accepted (an
    ordinary private_key_jwt client may also name the endpoint, RFC 7523 §3)."""
    params = request_params(fapi, code_challenge=pkce_challenge(secrets.token_urlsafe(48)))
    for audience in (stack.issuer + "/oauth2/par", stack.issuer + "/oauth2/token"):
        refused_json(
            push(proxy_client, fapi, params, auth=assertion(stack, fapi, audience)),
            401,
            "invalid_client",
        )
    assert push(proxy_client, fapi, params, auth=assertion(stack, fapi)).status_code == 201


def test_the_token_endpoint_needs_private_key_jwt_and_a_dpop_proof(
    stack: Stack, fapi: App, proxy_client: httpx.Client
) -> None:
    verifier = secrets.token_urlsafe(48)
    code = code_for(stack, proxy_client, fapi, verifier)
    grant = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": fapi.redirect_uri,
        "code_verifier": verifier,
    }
    assert fapi.issued_secret is not None
    basic = proxy_client.post(
        "/oauth2/token", data=grant, auth=(fapi.client_id, fapi.issued_secret)
    )
    refused_json(basic, 401, "invalid_client")
    posted = {**grant, "client_id": fapi.client_id, "client_secret": fapi.issued_secret}
    refused_json(proxy_client.post("/oauth2/token", data=posted), 401, "invalid_client")
    no_proof = proxy_client.post("/oauth2/token", data={**grant, **assertion(stack, fapi)})
    refused_json(no_proof, 400, "invalid_request")
    # None of the refusals spent the code: the compliant request gets DPoP-bound tokens.
    key = new_key()
    done = proxy_client.post(
        "/oauth2/token",
        data={**grant, **assertion(stack, fapi)},
        headers={"DPoP": dpop_proof(stack, key)},
    )
    assert done.status_code == 200, done.text
    assert done.json()["token_type"] == "DPoP"


def test_a_code_lives_at_most_30_seconds(
    stack: Stack, fapi: App, proxy_client: httpx.Client
) -> None:
    before = time.time()
    code = code_for(stack, proxy_client, fapi, secrets.token_urlsafe(48))
    after = time.time()
    expires = code_expiry(stack, code).timestamp()
    assert before + FAPI2_CODE_SECONDS - 1 <= expires <= after + FAPI2_CODE_SECONDS + 1


def test_an_ordinary_client_keeps_60_second_codes(
    stack: Stack, admin: ApiClient, proxy_client: httpx.Client
) -> None:
    app = register_app(admin)
    before = time.time()
    request_uri = pushed_uri(push(proxy_client, app, request_params(app)))
    _, cookie = signed_in_person(stack, app)
    code = query_of(
        use(proxy_client, app.client_id, request_uri, headers=cookie).headers["location"]
    )["code"]
    assert code_expiry(stack, code).timestamp() >= before + 59
