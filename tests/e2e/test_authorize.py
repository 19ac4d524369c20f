"""``/oauth2/authorize`` through the proxy: every parameter of spec part 4, the trusted
redirect rule, and spec part 3's ``prompt=none`` and ``id_token_hint`` rows.

A signed-in browser is made with the same session store the sign-in API uses.
"""

from __future__ import annotations

import time
import uuid
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from idp_common.crypto.jwt import sign_jwt
from idp_common.crypto.keys import load_key_set
from tests.harness import records
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def app(stack: Stack) -> records.TestClient:
    return records.create_client(stack)


@pytest.fixture(scope="module")
def first_party(stack: Stack) -> records.TestClient:
    return records.create_client(stack, skip_consent=True, public=True)


@pytest.fixture(scope="module")
def person(stack: Stack) -> records.TestUser:
    return records.create_user(stack)


def params(client: records.TestClient, **extra: str) -> dict[str, str]:
    base = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": client.redirect_uri,
        "scope": "openid profile",
        "state": "st-1",
        "nonce": "n-1",
    }
    if client.secret is None and "code_challenge" not in extra:
        base["code_challenge"] = records.pkce_pair()[1]
        base["code_challenge_method"] = "S256"
    base.update(extra)
    return base


def query_of(response: httpx.Response) -> dict[str, str]:
    location = response.headers["location"]
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def signed_in(stack: Stack, person: records.TestUser, **kw: int) -> dict[str, str]:
    cookie, _ = records.create_browser_session(stack, person.id, **kw)
    return {"Cookie": f"svc_session={cookie}"}


# --- the redirect URI must be trusted before anything is sent to it -----------------


@pytest.mark.parametrize(
    "redirect_uri",
    [
        "http://127.0.0.1:9/cb/",
        "http://127.0.0.1:9/cb?x=1",
        "http://127.0.0.1:10/cb",
        "https://127.0.0.1:9/cb",
        "http://127.0.0.1:9/CB",
        "",
    ],
)
def test_redirect_uri_must_match_exactly(
    proxy: httpx.Client, app: records.TestClient, redirect_uri: str
) -> None:
    response = proxy.get("/oauth2/authorize", params=params(app, redirect_uri=redirect_uri))
    assert response.status_code == 400
    assert "location" not in response.headers
    assert response.headers["content-type"].startswith("text/html")
    assert "redirect_uri" in response.text


def test_unknown_client_is_shown_an_error_not_redirected(proxy: httpx.Client) -> None:
    response = proxy.get(
        "/oauth2/authorize",
        params={
            "response_type": "code",
            "client_id": "nobody",
            "redirect_uri": "http://127.0.0.1:9/cb",
            "scope": "openid",
        },
    )
    assert response.status_code == 400
    assert "location" not in response.headers


def test_repeated_client_id_is_not_trusted(proxy: httpx.Client, app: records.TestClient) -> None:
    query = httpx.QueryParams(params(app)).add("client_id", app.client_id)
    assert proxy.get("/oauth2/authorize", params=query).status_code == 400


# --- errors go back to the client, with state and iss (RFC 9207) ---------------------


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"scope": ""}, "invalid_scope"),
        ({"prompt": "none login"}, "invalid_request"),
        ({"prompt": "sometimes"}, "invalid_request"),
        ({"max_age": "-1"}, "invalid_request"),
        ({"code_challenge": "x" * 43, "code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge": "short", "code_challenge_method": "S256"}, "invalid_request"),
        ({"id_token_hint": "not-a-token"}, "invalid_request"),
    ],
)
def test_invalid_parameters_are_returned_to_the_client(
    proxy: httpx.Client,
    stack: Stack,
    app: records.TestClient,
    changes: dict[str, str],
    error: str,
) -> None:
    response = proxy.get("/oauth2/authorize", params=params(app, **changes))
    assert response.status_code == 302
    assert response.headers["location"].startswith(app.redirect_uri + "?")
    query = query_of(response)
    assert query["error"] == error
    assert query["state"] == "st-1"
    assert query["iss"] == stack.issuer


def test_repeated_state_is_invalid_request(proxy: httpx.Client, app: records.TestClient) -> None:
    query = httpx.QueryParams(params(app)).add("state", "again")
    response = proxy.get("/oauth2/authorize", params=query)
    assert query_of(response)["error"] == "invalid_request"
    assert "state" not in query_of(response)


