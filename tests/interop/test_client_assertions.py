"""Client authentication by JWT assertion (RFC 7523 §2.2, OIDC Core §9; issue #25), end to
end: clients registered through the administration API at the proxy, assertions made by
real client libraries (Authlib's ``PrivateKeyJWT`` / ``ClientSecretJWT``, oauth4webapi's
``PrivateKeyJwt`` / ``ClientSecretJwt``), then the hand-made refusals: a replay, a wrong
``aud``, an expired assertion, ``alg: none``, another key, a secret where an assertion is
due, an assertion naming another client, two methods at once.

The libraries go through the proxy (the issuer); the hand-made requests go straight to the
token service, each test from an address of its own (``X-Forwarded-For``, trusted from
127.0.0.1), so that the per-address limit never mixes them. The accepted audiences are
built on the issuer either way.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from authlib.integrations.httpx_client import OAuth2Client
from authlib.oauth2.rfc7523 import ClientSecretJWT, PrivateKeyJWT
from joserfc.jwk import Key

from tests.harness import infra, records
from tests.harness.api import ApiClient
from tests.harness.client_assertions import (
    assertion_form,
    claims,
    new_key,
    public_jwks,
    secret_assertion,
    sign,
    sign_assertion,
)
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.interop.support import run_node

pytestmark = [pytest.mark.integration, pytest.mark.e2e]

CC = "client_credentials"


@dataclass
class Machine:
    client_id: str
    scope: str
    audience: str
    secret: str | None = None
    keys: list[Key] = field(default_factory=list)


def _ok(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, f"{response.request.url}: {response.text}"
    body: dict[str, Any] = response.json() if response.content else {}
    return body


def register(admin: ApiClient, method: str, **fields: Any) -> Machine:
    """An API with one scope and a confidential client_credentials client of ``method``."""
    n = uuid.uuid4().hex[:10]
    name, audience = f"assert{n}", f"urn:assert:{n}"
    api = _ok(admin.post("/admin/apis", json={"name": name, "audience": audience}), 201)
    scope = f"{name}:jobs:run"
    scope_body = {"value": scope, "description": "Run jobs"}
    _ok(admin.post(f"/admin/apis/{api['id']}/scopes", json=scope_body), 201)
    body = {
        "name": f"Assertion {method} {n}",
        "type": "confidential",
        "grantTypes": [CC],
        "token_endpoint_auth_method": method,
        **fields,
    }
    client = _ok(admin.post("/admin/clients", json=body), 201)
    _ok(admin.put(f"/admin/clients/{client['client_id']}/scopes", json={"scopes": [scope]}), 200)
    return Machine(client["client_id"], scope, audience, secret=client.get("client_secret"))


def key_client(admin: ApiClient, *algs: str) -> Machine:
    keys = [new_key(alg) for alg in algs]
    machine = register(admin, "private_key_jwt", jwks=public_jwks(*keys))
    machine.keys = keys
    return machine


@pytest.fixture(scope="module")
def rsa_machine(admin: ApiClient) -> Machine:
    return key_client(admin, "RS256", "ES256")


@pytest.fixture
def direct(stack: Stack) -> Iterator[httpx.Client]:
    yield from tf.token_http(stack)


def token_url(stack: Stack) -> str:
    return f"{stack.issuer}/oauth2/token"


def authlib_client(stack: Stack, machine: Machine, auth: Any, secret: Any) -> OAuth2Client:
    client = OAuth2Client(
        machine.client_id, secret, token_endpoint_auth_method=auth.name, timeout=20
    )
    client.register_client_auth_method(auth)
    return client


def assert_machine_token(body: dict[str, Any], machine: Machine) -> None:
    claims_ = tf.unverified_claims(body["access_token"])
    assert claims_["sub"] == machine.client_id and claims_["client_id"] == machine.client_id
    assert machine.scope in claims_["scope"].split()
    assert claims_["aud"] in (machine.audience, [machine.audience])


# --- real client libraries -------------------------------------------------------------
@pytest.mark.parametrize("index", [0, 1], ids=["RS256", "ES256"])
def test_authlib_private_key_jwt(stack: Stack, rsa_machine: Machine, index: int) -> None:
    key = rsa_machine.keys[index]
    auth = PrivateKeyJWT(token_url(stack), alg=key.get("alg"), headers={"kid": key.kid})
    with authlib_client(stack, rsa_machine, auth, key) as client:
        token = client.fetch_token(token_url(stack), grant_type=CC, scope=rsa_machine.scope)
        assert_machine_token(dict(token), rsa_machine)
        # Introspection (RFC 7662) with a fresh assertion addressed to its own URL.
        introspect_url = f"{stack.issuer}/oauth2/introspect"
        client.register_client_auth_method(
            PrivateKeyJWT(introspect_url, alg=key.get("alg"), headers={"kid": key.kid})
        )
        answer = client.introspect_token(introspect_url, token["access_token"])
        assert answer.status_code == 200, answer.text
        assert answer.json()["active"] is True
        assert answer.json()["client_id"] == rsa_machine.client_id


def test_oauth4webapi_private_key_jwt(stack: Stack, admin: ApiClient) -> None:
    machine = key_client(admin, "ES256")
    (key,) = machine.keys
    jwk = dict(key.as_dict(private=True))
    payload = {"step": CC, "issuer": stack.issuer, "client_id": machine.client_id}
    result = run_node("private_key_jwt.mjs", {**payload, "scope": machine.scope, "jwk": jwk})
    assert_machine_token(result["token"], machine)
    assert result["introspection"]["active"] is True
    assert "private_key_jwt" in result["auth_methods"]


def test_oauth4webapi_private_key_jwt_rs256(stack: Stack, rsa_machine: Machine) -> None:
    jwk = dict(rsa_machine.keys[0].as_dict(private=True))
    payload = {"step": CC, "issuer": stack.issuer, "client_id": rsa_machine.client_id}
    result = run_node("private_key_jwt.mjs", {**payload, "scope": rsa_machine.scope, "jwk": jwk})
    assert_machine_token(result["token"], rsa_machine)


def test_client_secret_jwt_with_authlib_and_oauth4webapi(stack: Stack, admin: ApiClient) -> None:
    machine = register(admin, "client_secret_jwt")
    assert machine.secret
    auth = ClientSecretJWT(token_url(stack))
    with authlib_client(stack, machine, auth, machine.secret) as client:
        token = client.fetch_token(token_url(stack), grant_type=CC, scope=machine.scope)
    assert_machine_token(dict(token), machine)
    payload = {"step": CC, "issuer": stack.issuer, "client_id": machine.client_id}
    payload |= {"scope": machine.scope, "client_secret": machine.secret}
    result = run_node("private_key_jwt.mjs", payload)
    assert_machine_token(result["token"], machine)


# --- jwks_uri ----------------------------------------------------------------------------
class _JwksServer:
    """A client's ``jwks_uri`` on 127.0.0.1, counting the GETs it answers."""

    def __init__(self, jwks: dict[str, Any]) -> None:
        self.jwks = jwks
        self.hits = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.hits += 1
                body = json.dumps(owner.jwks).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/jwks.json"

    def __enter__(self) -> _JwksServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_jwks_uri_fetched_cached_and_refetched_on_a_new_kid(
    stack: Stack, admin: ApiClient, direct: httpx.Client
) -> None:
    first, second = new_key("RS256"), new_key("PS256")
    with _JwksServer(public_jwks(first)) as served:
        machine = register(admin, "private_key_jwt", jwks_uri=served.url)
        auth = PrivateKeyJWT(token_url(stack), headers={"kid": first.kid})
        with authlib_client(stack, machine, auth, first) as client:
            for _ in range(2):
                token = client.fetch_token(token_url(stack), grant_type=CC, scope=machine.scope)
                assert_machine_token(dict(token), machine)
        assert served.hits == 1  # kept, not fetched per request

        served.jwks = public_jwks(first, second)  # the client rotates: a new kid appears
        started = time.monotonic()
        assertion = sign_assertion(second, machine.client_id, stack.issuer)
        refused = direct.post("/oauth2/token", data={"grant_type": CC, **assertion_form(assertion)})
        # fetched within the last 10 s: not again (at most one refetch per client per 10 s)
        assert _ok(refused, 401)["error"] == "invalid_client"
        assert served.hits == 1
        time.sleep(max(0.0, 10.5 - (time.monotonic() - started)))
        assertion = sign_assertion(second, machine.client_id, stack.issuer)
        accepted = direct.post(
            "/oauth2/token", data={"grant_type": CC, **assertion_form(assertion)}
        )
        assert_machine_token(_ok(accepted, 200), machine)
        assert served.hits == 2


