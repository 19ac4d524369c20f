"""DPoP (RFC 9449) by hand, through the proxy: the token endpoint, userinfo, ``/entity/*``
and ``/admin/*``, with proofs built by the client-side builder (``tests.harness.dpop``).

Every proof names the *public* URL (the issuer's origin and the path), as a client does;
the requests go to the proxy, which is that origin. The nonce cases run against a second
token service with ``SVC_DPOP_NONCE=true`` (called on its own port, with proofs still
naming the public URL: the service checks ``htu`` against the issuer, never ``Host``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from sqlalchemy import update

from idp_common.protocol.constants import SCOPE_IDP_ACCOUNT_READ, SCOPE_IDP_CLIENTS_READ
from idp_common.storage.db.models import Client
from tests.e2e.test_oidc_flow_authlib import sign_in
from tests.harness import infra, records
from tests.harness.dpop import DpopKey
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf

pytestmark = pytest.mark.integration

TOKEN = "/oauth2/token"
USERINFO = "/oauth2/userinfo"
PROFILE = "/entity/profile"
CLIENTS = "/admin/clients"


@pytest.fixture
def http(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.proxy_url, timeout=15) as client:
        yield client


def _require_dpop(stack: Stack, client: tf.AppClient) -> None:
    async def work(db: Any) -> None:
        await db.execute(
            update(Client).where(Client.id == client.pk).values(dpop_bound_access_tokens=True)
        )

    infra.run(tf._db(stack, work))


@pytest.fixture(scope="module")
def machine(stack: Stack) -> tf.AppClient:
    return tf.create_client(
        stack, scopes=[SCOPE_IDP_CLIENTS_READ], grant_types=["client_credentials"]
    )


@pytest.fixture(scope="module")
def app(stack: Stack) -> tf.AppClient:
    return tf.create_client(stack, scopes=[*tf.OIDC, SCOPE_IDP_ACCOUNT_READ])


@pytest.fixture(scope="module")
def spa(stack: Stack) -> tf.AppClient:
    return tf.create_client(stack, public=True, scopes=[*tf.OIDC, SCOPE_IDP_ACCOUNT_READ])


@pytest.fixture(scope="module")
def person(stack: Stack) -> tf.Person:
    return tf.create_person(stack, scopes=[SCOPE_IDP_ACCOUNT_READ])


@pytest.fixture
def key() -> DpopKey:
    return DpopKey.generate()


def url(stack: Stack, path: str) -> str:
    return stack.issuer + path


def machine_token(
    http: httpx.Client, stack: Stack, client: tf.AppClient, proof: str | None
) -> httpx.Response:
    headers = {**client.basic(), **({"DPoP": proof} if proof else {})}
    form = {"grant_type": "client_credentials", "scope": SCOPE_IDP_CLIENTS_READ}
    return http.post(TOKEN, data=form, headers=headers)


def person_tokens(
    http: httpx.Client, stack: Stack, client: tf.AppClient, person: tf.Person, key: DpopKey
) -> dict[str, Any]:
    """A code exchanged with a proof of ``key`` (PKCE for a public client)."""
    verifier, challenge = tf.pkce_pair()
    scope = f"openid profile offline_access {SCOPE_IDP_ACCOUNT_READ}"
    code = tf.create_code(stack, client, person, scope=scope, challenge=challenge)
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": tf.REDIRECT}
    form["code_verifier"] = verifier
    headers = {"DPoP": key.proof("POST", url(stack, TOKEN))}
    if client.secret:
        headers.update(client.basic())
    else:
        form["client_id"] = client.client_id
    response = http.post(TOKEN, data=form, headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["token_type"] == "DPoP"
    assert tf.unverified_claims(body["access_token"])["cnf"] == {"jkt": key.jkt}
    return body


def assert_oauth_error(response: httpx.Response, status: int, error: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"] == error, response.text


def assert_challenge(response: httpx.Response, error: str) -> None:
    assert response.status_code == 401, response.text
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith('DPoP algs="RS256 PS256 ES256 EdDSA"'), challenge
    assert f'error="{error}"' in challenge, challenge


# --- token endpoint ---------------------------------------------------------------------
def test_client_credentials_with_a_proof_is_bound_and_introspects_as_dpop(
    http: httpx.Client, stack: Stack, machine: tf.AppClient, key: DpopKey
) -> None:
    response = machine_token(http, stack, machine, key.proof("POST", url(stack, TOKEN)))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["token_type"] == "DPoP"
    assert tf.unverified_claims(body["access_token"])["cnf"] == {"jkt": key.jkt}
    assert "dpop-nonce" not in response.headers  # nonces are off by default
    seen = http.post(
        "/oauth2/introspect", data={"token": body["access_token"]}, headers=machine.basic()
    ).json()
    assert seen["active"] is True
    assert (seen["token_type"], seen["cnf"]) == ("DPoP", {"jkt": key.jkt})
    plain = machine_token(http, stack, machine, None).json()
    assert plain["token_type"] == "Bearer"
    assert "cnf" not in tf.unverified_claims(plain["access_token"])


def test_a_replayed_proof_is_refused(
    http: httpx.Client, stack: Stack, machine: tf.AppClient, key: DpopKey
) -> None:
    proof = key.proof("POST", url(stack, TOKEN))
    assert machine_token(http, stack, machine, proof).status_code == 200
    assert_oauth_error(machine_token(http, stack, machine, proof), 400, "invalid_dpop_proof")


@pytest.mark.parametrize(
    "proof_of",
    [
        pytest.param(lambda k, s: k.proof("GET", url(s, TOKEN)), id="another-method"),
        pytest.param(lambda k, s: k.proof("POST", url(s, USERINFO)), id="another-url"),
        pytest.param(lambda k, s: k.proof("POST", "https://elsewhere.example" + TOKEN), id="host"),
        pytest.param(
            lambda k, s: k.proof("POST", url(s, TOKEN), iat=int(time.time()) - 300), id="too-old"
        ),
        pytest.param(
            lambda k, s: k.proof("POST", url(s, TOKEN), iat=int(time.time()) + 300), id="future"
        ),
        pytest.param(lambda k, s: k.proof("POST", url(s, TOKEN), header={"typ": "JWT"}), id="typ"),
        pytest.param(lambda k, s: "not.a.proof", id="malformed"),
    ],
)
def test_a_proof_that_does_not_fit_the_request_is_refused(
    http: httpx.Client, stack: Stack, machine: tf.AppClient, key: DpopKey, proof_of: Any
) -> None:
    response = machine_token(http, stack, machine, proof_of(key, stack))
    assert_oauth_error(response, 400, "invalid_dpop_proof")


def test_two_dpop_headers_are_refused(
    http: httpx.Client, stack: Stack, machine: tf.AppClient, key: DpopKey
) -> None:
    headers = [
        *machine.basic().items(),
        ("DPoP", key.proof("POST", url(stack, TOKEN))),
        ("DPoP", key.proof("POST", url(stack, TOKEN))),
    ]
    form = {"grant_type": "client_credentials", "scope": SCOPE_IDP_CLIENTS_READ}
    response = http.post(TOKEN, data=form, headers=headers)
    assert_oauth_error(response, 400, "invalid_dpop_proof")


def test_a_client_requiring_dpop_needs_a_proof(
    http: httpx.Client, stack: Stack, key: DpopKey
) -> None:
    client = tf.create_client(
        stack, scopes=[SCOPE_IDP_CLIENTS_READ], grant_types=["client_credentials"]
    )
    _require_dpop(stack, client)
    response = machine_token(http, stack, client, None)
    assert_oauth_error(response, 400, "invalid_request")
    assert response.json()["error_description"] == "DPoP proof required"
    bound = machine_token(http, stack, client, key.proof("POST", url(stack, TOKEN)))
    assert bound.status_code == 200, bound.text
    assert bound.json()["token_type"] == "DPoP"


# --- refresh tokens ---------------------------------------------------------------------
def _refresh(
    http: httpx.Client, stack: Stack, client: tf.AppClient, token: str, proof: str | None
) -> httpx.Response:
    form = {"grant_type": "refresh_token", "refresh_token": token}
    headers = {"DPoP": proof} if proof else {}
    if client.secret:
        headers.update(client.basic())
    else:
        form["client_id"] = client.client_id
    return http.post(TOKEN, data=form, headers=headers)


def test_a_public_clients_refresh_token_is_bound_to_the_key(
    http: httpx.Client, stack: Stack, spa: tf.AppClient, person: tf.Person, key: DpopKey
) -> None:
    refresh_token = person_tokens(http, stack, spa, person, key)["refresh_token"]
    other = DpopKey.generate()
    for proof in (other.proof("POST", url(stack, TOKEN)), None):
        response = _refresh(http, stack, spa, refresh_token, proof)
        assert_oauth_error(response, 400, "invalid_grant")
    # the refusals took nothing: the right key still refreshes, and the successor is bound
    done = _refresh(http, stack, spa, refresh_token, key.proof("POST", url(stack, TOKEN)))
    assert done.status_code == 200, done.text
    assert done.json()["token_type"] == "DPoP"
    successor = done.json()["refresh_token"]
    response = _refresh(http, stack, spa, successor, other.proof("POST", url(stack, TOKEN)))
    assert_oauth_error(response, 400, "invalid_grant")
    again = _refresh(http, stack, spa, successor, key.proof("POST", url(stack, TOKEN)))
    assert again.status_code == 200, again.text


def test_a_confidential_clients_refresh_token_is_not_bound(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person, key: DpopKey
) -> None:
    refresh_token = person_tokens(http, stack, app, person, key)["refresh_token"]
    plain = _refresh(http, stack, app, refresh_token, None)
    assert plain.status_code == 200, plain.text
    assert plain.json()["token_type"] == "Bearer"
    other = DpopKey.generate()
    rebound = _refresh(
        http, stack, app, plain.json()["refresh_token"], other.proof("POST", url(stack, TOKEN))
    )
    assert rebound.status_code == 200, rebound.text
    claims = tf.unverified_claims(rebound.json()["access_token"])
    assert claims["cnf"] == {"jkt": other.jkt}


# --- dpop_jkt at the authorization endpoint (RFC 9449 §10) ------------------------------
def test_a_code_requested_with_dpop_jkt_needs_a_proof_of_that_key(
    http: httpx.Client, stack: Stack, spa: tf.AppClient, key: DpopKey
) -> None:
    person = records.create_user(stack)
    verifier, challenge = tf.pkce_pair()

    def authorize_url(dpop_jkt: str) -> str:
        query = {
            "response_type": "code",
            "client_id": spa.client_id,
            "redirect_uri": tf.REDIRECT,
            "scope": "openid offline_access",
            "state": "s1",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "dpop_jkt": dpop_jkt,
        }
        return f"/oauth2/authorize?{urlencode(query)}"

    def code_of(location: str) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}

    with httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=20) as browser:
        codes = [code_of(sign_in(browser, authorize_url(key.jkt), person))["code"]]
        for _ in range(2):  # signed in already: straight back with a code
            codes.append(code_of(browser.get(authorize_url(key.jkt)).headers["location"])["code"])
        malformed = code_of(browser.get(authorize_url("not-a-thumbprint")).headers["location"])
    assert malformed["error"] == "invalid_request"

    def exchange(code: str, proof: str | None) -> httpx.Response:
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": tf.REDIRECT}
        form |= {"code_verifier": verifier, "client_id": spa.client_id}
        return http.post(TOKEN, data=form, headers={"DPoP": proof} if proof else {})

    other = DpopKey.generate().proof("POST", url(stack, TOKEN))
    assert_oauth_error(exchange(codes[0], other), 400, "invalid_grant")
    assert_oauth_error(exchange(codes[1], None), 400, "invalid_grant")
    done = exchange(codes[2], key.proof("POST", url(stack, TOKEN)))
    assert done.status_code == 200, done.text
    assert tf.unverified_claims(done.json()["access_token"])["cnf"] == {"jkt": key.jkt}


# --- resources --------------------------------------------------------------------------
def _dpop_get(
    http: httpx.Client, stack: Stack, path: str, token: str, proof: str | None
) -> httpx.Response:
    headers = {"Authorization": f"DPoP {token}", **({"DPoP": proof} if proof else {})}
    return http.get(path, headers=headers)


@pytest.mark.parametrize("path", [USERINFO, PROFILE])
def test_a_bound_token_at_a_person_resource(
    http: httpx.Client,
    stack: Stack,
    app: tf.AppClient,
    person: tf.Person,
    key: DpopKey,
    path: str,
) -> None:
    token = person_tokens(http, stack, app, person, key)["access_token"]
    target = url(stack, path)
    proof = key.proof("GET", target, access_token=token)
    ok = _dpop_get(http, stack, path, token, proof)
    assert ok.status_code == 200, ok.text
    assert_challenge(_dpop_get(http, stack, path, token, proof), "invalid_dpop_proof")  # replay
    wrong_ath = key.proof("GET", target, access_token=token + "x")
    assert_challenge(_dpop_get(http, stack, path, token, wrong_ath), "invalid_dpop_proof")
    no_ath = key.proof("GET", target)
    assert_challenge(_dpop_get(http, stack, path, token, no_ath), "invalid_dpop_proof")
    other_url = key.proof("GET", url(stack, "/entity/sessions"), access_token=token)
    assert_challenge(_dpop_get(http, stack, path, token, other_url), "invalid_dpop_proof")
    post = key.proof("POST", target, access_token=token)
    assert_challenge(_dpop_get(http, stack, path, token, post), "invalid_dpop_proof")
    assert_challenge(_dpop_get(http, stack, path, token, None), "invalid_dpop_proof")
    thief = DpopKey.generate().proof("GET", target, access_token=token)
    assert_challenge(_dpop_get(http, stack, path, token, thief), "invalid_token")
    as_bearer = http.get(path, headers={"Authorization": f"Bearer {token}"})
    assert_challenge(as_bearer, "invalid_token")


def test_an_unbound_token_with_the_dpop_scheme_is_refused(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person, key: DpopKey
) -> None:
    code = tf.create_code(stack, app, person, scope="openid profile")
    response = http.post(
        TOKEN,
        data={"grant_type": "authorization_code", "code": code, "redirect_uri": tf.REDIRECT},
        headers=app.basic(),
    )
    token = response.json()["access_token"]
    proof = key.proof("GET", url(stack, USERINFO), access_token=token)
    assert_challenge(_dpop_get(http, stack, USERINFO, token, proof), "invalid_token")
    assert http.get(USERINFO, headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_a_bound_client_token_at_admin(
    http: httpx.Client, stack: Stack, machine: tf.AppClient, key: DpopKey
) -> None:
    token = machine_token(http, stack, machine, key.proof("POST", url(stack, TOKEN))).json()[
        "access_token"
    ]
    path = f"{CLIENTS}?limit=1"
    proof = key.proof("GET", url(stack, path), access_token=token)  # the query is ignored
    ok = _dpop_get(http, stack, path, token, proof)
    assert ok.status_code == 200, ok.text
    wrong_ath = key.proof("GET", url(stack, CLIENTS), access_token="another")
    refused = _dpop_get(http, stack, path, token, wrong_ath)
    assert_challenge(refused, "invalid_dpop_proof")
    assert refused.headers["content-type"].startswith("application/problem+json")
    as_bearer = http.get(path, headers={"Authorization": f"Bearer {token}"})
    assert_challenge(as_bearer, "invalid_token")
    anonymous = http.get(path).headers["www-authenticate"]  # both schemes offered
    assert anonymous == 'Bearer realm="idp", DPoP algs="RS256 PS256 ES256 EdDSA"'


# --- server nonces ----------------------------------------------------------------------
def test_nonces_when_configured(stack: Stack, machine: tf.AppClient, key: DpopKey) -> None:
    with (
        stack.extra_service("token", {"SVC_DPOP_NONCE": "true"}) as base,
        httpx.Client(
            base_url=base, timeout=15, headers={"X-Forwarded-For": tf.fresh_address()}
        ) as http,
    ):
        first = machine_token(http, stack, machine, key.proof("POST", url(stack, TOKEN)))
        assert_oauth_error(first, 400, "use_dpop_nonce")
        nonce = first.headers["dpop-nonce"]
        wrong = key.proof("POST", url(stack, TOKEN), nonce="not-the-nonce")
        assert_oauth_error(machine_token(http, stack, machine, wrong), 400, "use_dpop_nonce")
        proof = key.proof("POST", url(stack, TOKEN), nonce=nonce)
        done = machine_token(http, stack, machine, proof)
        assert done.status_code == 200, done.text
        assert done.json()["token_type"] == "DPoP"
        assert done.headers["dpop-nonce"] == nonce  # the same window: the same nonce


def test_nonces_at_userinfo_when_configured(
    stack: Stack, app: tf.AppClient, person: tf.Person, key: DpopKey
) -> None:
    with (
        stack.extra_service("token", {"SVC_DPOP_NONCE": "true"}) as base,
        httpx.Client(
            base_url=base, timeout=15, headers={"X-Forwarded-For": tf.fresh_address()}
        ) as http,
    ):
        code = tf.create_code(stack, app, person, scope="openid profile")
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": tf.REDIRECT}
        proof = key.proof("POST", url(stack, TOKEN))
        first = http.post(TOKEN, data=form, headers={**app.basic(), "DPoP": proof})
        assert_oauth_error(first, 400, "use_dpop_nonce")  # the code is not spent by it
        nonce_value = first.headers["dpop-nonce"]
        proof = key.proof("POST", url(stack, TOKEN), nonce=nonce_value)
        tokens = http.post(TOKEN, data=form, headers={**app.basic(), "DPoP": proof})
        assert tokens.status_code == 200, tokens.text
        token = tokens.json()["access_token"]
        target = url(stack, USERINFO)
        without = _dpop_get(
            http, stack, USERINFO, token, key.proof("GET", target, access_token=token)
        )
        assert_challenge(without, "use_dpop_nonce")
        assert without.headers["dpop-nonce"] == nonce_value
        proof = key.proof("GET", target, access_token=token, nonce=without.headers["dpop-nonce"])
        done = _dpop_get(http, stack, USERINFO, token, proof)
        assert done.status_code == 200, done.text


def test_a_replay_cache_that_cannot_be_reached_is_503(
    extra_processes: Stack, machine: tf.AppClient, key: DpopKey
) -> None:
    stack = extra_processes
    with httpx.Client(base_url=stack.proxy_url, timeout=15) as http:
        token = machine_token(http, stack, machine, key.proof("POST", url(stack, TOKEN))).json()[
            "access_token"
        ]
    dead = f"redis://127.0.0.1:{infra.closed_port()}/0"
    admin = stack.start_service("admin", {"SVC_REDIS_URL": dead})
    stack.wait_until_up(admin, "/health/live")
    with httpx.Client(base_url=admin.url, timeout=15) as http:
        proof = key.proof("GET", url(stack, CLIENTS), access_token=token)
        response = _dpop_get(http, stack, CLIENTS, token, proof)
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"]
