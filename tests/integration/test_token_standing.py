"""A token stands on the browser session it was issued in (docs/security.md "Tokens end when
what they stand for ends", "The design"): however the session ends, idle expiry included,
its access tokens stop at the provider's own API, userinfo and introspection, and its
refresh tokens at the token endpoint; a refresh counts as the session's activity; a
re-authentication that continues the session under a new id keeps the tokens from before
it standing; a token without a session stands only if issued after the person's last
credential change.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from redis.asyncio import Redis

from idp_common.state.sessions import SESSION_IDLE_SECONDS, SessionStore
from tests.harness import infra, records, tokens
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf

pytestmark = pytest.mark.integration

PROFILE = "/entity/profile"
SCOPE = "openid offline_access idp:account:read"


@pytest.fixture
def http(stack: Stack) -> Iterator[httpx.Client]:
    yield from tf.token_http(stack)


@pytest.fixture(scope="module")
def app(stack: Stack) -> tf.AppClient:
    return tf.create_client(stack, scopes=[*tf.OIDC, "idp:account:read"])


def signed_in(
    http: httpx.Client, stack: Stack, app: tf.AppClient
) -> tuple[tf.Person, str, dict[str, str]]:
    """A person, the cookie of their live session, and the tokens issued in it."""
    person = tf.create_person(stack)
    cookie, _ = records.create_browser_session(stack, str(person.id))
    code = tf.create_code(stack, app, person, scope=SCOPE, session_id=cookie)
    answer = tf.exchange(http, app, code)
    assert answer.status_code == 200, answer.text
    return person, cookie, answer.json()


def profile(stack: Stack, token: str) -> int:
    headers = {"Authorization": f"Bearer {token}", "X-Forwarded-For": tf.fresh_address()}
    return httpx.get(stack.service_url("entity") + PROFILE, headers=headers, timeout=15).status_code


def userinfo(http: httpx.Client, token: str) -> int:
    return http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {token}"}).status_code


def active(http: httpx.Client, app: tf.AppClient, token: str) -> bool:
    answer = tf.introspect(http, app, token)
    assert answer.status_code == 200, answer.text
    return bool(answer.json()["active"])


def redis_call(stack: Stack, call: str, *args: object) -> object:
    async def run() -> object:
        redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
        try:
            return await getattr(redis, call)(*args)
        finally:
            await redis.aclose()

    return infra.run(run())


def session_key(stack: Stack, sid: str) -> str:
    return f"{stack.env['SVC_REDIS_PREFIX']}session:{sid}"


def test_an_idled_out_session_takes_its_tokens_with_it(
    http: httpx.Client, stack: Stack, app: tf.AppClient
) -> None:
    _, _, issued = signed_in(http, stack, app)
    sid = tf.unverified_claims(issued["access_token"])["sid"]
    assert profile(stack, issued["access_token"]) == 200
    redis_call(stack, "delete", session_key(stack, sid))  # what its idle expiry does
    assert profile(stack, issued["access_token"]) == 401
    assert userinfo(http, issued["access_token"]) == 401
    assert not active(http, app, issued["access_token"])
    refused = tf.refresh(http, app, issued["refresh_token"])
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"] == "invalid_grant"


def test_a_refresh_is_the_sessions_activity(
    http: httpx.Client, stack: Stack, app: tf.AppClient
) -> None:
    _, _, issued = signed_in(http, stack, app)
    sid = tf.unverified_claims(issued["access_token"])["sid"]
    redis_call(stack, "expire", session_key(stack, sid), 60)  # about to idle out
    renewed = tf.refresh(http, app, issued["refresh_token"])
    assert renewed.status_code == 200, renewed.text
    assert tf.unverified_claims(renewed.json()["access_token"])["sid"] == sid
    ttl = redis_call(stack, "ttl", session_key(stack, sid))
    assert isinstance(ttl, int) and ttl > SESSION_IDLE_SECONDS - 60
    assert profile(stack, renewed.json()["access_token"]) == 200


def test_tokens_from_before_a_re_authentication_stand_until_the_session_ends(
    http: httpx.Client, stack: Stack, app: tf.AppClient
) -> None:
    person, cookie, issued = signed_in(http, stack, app)

    async def continue_session() -> str:
        redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
        try:
            store = SessionStore(redis, stack.env["SVC_REDIS_PREFIX"])
            old = await store.get_session(cookie)
            assert old is not None
            new_cookie, _ = await store.create_session(
                user_id=str(person.id),
                auth_time=int(time.time()),
                amr=["pwd"],
                acr="urn:idp:acr:1fa",
                ip="127.0.0.1",
                user_agent="tests",
                continues=old,
            )
            return new_cookie
        finally:
            await redis.aclose()

    new_cookie = infra.run(continue_session())
    old_sid = tf.unverified_claims(issued["access_token"])["sid"]
    assert not records.session_exists(stack, old_sid)  # continued under a new id
    assert profile(stack, issued["access_token"]) == 200
    assert userinfo(http, issued["access_token"]) == 200
    renewed = tf.refresh(http, app, issued["refresh_token"])
    assert renewed.status_code == 200, renewed.text
    logout = http.post(
        "/oauth2/logout",
        data={"id_token_hint": issued["id_token"]},
        headers={"Cookie": f"svc_session={new_cookie}"},
    )
    assert logout.status_code in (200, 302, 303), logout.text
    assert profile(stack, issued["access_token"]) == 401
    assert profile(stack, renewed.json()["access_token"]) == 401
    assert not active(http, app, issued["access_token"])


def test_a_token_without_a_session_stands_only_if_younger_than_the_credential_change(
    stack: Stack,
) -> None:
    person = tf.create_person(stack)
    before = int(time.time()) - 30
    minted = {"issuer": stack.issuer, "scopes": ["idp:account:read"], "subject": str(person.id)}
    old = tokens.mint(stack.key_dir, now=before, **minted)
    assert profile(stack, old) == 200
    records.query(stack, "UPDATE users SET credentials_changed_at = now() WHERE id = $1", person.id)
    redis_call(stack, "incr", f"{stack.env['SVC_REDIS_PREFIX']}stamp:users")
    assert profile(stack, old) == 401
    assert profile(stack, tokens.mint(stack.key_dir, **minted)) == 200


def test_the_standing_check_answers_503_without_redis(stack: Stack) -> None:
    """Failing closed: a guard that cannot read its Redis cannot tell, and says so."""
    person = tf.create_person(stack)
    _, session = records.create_browser_session(stack, str(person.id))
    token = tokens.mint(
        stack.key_dir,
        issuer=stack.issuer,
        scopes=["idp:account:read"],
        subject=str(person.id),
        sid=session.sid,
    )
    entity = stack.start_service(
        "entity", {"SVC_REDIS_URL": f"redis://127.0.0.1:{infra.closed_port()}/0"}
    )
    try:
        stack.wait_until_up(entity, "/health/live")
        headers = {"Authorization": f"Bearer {token}"}
        answer = httpx.get(entity.url + PROFILE, headers=headers, timeout=30)
    finally:
        entity.stop()
        stack.processes.remove(entity)
    assert answer.status_code == 503, answer.text
    assert answer.headers.get("retry-after")