# --- hand-made refusals ------------------------------------------------------------------
def _token(direct: httpx.Client, form: dict[str, str], **kwargs: Any) -> httpx.Response:
    return direct.post("/oauth2/token", data={"grant_type": CC, **form}, **kwargs)


def _refused(response: httpx.Response, status: int, error: str) -> str:
    body = _ok(response, status)
    assert body["error"] == error, body
    return str(body.get("error_description", ""))


def test_replayed_assertion_refused(
    stack: Stack, rsa_machine: Machine, direct: httpx.Client
) -> None:
    assertion = sign_assertion(rsa_machine.keys[0], rsa_machine.client_id, token_url(stack))
    _ok(_token(direct, assertion_form(assertion)), 200)
    again = _refused(_token(direct, assertion_form(assertion)), 401, "invalid_client")
    assert "already used" in again


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({"aud": "https://elsewhere.example/oauth2/token"}, id="wrong-aud"),
        pytest.param({"exp": int(time.time()) - 120, "iat": None}, id="expired"),
        pytest.param({"iat": int(time.time()) - 400}, id="iat-too-old"),
        pytest.param({"jti": None}, id="no-jti"),
        pytest.param({"iss": "someone-else"}, id="wrong-iss"),
    ],
)
def test_bad_claims_refused(
    stack: Stack, rsa_machine: Machine, direct: httpx.Client, overrides: dict[str, Any]
) -> None:
    assertion = sign_assertion(
        rsa_machine.keys[0], rsa_machine.client_id, token_url(stack), **overrides
    )
    _refused(_token(direct, assertion_form(assertion)), 401, "invalid_client")


