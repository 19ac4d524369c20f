"""Browser applications on other origins (issue #27, docs/oauth/browser-apps.md), through the
real proxy: CORS on the token, userinfo and revocation endpoints for exactly the origins
of the client the request is for; discovery and the JWKS to any origin; the revocation
endpoint for a public client (``none``); introspection's ``token_type``.

Every origin here is unique to its test (``https://<unique>.example``), so the set of
origins some client allows, which a preflight is answered by, never mixes tests.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.harness.records import query
from tests.harness.stack import Stack
from tests.harness.stamps import announce_client_change
from tests.integration import token_fixtures as tf

pytestmark = pytest.mark.integration
ACAO = "access-control-allow-origin"
PUBLIC_PATHS = (
    "/.well-known/openid-configuration",
    "/.well-known/oauth-authorization-server",
    "/.well-known/jwks.json",
)


def unique_origin() -> str:
    return f"https://{tf.unique('spa')}.example"


@pytest.fixture
def http(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.proxy_url, timeout=15) as client:
        yield client


@pytest.fixture(scope="module")
def person(stack: Stack) -> tf.Person:
    return tf.create_person(stack)


def browser_client(stack: Stack, origins: list[str], *, public: bool = True) -> tf.AppClient:
    """A client allowing ``origins`` (as the admin API stores them), announced to the
    token workers as the admin API announces a change."""
    client = tf.create_client(stack, public=public)
    query(
        stack,
        "UPDATE clients SET allowed_web_origins = $1 WHERE client_id = $2 RETURNING id",
        origins,
        client.client_id,
    )
    announce_client_change(stack)
    return client


def tokens(
    http: httpx.Client, stack: Stack, client: tf.AppClient, person: tf.Person, origin: str
) -> httpx.Response:
    """The code exchange a page on ``origin`` sends (public client: client_id in the form)."""
    verifier, challenge = tf.pkce_pair()
    code = tf.create_code(stack, client, person, challenge=challenge)
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": client.redirect_uri,
        "code_verifier": verifier,
        **client.post_fields(),
    }
    return http.post("/oauth2/token", data=form, headers={"Origin": origin})


def preflight(http: httpx.Client, path: str, origin: str, method: str = "POST") -> httpx.Response:
    return http.options(
        path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": "authorization, dpop",
        },
    )


def test_discovery_and_jwks_answer_any_origin(http: httpx.Client) -> None:
    for path in PUBLIC_PATHS:
        for headers in ({"Origin": unique_origin()}, {"Origin": "null"}, {}):
            response = http.get(path, headers=headers)
            assert response.status_code == 200, (path, response.text)
            assert response.headers.get_list(ACAO) == ["*"], (path, headers)
            assert "access-control-allow-credentials" not in response.headers
        answer = preflight(http, path, unique_origin(), "GET")
        assert answer.status_code == 204
        assert answer.headers[ACAO] == "*"


def test_discovery_lists_none_for_revocation(http: httpx.Client) -> None:
    metadata = http.get("/.well-known/openid-configuration").json()
    assert "none" in metadata["revocation_endpoint_auth_methods_supported"]
    assert "none" not in metadata["introspection_endpoint_auth_methods_supported"]


@pytest.mark.parametrize(
    ("path", "methods"),
    [("/oauth2/token", "POST"), ("/oauth2/revoke", "POST"), ("/oauth2/userinfo", "GET, POST")],
)
def test_a_preflight_is_answered_for_an_origin_some_client_allows(
    http: httpx.Client, stack: Stack, path: str, methods: str
) -> None:
    origin = unique_origin()
    browser_client(stack, [origin])
    answer = preflight(http, path, origin)
    assert answer.status_code == 204, answer.text
    assert answer.headers[ACAO] == origin
    assert answer.headers["access-control-allow-methods"] == methods
    allowed = answer.headers["access-control-allow-headers"].lower().split(", ")
    assert {"authorization", "content-type", "dpop"} <= set(allowed)
    assert int(answer.headers["access-control-max-age"]) > 0
    assert "origin" in answer.headers["vary"].lower()
    assert "access-control-allow-credentials" not in answer.headers

    refused = preflight(http, path, unique_origin())
    assert refused.status_code == 403
    assert ACAO not in refused.headers
    assert "access-control-allow-methods" not in refused.headers


def test_a_redirect_uris_origin_is_allowed_when_the_client_lists_none(
    http: httpx.Client, stack: Stack
) -> None:
    client = tf.create_client(stack, public=True)  # redirect URI https://app.example/cb
    announce_client_change(stack)  # as the admin API announces a new client
    origin = "https://app.example"
    assert query(
        stack, "SELECT allowed_web_origins FROM clients WHERE client_id = $1", client.client_id
    ) == [{"allowed_web_origins": []}]
    assert preflight(http, "/oauth2/token", origin).headers[ACAO] == origin


def test_the_token_answer_is_readable_only_by_the_clients_own_origins(
    http: httpx.Client, stack: Stack, person: tf.Person
) -> None:
    mine, theirs = unique_origin(), unique_origin()
    app = browser_client(stack, [mine])
    browser_client(stack, [theirs])  # passes the preflight, is not this client's

    allowed = tokens(http, stack, app, person, mine)
    assert allowed.status_code == 200, allowed.text
    assert allowed.headers.get_list(ACAO) == [mine]
    assert "origin" in allowed.headers["vary"].lower()
    exposed = allowed.headers["access-control-expose-headers"].lower()
    assert "www-authenticate" in exposed
    assert "dpop-nonce" in exposed
    assert "access-control-allow-credentials" not in allowed.headers

    other = tokens(http, stack, app, person, theirs)
    # A "simple" POST reaches the server (CORS only keeps the answer from the page).
    assert other.status_code == 200
    assert ACAO not in other.headers
    assert "origin" in other.headers["vary"].lower()

    # A failure about this client (an unknown code) is readable by its origin only.
    error = http.post(
        "/oauth2/token",
        data={
            "grant_type": "authorization_code",
            "code": "no-such-code",
            "redirect_uri": app.redirect_uri,
            "code_verifier": tf.pkce_pair()[0],
            **app.post_fields(),
        },
        headers={"Origin": mine},
    )
    assert error.json()["error"] == "invalid_grant"
    assert error.headers[ACAO] == mine


def test_an_answer_before_any_client_is_known_follows_the_preflight_rule(
    http: httpx.Client, stack: Stack
) -> None:
    origin = unique_origin()
    browser_client(stack, [origin])
    unknown = {"grant_type": "authorization_code", "code": "x", "client_id": tf.unique("nobody")}
    answer = http.post("/oauth2/token", data=unknown, headers={"Origin": origin})
    assert answer.status_code == 401
    assert answer.headers[ACAO] == origin
    assert "www-authenticate" in answer.headers["access-control-expose-headers"].lower()
    stranger = http.post("/oauth2/token", data=unknown, headers={"Origin": unique_origin()})
    assert stranger.status_code == 401
    assert ACAO not in stranger.headers


def test_userinfo_is_readable_by_the_access_tokens_clients_origins(
    http: httpx.Client, stack: Stack, person: tf.Person
) -> None:
    mine, theirs = unique_origin(), unique_origin()
    app = browser_client(stack, [mine])
    browser_client(stack, [theirs])
    access_token = tokens(http, stack, app, person, mine).json()["access_token"]
    bearer = {"Authorization": f"Bearer {access_token}"}

    answer = http.get("/oauth2/userinfo", headers={**bearer, "Origin": mine})
    assert answer.status_code == 200
    assert answer.json()["sub"] == str(person.id)
    assert answer.headers[ACAO] == mine
    refused = http.get("/oauth2/userinfo", headers={**bearer, "Origin": theirs})
    assert refused.status_code == 200
    assert ACAO not in refused.headers
    # Without Origin (a server), nothing changes.
    plain = http.get("/oauth2/userinfo", headers=bearer)
    assert plain.status_code == 200
    assert ACAO not in plain.headers


def test_a_public_client_revokes_with_its_client_id_alone(
    http: httpx.Client, stack: Stack, person: tf.Person
) -> None:
    origin = unique_origin()
    app = browser_client(stack, [origin])
    body = tokens(http, stack, app, person, origin).json()
    bearer = {"Authorization": f"Bearer {body['access_token']}"}
    assert http.get("/oauth2/userinfo", headers=bearer).status_code == 200

    revoked = http.post(
        "/oauth2/revoke",
        data={"token": body["access_token"], "client_id": app.client_id},
        headers={"Origin": origin},
    )
    assert revoked.status_code == 200
    assert revoked.headers[ACAO] == origin
    assert http.get("/oauth2/userinfo", headers=bearer).status_code == 401
    refreshed = http.post(
        "/oauth2/revoke", data={"token": body["refresh_token"], "client_id": app.client_id}
    )
    assert refreshed.status_code == 200
    again = tf.refresh(http, app, body["refresh_token"])
    assert again.json()["error"] == "invalid_grant"


def test_introspection_answers_the_token_type(
    http: httpx.Client, stack: Stack, person: tf.Person
) -> None:
    app = tf.create_client(stack)
    verifier, challenge = tf.pkce_pair()
    code = tf.create_code(stack, app, person, challenge=challenge)
    body = tf.exchange(http, app, code, verifier=verifier).json()
    access = tf.introspect(http, app, body["access_token"]).json()
    assert access["active"] is True
    assert access["token_type"] == "Bearer"
    refresh = tf.introspect(http, app, body["refresh_token"]).json()
    assert refresh["active"] is True
    assert "token_type" not in refresh  # RFC 7662 §2.2: an access token type; none here


def test_the_deployments_admin_origins_still_apply(stack: Stack) -> None:
    admin_origin = unique_origin()
    with (
        stack.extra_service("token", {"SVC_ALLOWED_ADMIN_ORIGINS": admin_origin}) as url,
        httpx.Client(base_url=url, timeout=15) as direct,
    ):
        answer = preflight(direct, "/oauth2/token", admin_origin)
        assert answer.status_code == 204
        assert answer.headers[ACAO] == admin_origin
        jwks = direct.get("/.well-known/jwks.json", headers={"Origin": admin_origin})
        assert jwks.headers.get_list(ACAO) == ["*"]
        assert preflight(direct, "/oauth2/token", unique_origin()).status_code == 403