def test_public_client_must_use_pkce(proxy: httpx.Client, first_party: records.TestClient) -> None:
    bare = {k: v for k, v in params(first_party).items() if not k.startswith("code_challenge")}
    response = proxy.get("/oauth2/authorize", params=bare)
    assert query_of(response)["error"] == "invalid_request"


# --- no session: the sign-in page -----------------------------------------------------


def test_without_session_the_person_is_sent_to_sign_in(
    proxy: httpx.Client, stack: Stack, app: records.TestClient
) -> None:
    response = proxy.get("/oauth2/authorize", params=params(app, login_hint="ann@example.com"))
    assert response.status_code == 302
    location = response.headers["location"]
    assert location.startswith(stack.issuer + "/auth/login?challenge=")
    challenge = query_of(response)["challenge"]
    page = proxy.get(f"/api/v1/auth/challenge/{challenge}")  # the sign-in API reads it
    assert page.status_code == 200
    assert page.json()["loginHint"] == "ann@example.com"
    assert page.json()["next"] == "password"


def test_post_is_accepted_like_get(
    proxy: httpx.Client, stack: Stack, app: records.TestClient
) -> None:
    response = proxy.post("/oauth2/authorize", data=params(app))
    assert response.status_code == 303
    assert response.headers["location"].startswith(stack.issuer + "/auth/login?challenge=")


# --- prompt=none writes nothing when it refuses (spec part 3) -------------------------


def test_prompt_none_without_session_is_login_required_and_writes_nothing(
    proxy: httpx.Client, stack: Stack, app: records.TestClient
) -> None:
    before = (records.database_fingerprint(stack), records.redis_snapshot(stack))
    response = proxy.get("/oauth2/authorize", params=params(app, prompt="none"))
    assert query_of(response)["error"] == "login_required"
    assert query_of(response)["iss"] == stack.issuer
    assert (records.database_fingerprint(stack), records.redis_snapshot(stack)) == before


def test_prompt_none_without_consent_is_consent_required_and_writes_nothing(
    proxy: httpx.Client, stack: Stack, app: records.TestClient, person: records.TestUser
) -> None:
    cookies = signed_in(stack, person)
    before = (records.database_fingerprint(stack), records.redis_snapshot(stack))
    response = proxy.get("/oauth2/authorize", params=params(app, prompt="none"), headers=cookies)
    assert query_of(response)["error"] == "consent_required"
    assert (records.database_fingerprint(stack), records.redis_snapshot(stack)) == before


# --- with a session ---------------------------------------------------------------------


def test_session_and_first_party_client_get_a_code_at_once(
    proxy: httpx.Client, stack: Stack, first_party: records.TestClient, person: records.TestUser
) -> None:
    response = proxy.get(
        "/oauth2/authorize", params=params(first_party), headers=signed_in(stack, person)
    )
    assert response.status_code == 302
    query = query_of(response)
    assert query["code"]
    assert query["state"] == "st-1"
    assert query["iss"] == stack.issuer


def test_prompt_none_with_session_gets_a_code(
    proxy: httpx.Client, stack: Stack, first_party: records.TestClient, person: records.TestUser
) -> None:
    response = proxy.get(
        "/oauth2/authorize",
        params=params(first_party, prompt="none"),
        headers=signed_in(stack, person),
    )
    assert "code" in query_of(response)


def test_session_without_consent_goes_to_the_consent_step(
    proxy: httpx.Client, stack: Stack, app: records.TestClient, person: records.TestUser
) -> None:
    response = proxy.get("/oauth2/authorize", params=params(app), headers=signed_in(stack, person))
    assert response.headers["location"].startswith(stack.issuer + "/auth/login?challenge=")
    page = proxy.get(f"/api/v1/auth/challenge/{query_of(response)['challenge']}")
    assert page.status_code == 200
    assert page.json()["next"] == "consent"


def test_remembered_consent_skips_the_screen_unless_prompt_consent(
    proxy: httpx.Client, stack: Stack, app: records.TestClient
) -> None:
    person = records.create_user(stack)
    records.give_consent(stack, app.client_id, person.id, ["openid", "profile"])
    cookies = signed_in(stack, person)
    remembered = proxy.get("/oauth2/authorize", params=params(app), headers=cookies)
    assert "code" in query_of(remembered)
    asked = proxy.get("/oauth2/authorize", params=params(app, prompt="consent"), headers=cookies)
    assert "challenge" in query_of(asked)
    page = proxy.get(f"/api/v1/auth/challenge/{query_of(asked)['challenge']}")
    assert page.json()["next"] == "consent"
    silent = proxy.get("/oauth2/authorize", params=params(app, prompt="none"), headers=cookies)
    assert "code" in query_of(silent)