def test_alg_none_refused(stack: Stack, rsa_machine: Machine, direct: httpx.Client) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        unsigned = sign(claims(rsa_machine.client_id, token_url(stack)), None, {"alg": "none"})
    for assertion in (unsigned, unsigned + "c2ln"):
        _refused(_token(direct, assertion_form(assertion)), 401, "invalid_client")


def test_signed_by_another_key_refused(
    stack: Stack, rsa_machine: Machine, direct: httpx.Client
) -> None:
    impostor = new_key("RS256", kid=rsa_machine.keys[0].kid)  # the registered kid, not the key
    assertion = sign_assertion(impostor, rsa_machine.client_id, token_url(stack))
    description = _refused(_token(direct, assertion_form(assertion)), 401, "invalid_client")
    assert "signature" in description


def test_hs256_with_the_public_key_refused(
    stack: Stack, rsa_machine: Machine, direct: httpx.Client
) -> None:
    """The algorithm-confusion attack: an HS256 assertion keyed with the public JWK."""
    public = json.dumps(public_jwks(rsa_machine.keys[0])["keys"][0])
    assertion = secret_assertion(public, rsa_machine.client_id, token_url(stack))
    description = _refused(_token(direct, assertion_form(assertion)), 401, "invalid_client")
    assert "RS256" in description


def test_secret_refused_for_an_assertion_client(
    stack: Stack, admin: ApiClient, direct: httpx.Client
) -> None:
    machine = register(admin, "client_secret_jwt")
    assert machine.secret
    basic = direct.post(
        "/oauth2/token", data={"grant_type": CC}, auth=(machine.client_id, machine.secret)
    )
    assert "client assertion" in _refused(basic, 401, "invalid_client")
    post = {"grant_type": CC, "client_id": machine.client_id, "client_secret": machine.secret}
    assert "client assertion" in _refused(
        direct.post("/oauth2/token", data=post), 401, "invalid_client"
    )


