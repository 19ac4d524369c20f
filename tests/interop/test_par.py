"""Pushed authorization requests (RFC 9126) through the proxy.

oauth4webapi pushes the request with client_secret_basic, the browser signs in from the
``request_uri`` URL, and the library redeems the code (checking ``iss``, RFC 9207). Then the
refusals, hand-built: a ``request_uri`` used twice, another client's, expired; a push that
is not a valid authorization request; a client that must push and does not.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.test_oidc_flow_authlib import sign_in
from tests.harness import records, rows
from tests.harness.api import ApiClient
from tests.harness.stack import Stack
from tests.integration.token_fixtures import fresh_address
from tests.interop.par_support import (
    SCOPE,
    App,
    push,
    pushed_uri,
    query_of,
    refused_json,
    refused_page,
    register_app,
    request_params,
    signed_in_person,
    use,
)
from tests.interop.support import DEFAULT_ALG, Registration, register, run_node

pytestmark = pytest.mark.e2e


@pytest.fixture
def app(admin: ApiClient) -> App:
    return register_app(admin)


@pytest.fixture
def proxy_client(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=20) as client:
        yield client


def test_oauth4webapi_pushes_signs_in_and_redeems(stack: Stack, admin: ApiClient) -> None:
    registration: Registration = register(stack, admin, DEFAULT_ALG)
    config = registration.rp_input()
    pushed = run_node("par.mjs", {"step": "push", **config})
    assert pushed["expires_in"] == 60
    assert pushed["url"].startswith(f"{stack.issuer}/oauth2/authorize?")
    assert query_of(pushed["url"]) == {
        "client_id": registration.client_id,
        "request_uri": pushed["request_uri"],
    }
    with httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=20) as browser:
        callback = sign_in(browser, pushed["url"], registration.person)
        assert callback.startswith(registration.redirect_uri + "?")
        result = run_node(
            "par.mjs", {"step": "redeem", **config, **pushed["checks"], "callback": callback}
        )
        # The request_uri was spent at its first use: the signed-in browser that got the
        # code is refused the same URL now (RFC 9126 §4, one use).
        refused_page(browser.get(pushed["url"]), "invalid_request_uri")
    assert result["iss"] == stack.issuer  # RFC 9207, checked by the library too
    assert result["token_type"].lower() == "bearer"
    claims = result["id_token"]["claims"]
    assert claims["sub"] == registration.person.id
    assert claims["nonce"] == pushed["checks"]["nonce"]
    assert claims["aud"] == registration.client_id
    assert result["userinfo"]["email"] == registration.person.email


def test_a_request_uri_gives_one_code(stack: Stack, app: App, proxy_client: httpx.Client) -> None:
    _, cookie = signed_in_person(stack, app)
    params = request_params(app)
    request_uri = pushed_uri(push(proxy_client, app, params))
    first = use(proxy_client, app.client_id, request_uri, headers=cookie)
    assert first.status_code == 302, first.text
    issued = query_of(first.headers["location"])
    assert first.headers["location"].startswith(app.redirect_uri + "?")
    assert issued["code"] and issued["state"] == params["state"]
    assert issued["iss"] == stack.issuer
    again = use(proxy_client, app.client_id, request_uri, headers=cookie)
    refused_page(again, "invalid_request_uri")


def test_the_pushed_parameters_win_over_the_query(
    stack: Stack, app: App, proxy_client: httpx.Client
) -> None:
    """RFC 9126 §4: the query's other parameters are ignored. Pushed ``prompt=none`` without
    a session is refused ``login_required`` at the pushed redirect URI with the pushed
    state, whatever the query says."""
    params = request_params(app, prompt="none", state="pushed-state")
    request_uri = pushed_uri(push(proxy_client, app, params))
    response = use(
        proxy_client,
        app.client_id,
        request_uri,
        state="query-state",
        prompt="login",
        redirect_uri="http://127.0.0.1:9/elsewhere",
        response_type="token",
    )
    assert response.status_code == 302, response.text
    assert response.headers["location"].startswith(app.redirect_uri + "?")
    answer = query_of(response.headers["location"])
    assert answer["error"] == "login_required"
    assert answer["state"] == "pushed-state"
    assert answer["iss"] == stack.issuer


def test_another_clients_request_uri_is_refused_and_not_spent(
    stack: Stack, admin: ApiClient, app: App, proxy_client: httpx.Client
) -> None:
    other = register_app(admin)
    request_uri = pushed_uri(push(proxy_client, app, request_params(app)))
    refused_page(use(proxy_client, other.client_id, request_uri), "invalid_request_uri")
    # Its owner still has it: to the sign-in page.
    owner = use(proxy_client, app.client_id, request_uri)
    assert owner.status_code == 302, owner.text
    assert "/auth/login?challenge=" in owner.headers["location"]


@pytest.mark.parametrize(
    "request_uri",
    [
        "urn:ietf:params:oauth:request_uri:" + "A" * 43,  # well formed, never issued
        "urn:ietf:params:oauth:request_uri:short",
        "https://client.example/request.jwt",
    ],
)
def test_an_unknown_request_uri_is_refused(
    app: App, proxy_client: httpx.Client, request_uri: str
) -> None:
    refused_page(use(proxy_client, app.client_id, request_uri), "invalid_request_uri")


def test_a_pushed_request_expires(stack: Stack, app: App) -> None:
    """``SVC_PAR_REQUEST_TTL`` on a token service of its own (same database and Redis): a
    request pushed there lives one second."""
    with (
        stack.extra_service("token", {"SVC_PAR_REQUEST_TTL": "1"}) as short_lived,
        httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=20) as proxy,
    ):
        pushed = push(proxy, app, request_params(app), url=f"{short_lived}/oauth2/par")
        assert pushed.json()["expires_in"] == 1
        fresh = pushed_uri(push(proxy, app, request_params(app), url=f"{short_lived}/oauth2/par"))
        assert use(proxy, app.client_id, fresh).status_code == 302  # usable at once
        time.sleep(2.5)
        refused_page(use(proxy, app.client_id, pushed_uri(pushed)), "invalid_request_uri")


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"request_uri": "urn:ietf:params:oauth:request_uri:" + "A" * 43}, "invalid_request"),
        ({"redirect_uri": "http://127.0.0.1:9/not-registered"}, "invalid_request"),
        ({"redirect_uri": None}, "invalid_request"),
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"scope": None}, "invalid_scope"),
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"request": "eyJhbGciOiJub25lIn0.e30."}, "request_not_supported"),
        ({"state": "s" * 1025}, "invalid_request"),
    ],
)
def test_a_push_is_validated_as_an_authorization_request(
    app: App, proxy_client: httpx.Client, changes: dict[str, str | None], error: str
) -> None:
    refused_json(push(proxy_client, app, request_params(app, **changes)), 400, error)


def test_a_push_needs_client_authentication(app: App, proxy_client: httpx.Client) -> None:
    wrong = proxy_client.post(
        "/oauth2/par", data=request_params(app), auth=(app.client_id, "not-the-secret")
    )
    refused_json(wrong, 401, "invalid_client")
    assert wrong.headers["www-authenticate"].startswith("Basic")
    refused_json(proxy_client.post("/oauth2/par", data=request_params(app)), 401, "invalid_client")


def test_a_push_is_a_form_once(app: App, proxy_client: httpx.Client) -> None:
    assert app.secret is not None
    basic = (app.client_id, app.secret)
    as_json = proxy_client.post("/oauth2/par", json=request_params(app), auth=basic)
    refused_json(as_json, 400, "invalid_request")
    twice = httpx.QueryParams(request_params(app)).add("scope", "email")
    refused_json(
        proxy_client.post(
            "/oauth2/par",
            content=str(twice),
            headers={"content-type": "application/x-www-form-urlencoded"},
            auth=basic,
        ),
        400,
        "invalid_request",
    )
    assert proxy_client.get("/oauth2/par").status_code == 405


def test_a_public_client_pushes_with_its_client_id(
    stack: Stack, proxy_client: httpx.Client
) -> None:
    public = records.create_client(stack, public=True)
    app = App(public.client_id, public.redirect_uri)
    response = proxy_client.post("/oauth2/par", data=request_params(app))
    assert use(proxy_client, app.client_id, pushed_uri(response)).status_code == 302
    bare = request_params(app, code_challenge=None, code_challenge_method=None)
    refused_json(proxy_client.post("/oauth2/par", data=bare), 400, "invalid_request")


def test_a_client_that_must_push_is_refused_a_plain_request(
    stack: Stack, admin: ApiClient, proxy_client: httpx.Client
) -> None:
    app = register_app(admin, require_pushed_authorization_requests=True)
    params = request_params(app)
    plain = proxy_client.get("/oauth2/authorize", params=params)
    assert plain.status_code == 302, plain.text
    assert plain.headers["location"].startswith(app.redirect_uri + "?")
    answer = query_of(plain.headers["location"])
    assert answer["error"] == "invalid_request"
    assert "push" in answer["error_description"]
    assert answer["state"] == params["state"]
    assert answer["iss"] == stack.issuer
    pushed = use(proxy_client, app.client_id, pushed_uri(push(proxy_client, app, params)))
    assert pushed.status_code == 302
    assert "/auth/login?challenge=" in pushed.headers["location"]


def test_discovery_names_the_endpoint(stack: Stack, proxy_client: httpx.Client) -> None:
    metadata = proxy_client.get("/.well-known/openid-configuration").json()
    assert metadata["pushed_authorization_request_endpoint"] == f"{stack.issuer}/oauth2/par"
    assert metadata["require_pushed_authorization_requests"] is False
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert SCOPE.split()[0] in metadata["scopes_supported"]


def test_pushes_are_limited_per_address(stack: Stack, app: App) -> None:
    """``SVC_TOKEN_PER_IP`` pushes a minute per caller address, in a bucket of their own:
    past it 429 ``temporarily_unavailable`` with ``Retry-After``; the token endpoint from
    the same address is not affected."""
    address = {"X-Forwarded-For": fresh_address()}
    with (
        stack.extra_service("token", {"SVC_TOKEN_PER_IP": "3"}) as service,
        httpx.Client(base_url=service, timeout=20, headers=address) as http,
    ):
        codes = [push(http, app, request_params(app)).status_code for _ in range(3)]
        refused = push(http, app, request_params(app))
        assert app.secret is not None
        token = http.post(
            "/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(app.client_id, app.secret),
        )
    assert codes == [201, 201, 201]
    refused_json(refused, 429, "temporarily_unavailable")
    assert int(refused.headers["retry-after"]) >= 1
    assert token.status_code != 429, token.text


def test_pushed_resources_narrow_the_code(
    stack: Stack, admin: ApiClient, proxy_client: httpx.Client
) -> None:
    """RFC 8707 ``resource`` (which may repeat) is pushed with the request and applied when
    it is used: the code holds only the named API's scopes; an unknown resource is refused
    at the push with ``invalid_target``."""
    apis = []
    for _ in range(2):
        n = secrets.token_hex(5)
        api = admin.post("/admin/apis", json={"name": f"par{n}", "audience": f"urn:par:{n}"})
        assert api.status_code == 201, api.text
        scope = {"value": f"par{n}:orders:read", "description": "Read"}
        assert admin.post(f"/admin/apis/{api.json()['id']}/scopes", json=scope).status_code == 201
        apis.append((f"urn:par:{n}", f"par{n}:orders:read"))
    (wanted, wanted_scope), (_, other_scope) = apis
    app = register_app(admin)
    scopes = ["openid", wanted_scope, other_scope]
    put = admin.put(f"/admin/clients/{app.client_id}/scopes", json={"scopes": scopes})
    assert put.status_code == 200, put.text
    person = records.create_user(stack, scopes=(wanted_scope, other_scope))
    records.give_consent(stack, app.client_id, person.id, scopes)
    cookie, _ = records.create_browser_session(stack, person.id)

    params = request_params(app, scope=" ".join(scopes))
    unknown = push(proxy_client, app, {**params, "resource": "urn:par:nobody"})
    refused_json(unknown, 400, "invalid_target")
    request_uri = pushed_uri(push(proxy_client, app, {**params, "resource": wanted}))
    issued = use(
        proxy_client, app.client_id, request_uri, headers={"Cookie": f"svc_session={cookie}"}
    )
    assert issued.status_code == 302, issued.text
    code = query_of(issued.headers["location"])["code"]
    digest = hashlib.sha256(code.encode()).digest()
    row = rows.query(stack, "SELECT scope FROM authorization_codes WHERE code_digest = $1", digest)
    assert row[0]["scope"] == f"openid {wanted_scope}"