@pytest.mark.parametrize("prompt", ["login", "select_account"])
def test_prompt_login_forces_sign_in(
    proxy: httpx.Client,
    stack: Stack,
    first_party: records.TestClient,
    person: records.TestUser,
    prompt: str,
) -> None:
    response = proxy.get(
        "/oauth2/authorize",
        params=params(first_party, prompt=prompt),
        headers=signed_in(stack, person),
    )
    assert "challenge" in query_of(response)


@pytest.mark.parametrize(
    ("age", "max_age", "fresh_enough"), [(5, "0", False), (120, "60", False), (10, "3600", True)]
)
def test_max_age(
    proxy: httpx.Client,
    stack: Stack,
    first_party: records.TestClient,
    person: records.TestUser,
    age: int,
    max_age: str,
    fresh_enough: bool,
) -> None:
    cookies = signed_in(stack, person, auth_time=int(time.time()) - age)
    response = proxy.get(
        "/oauth2/authorize", params=params(first_party, max_age=max_age), headers=cookies
    )
    assert ("code" in query_of(response)) is fresh_enough
    assert ("challenge" in query_of(response)) is not fresh_enough


def id_token_for(stack: Stack, client_id: str, subject: str, **extra: object) -> str:
    now = int(time.time())
    claims = {
        "iss": stack.issuer,
        "sub": subject,
        "aud": client_id,
        "iat": now - 7200,
        "exp": now - 3600,
        **extra,
    }
    return sign_jwt(claims, load_key_set(stack.key_dir))


def test_id_token_hint_for_the_same_person_keeps_the_session(
    proxy: httpx.Client, stack: Stack, first_party: records.TestClient, person: records.TestUser
) -> None:
    hint = id_token_for(stack, first_party.client_id, person.id)  # expired hints are fine
    response = proxy.get(
        "/oauth2/authorize",
        params=params(first_party, prompt="none", id_token_hint=hint),
        headers=signed_in(stack, person),
    )
    assert "code" in query_of(response)


def test_id_token_hint_for_someone_else_means_no_session(
    proxy: httpx.Client, stack: Stack, first_party: records.TestClient, person: records.TestUser
) -> None:
    hint = id_token_for(stack, first_party.client_id, str(uuid.uuid4()))
    response = proxy.get(
        "/oauth2/authorize",
        params=params(first_party, prompt="none", id_token_hint=hint),
        headers=signed_in(stack, person),
    )
    assert query_of(response)["error"] == "login_required"


def test_a_logout_token_as_id_token_hint_is_refused(
    proxy: httpx.Client, stack: Stack, first_party: records.TestClient, person: records.TestUser
) -> None:
    logout_token = id_token_for(
        stack,
        first_party.client_id,
        person.id,
        events={"http://schemas.openid.net/event/backchannel-logout": {}},
        jti="j1",
    )
    response = proxy.get(
        "/oauth2/authorize",
        params=params(first_party, id_token_hint=logout_token),
        headers=signed_in(stack, person),
    )
    assert query_of(response)["error"] == "invalid_request"


def test_login_hint_is_only_a_suggestion(
    proxy: httpx.Client, stack: Stack, first_party: records.TestClient, person: records.TestUser
) -> None:
    response = proxy.get(
        "/oauth2/authorize",
        params=params(first_party, login_hint="someone.else@example.com"),
        headers=signed_in(stack, person),
    )
    assert "code" in query_of(response)


# --- resuming a challenge ---------------------------------------------------------------


def test_resuming_an_unfinished_or_unknown_challenge_shows_an_error(
    proxy: httpx.Client, app: records.TestClient
) -> None:
    started = proxy.get("/oauth2/authorize", params=params(app))
    challenge = query_of(started)["challenge"]
    for value in (challenge, "unknown"):
        response = proxy.get("/oauth2/authorize", params={"challenge": value})
        assert response.status_code == 400
        assert "location" not in response.headers