def test_private_key_jwt_client_cannot_use_basic(
    rsa_machine: Machine, direct: httpx.Client
) -> None:
    response = direct.post(
        "/oauth2/token", data={"grant_type": CC}, auth=(rsa_machine.client_id, "guess")
    )
    _refused(response, 401, "invalid_client")


def test_assertion_for_another_client_id_refused(
    stack: Stack, rsa_machine: Machine, admin: ApiClient, direct: httpx.Client
) -> None:
    other = key_client(admin, "ES256")
    assertion = sign_assertion(rsa_machine.keys[0], rsa_machine.client_id, token_url(stack))
    form = assertion_form(assertion, client_id=other.client_id)
    assert "sub" in _refused(_token(direct, form), 400, "invalid_request")
    # An assertion naming client B signed with client A's key: B's keys do not verify it.
    forged = sign_assertion(rsa_machine.keys[0], other.client_id, token_url(stack))
    _refused(_token(direct, assertion_form(forged)), 401, "invalid_client")


def test_assertion_for_a_secret_client_refused(
    stack: Stack, admin: ApiClient, direct: httpx.Client
) -> None:
    plain = register(admin, "client_secret_basic")
    assert plain.secret
    assertion = secret_assertion(plain.secret, plain.client_id, token_url(stack))
    description = _refused(_token(direct, assertion_form(assertion)), 401, "invalid_client")
    assert "client_secret_basic" in description
    # today's behaviour stands: Basic and post both work
    _ok(
        direct.post("/oauth2/token", data={"grant_type": CC}, auth=(plain.client_id, plain.secret)),
        200,
    )
    post = {"grant_type": CC, "client_id": plain.client_id, "client_secret": plain.secret}
    _ok(direct.post("/oauth2/token", data=post), 200)


def test_two_methods_at_once_refused(
    stack: Stack, rsa_machine: Machine, direct: httpx.Client
) -> None:
    assertion = sign_assertion(rsa_machine.keys[0], rsa_machine.client_id, token_url(stack))
    with_basic = _token(direct, assertion_form(assertion), auth=(rsa_machine.client_id, "x"))
    _refused(with_basic, 400, "invalid_request")
    with_secret = {**assertion_form(assertion), "client_secret": "x"}
    _refused(_token(direct, with_secret), 400, "invalid_request")
    wrong_type = {**assertion_form(assertion), "client_assertion_type": "urn:other"}
    _refused(_token(direct, wrong_type), 400, "invalid_request")


def test_introspection_and_revocation_with_private_key_jwt(
    stack: Stack, rsa_machine: Machine, direct: httpx.Client
) -> None:
    key = rsa_machine.keys[1]
    issued = _token(
        direct, assertion_form(sign_assertion(key, rsa_machine.client_id, stack.issuer))
    )
    access = _ok(issued, 200)["access_token"]
    for path in ("/oauth2/introspect", "/oauth2/revoke"):
        url = stack.issuer + path
        assertion = sign_assertion(key, rsa_machine.client_id, url)
        answer = direct.post(path, data={"token": access, **assertion_form(assertion)})
        _ok(answer, 200)
        # ...and an assertion addressed to the other endpoint is refused here
        other = "/oauth2/revoke" if path == "/oauth2/introspect" else "/oauth2/introspect"
        misdirected = sign_assertion(key, rsa_machine.client_id, stack.issuer + other)
        refused = direct.post(path, data={"token": access, **assertion_form(misdirected)})
        _refused(refused, 401, "invalid_client")
    final = sign_assertion(key, rsa_machine.client_id, stack.issuer)
    after = direct.post("/oauth2/introspect", data={"token": access, **assertion_form(final)})
    assert _ok(after, 200) == {"active": False}


