"""What every relying party of the interop tests shares: the registration made for one
signing algorithm, the sign-in, the Node runner and the checks of what a library reports.

**Registration.** An API (with one scope) and a confidential client are created through the
administration API at the proxy, for one algorithm: ``accessTokenSigningAlg`` on the API,
``id_token_signed_response_alg`` and ``userinfo_signed_response_alg`` (OIDC Registration
§2) on the client. RS256 is the provider's default, so its case registers no algorithm at
all: the RS256 tokens prove that the default is RS256, and a client with no
``userinfo_signed_response_alg`` gets plain JSON from userinfo (OIDC Core §5.3.2). Every
other algorithm asks for signed userinfo. The person holds the API's scope.

**Result.** Each relying party, Python or Node, reports the same JSON object (the
``RESULT`` shape below) built from what its library returned *after* the library verified
it; :func:`assert_result` checks it against the registration, the same way for all five.

    {"discovery": {metadata members},
     "nonce": the nonce the library sent and checked,
     "id_token": {"header", "claims"}, "access_token": {"header", "claims"},
     "userinfo": {"header" (null for JSON), "claims"},
     "refresh": {"spent": the refresh token used, "refresh_token",
                 "access_token": {"header", "claims"}, "id_token": {...} or null},
     "client_credentials": {"access_token": {"header", "claims"}}}
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.test_oidc_flow_authlib import sign_in
from tests.harness import records
from tests.harness.api import ApiClient
from tests.harness.stack import Stack

#: The algorithms of issue 24 item 4; every library here verifies all four.
ALGORITHMS = ("RS256", "PS256", "ES256", "EdDSA")
DEFAULT_ALG = "RS256"
OIDC_SCOPE = "openid profile email offline_access"
ACCESS_TOKEN_TYP = "at+jwt"  # RFC 9068 §2.1
NODE_DIR = Path(__file__).resolve().parent / "node"
NODE_TIMEOUT = 60


@dataclass(frozen=True)
class Registration:
    """An API and a client registered for ``alg``, and a person who may use both."""

    issuer: str
    alg: str
    client_id: str
    client_secret: str
    redirect_uri: str
    api_audience: str
    api_scope: str
    person: records.TestUser

    @property
    def scope(self) -> str:
        return f"{OIDC_SCOPE} {self.api_scope}"

    @property
    def userinfo_alg(self) -> str | None:
        """The ``userinfo_signed_response_alg`` registered (None: userinfo answers JSON)."""
        return None if self.alg == DEFAULT_ALG else self.alg

    def rp_input(self) -> dict[str, Any]:
        """What a relying party is configured with (the Node scripts' JSON input)."""
        return {
            "issuer": self.issuer,
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "redirect_uri": self.redirect_uri,
            "scope": self.scope,
            "alg": self.alg,
            "userinfo_alg": self.userinfo_alg,
            "api_audience": self.api_audience,
            "api_scope": self.api_scope,
        }


def api_fields(alg: str) -> dict[str, str]:
    """The members of ``POST /admin/apis`` that choose the access-token algorithm."""
    return {} if alg == DEFAULT_ALG else {"accessTokenSigningAlg": alg}


def client_fields(alg: str) -> dict[str, str]:
    """The members of ``POST /admin/clients`` that choose the ID token's and userinfo's."""
    if alg == DEFAULT_ALG:
        return {}
    return {"id_token_signed_response_alg": alg, "userinfo_signed_response_alg": alg}


def _sent(response: httpx.Response, status: int) -> dict[str, Any]:
    request = response.request
    assert response.status_code == status, f"{request.method} {request.url}: {response.text}"
    body: dict[str, Any] = response.json()
    return body


def register(stack: Stack, admin: ApiClient, alg: str) -> Registration:
    """The API, its scope, the client (code, refresh and client_credentials grants) and
    the person, through the administration API at the proxy (the person: in the database)."""
    n = uuid.uuid4().hex[:10]
    name, audience = f"interop{n}", f"urn:interop:{n}"
    api = _sent(
        admin.post("/admin/apis", json={"name": name, "audience": audience, **api_fields(alg)}), 201
    )
    api_scope = f"{name}:orders:read"
    scope_body = {"value": api_scope, "description": "Read your orders"}
    _sent(admin.post(f"/admin/apis/{api['id']}/scopes", json=scope_body), 201)
    redirect_uri = "http://127.0.0.1:9/callback"  # never fetched: the browser stops there
    client = _sent(
        admin.post(
            "/admin/clients",
            json={
                "name": f"Interop {alg} {n}",
                "type": "confidential",
                "redirectUris": [redirect_uri],
                "postLogoutRedirectUris": [],
                "grantTypes": ["authorization_code", "refresh_token", "client_credentials"],
                **client_fields(alg),
            },
        ),
        201,
    )
    scopes = [*OIDC_SCOPE.split(), api_scope]
    _sent(admin.put(f"/admin/clients/{client['client_id']}/scopes", json={"scopes": scopes}), 200)
    person = records.create_user(stack, scopes=(api_scope,))
    return Registration(
        issuer=stack.issuer,
        alg=alg,
        client_id=client["client_id"],
        client_secret=client["client_secret"],
        redirect_uri=redirect_uri,
        api_audience=audience,
        api_scope=api_scope,
        person=person,
    )


def browser_sign_in(stack: Stack, authorize_url: str, person: records.TestUser) -> str:
    """The person signs in (password, consent) at the URL the library built; returns the
    redirect URI with the code that the browser would load."""
    with httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=20) as browser:
        return sign_in(browser, authorize_url, person)


# --- Node relying parties -------------------------------------------------------------------
def run_node(script: str, payload: dict[str, Any]) -> dict[str, Any]:
    """``node node/<script>`` with ``payload`` as JSON on stdin; its JSON on stdout. A
    failing script fails the test with its stderr (the library's error and its cause)."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH (scripts/test.sh installs it)", pytrace=False)
    if not (NODE_DIR / "node_modules").is_dir():
        pytest.fail(
            f"{NODE_DIR}/node_modules is missing: run `npm ci` there (scripts/test.sh does)",
            pytrace=False,
        )
    done = subprocess.run(
        [node, str(NODE_DIR / script)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT,
        cwd=NODE_DIR,
        check=False,
    )
    if done.returncode != 0:
        step = payload.get("step")
        pytest.fail(f"{script} {step}: exit {done.returncode}\n{done.stderr}", pytrace=False)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def node_flow(stack: Stack, script: str, registration: Registration) -> dict[str, Any]:
    """The Node library builds the authorization URL, the browser signs in, the library
    redeems the code and does the rest (see the scripts' ``redeem``)."""
    config = registration.rp_input()
    started = run_node(script, {"step": "authorize", **config})
    callback = browser_sign_in(stack, started["url"], registration.person)
    return run_node(script, {"step": "redeem", **config, **started["checks"], "callback": callback})


# --- checks -----------------------------------------------------------------------------
def _audiences(claims: dict[str, Any]) -> list[Any]:
    aud = claims["aud"]
    return aud if isinstance(aud, list) else [aud]


def assert_signed(token: dict[str, Any], alg: str, what: str) -> dict[str, Any]:
    """The header the library verified names ``alg`` and a key; returns the claims."""
    header = token["header"]
    assert header["alg"] == alg, f"{what}: {header}"
    assert header.get("kid"), f"{what}: {header}"
    claims: dict[str, Any] = token["claims"]
    assert claims["exp"] > time.time(), f"{what}: {claims}"
    return claims


def assert_access_token(
    token: dict[str, Any], registration: Registration, *, subject: str, what: str
) -> None:
    """RFC 9068 §2: ``typ`` at+jwt, the API among the audiences, iss, sub, client_id."""
    claims = assert_signed(token, registration.alg, what)
    assert token["header"].get("typ") == ACCESS_TOKEN_TYP, f"{what}: {token['header']}"
    assert claims["iss"] == registration.issuer, f"{what}: {claims}"
    assert registration.api_audience in _audiences(claims), f"{what}: {claims}"
    assert claims["sub"] == subject, f"{what}: {claims}"
    assert claims["client_id"] == registration.client_id, f"{what}: {claims}"
    assert registration.api_scope in claims["scope"].split(), f"{what}: {claims}"
    assert claims["jti"], f"{what}: {claims}"


def assert_id_token(token: dict[str, Any], registration: Registration, what: str) -> None:
    claims = assert_signed(token, registration.alg, what)
    assert claims["iss"] == registration.issuer, f"{what}: {claims}"
    assert registration.client_id in _audiences(claims), f"{what}: {claims}"
    assert claims["sub"] == registration.person.id, f"{what}: {claims}"


def assert_result(result: dict[str, Any], registration: Registration) -> None:
    """What a library reported, checked the same way for every library and algorithm."""
    alg, person = registration.alg, registration.person
    discovery = result["discovery"]
    assert discovery["issuer"] == registration.issuer
    assert alg in discovery["id_token_signing_alg_values_supported"], discovery
    if registration.userinfo_alg is not None:
        assert alg in discovery["userinfo_signing_alg_values_supported"], discovery

    assert_id_token(result["id_token"], registration, "ID token")
    assert result["id_token"]["claims"]["nonce"] == result["nonce"]
    assert_access_token(result["access_token"], registration, subject=person.id, what="access")

    userinfo = result["userinfo"]
    assert userinfo["claims"]["sub"] == person.id, userinfo
    assert userinfo["claims"]["email"] == person.email, userinfo
    if registration.userinfo_alg is None:
        assert userinfo["header"] is None, "userinfo: JSON expected, got a JWT"
    else:  # OIDC Core §5.3.2: signed, with iss and aud (exp is optional there)
        assert userinfo["header"]["alg"] == alg, userinfo["header"]
        assert userinfo["header"].get("kid"), userinfo["header"]
        assert userinfo["claims"]["iss"] == registration.issuer, userinfo
        assert registration.client_id in _audiences(userinfo["claims"]), userinfo

    refresh = result["refresh"]
    assert refresh["refresh_token"] != refresh["spent"], "the refresh token did not rotate"
    assert refresh["access_token"]["claims"]["jti"] != result["access_token"]["claims"]["jti"]
    assert_access_token(refresh["access_token"], registration, subject=person.id, what="refreshed")
    if refresh.get("id_token") is not None:
        assert_id_token(refresh["id_token"], registration, "refreshed ID token")

    machine = result["client_credentials"]["access_token"]
    assert_access_token(machine, registration, subject=registration.client_id, what="machine")
    assert _audiences(machine["claims"]) == [registration.api_audience], machine["claims"]


def assert_spent_refresh_refused(registration: Registration, spent: str) -> None:
    """Rotation (RFC 9700 §4.14.2): the refresh token the library used is refused now."""
    reuse = httpx.post(
        f"{registration.issuer}/oauth2/token",
        auth=(registration.client_id, registration.client_secret),
        data={"grant_type": "refresh_token", "refresh_token": spent},
        timeout=20,
    )
    assert reuse.status_code == 400, reuse.text
    assert reuse.json()["error"] == "invalid_grant"