def test_patched_to_client_secret_jwt_needs_a_rotation(
    stack: Stack, admin: ApiClient, direct: httpx.Client
) -> None:
    machine = register(admin, "client_secret_basic")
    assert machine.secret
    patched = admin.patch(
        f"/admin/clients/{machine.client_id}",
        json={"token_endpoint_auth_method": "client_secret_jwt"},
    )
    _ok(patched, 200)
    time.sleep(0.1)
    assertion = secret_assertion(machine.secret, machine.client_id, token_url(stack))
    description = _refused(_token(direct, assertion_form(assertion)), 401, "invalid_client")
    assert "rotate" in description
    rotated = _ok(admin.post(f"/admin/clients/{machine.client_id}/rotate-secret"), 200)
    assertion = secret_assertion(rotated["client_secret"], machine.client_id, token_url(stack))
    assert_machine_token(_ok(_token(direct, assertion_form(assertion)), 200), machine)


def test_failures_are_audited_without_the_assertion(
    stack: Stack, rsa_machine: Machine, direct: httpx.Client
) -> None:
    assertion = sign_assertion(rsa_machine.keys[0], rsa_machine.client_id, "urn:not-us")
    _refused(_token(direct, assertion_form(assertion)), 401, "invalid_client")
    rows = records.query(
        stack,
        "SELECT detail FROM audit_events WHERE action = 'token.client_auth_failed' "
        "AND actor = $1 ORDER BY id",
        rsa_machine.client_id,
    )
    assert rows, "no audit row"
    detail = json.loads(str(rows[-1]["detail"]))
    assert detail["method"] == "private_key_jwt"
    assert "aud" in detail["reason"]
    assert assertion not in json.dumps(rows, default=str)


def test_replay_cache_unreachable_is_503(extra_processes: Stack, rsa_machine: Machine) -> None:
    """The jti cannot be spent: 503 with Retry-After, never an accepted assertion (the
    per-address limit fails open and the client is read from PostgreSQL, so Redis is
    first needed for the jti)."""
    stack = extra_processes
    dead = f"redis://127.0.0.1:{infra.closed_port()}/0"
    token = stack.start_service("token", {"SVC_REDIS_URL": dead})
    stack.wait_until_up(token, "/health/live")
    assertion = sign_assertion(rsa_machine.keys[0], rsa_machine.client_id, token_url(stack))
    with httpx.Client(base_url=token.url, timeout=15) as http:
        response = http.post("/oauth2/token", data={"grant_type": CC, **assertion_form(assertion)})
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"]
    assert response.json()["error"] == "temporarily_unavailable"


def test_jwks_uri_on_a_private_address_not_fetched_unless_allowed(
    extra_processes: Stack, admin: ApiClient
) -> None:
    """SVC_CLIENT_JWKS_ALLOW_PRIVATE off: the token service resolves the host, finds a
    loopback address and never connects (the admin API, allowed here, stored the URI)."""
    stack = extra_processes
    key = new_key("ES256")
    with _JwksServer(public_jwks(key)) as served:
        machine = register(
            admin, "private_key_jwt", jwks_uri=served.url.replace("127.0.0.1", "localhost")
        )
        token = stack.start_service("token", {"SVC_CLIENT_JWKS_ALLOW_PRIVATE": "false"})
        stack.wait_until_up(token, "/health/live")
        assertion = sign_assertion(key, machine.client_id, token_url(stack))
        with httpx.Client(base_url=token.url, timeout=15) as http:
            response = http.post(
                "/oauth2/token", data={"grant_type": CC, **assertion_form(assertion)}
            )
        assert "forbidden address" in _refused(response, 401, "invalid_client")
        assert served.hits == 0


def test_jwks_uri_answer_over_64_kb_refused(
    stack: Stack, admin: ApiClient, direct: httpx.Client
) -> None:
    key = new_key("ES256")
    with _JwksServer({**public_jwks(key), "padding": "x" * 70_000}) as served:
        machine = register(admin, "private_key_jwt", jwks_uri=served.url)
        assertion = sign_assertion(key, machine.client_id, token_url(stack))
        assert "64 KB" in _refused(_token(direct, assertion_form(assertion)), 401, "invalid_client")
        assert served.hits == 1
