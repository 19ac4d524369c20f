"""Attack 5: A Redis failure during refresh revokes the family.

The refresh grant spent the presented refresh token and stored its successor in Postgres
(one statement, committed at once), then wrote the new access token's ``jti`` to Redis.
When that Redis write failed the client got a 500, and its retry with the old refresh
token looked like reuse: the whole family was revoked and the person signed out of the
application. An attacker who can make Redis refuse writes for a moment (fill it up to its
``maxmemory``) signs people out; an ordinary Redis hiccup does the same. The code grant
had the same flaw: the code was burnt first, so the retry was taken for a replay.

Here a token service runs against a Redis of the test's own, which is made to refuse
writes (``maxmemory`` reached under ``noeviction``: the real error a full Redis gives) at
the moment the grant writes to it. What must hold: the answer is 503
``temporarily_unavailable`` with ``Retry-After`` (never 500), nothing is spent, and once
Redis accepts writes again the same refresh token (or code) works and nothing is revoked.
With Redis gone altogether, the token, revocation and introspection endpoints answer 503
too.
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import msgspec
import pytest
import redis

from idp_common.protocol.oidc_core_claims import session_sid
from idp_common.state.sessions import BrowserSession
from tests.harness import infra, records
from tests.harness.stack import Process, Stack
from tests.integration import token_fixtures as tf

pytestmark = pytest.mark.integration


@dataclass
class OwnRedis:
    process: Process
    client: redis.Redis

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.process.port}/0"

    def refuse_writes(self) -> None:
        """Every command that may add memory fails with ``OOM command not allowed``."""
        self.client.config_set("maxmemory", 1)

    def accept_writes(self) -> None:
        self.client.config_set("maxmemory", 0)


@dataclass
class Service:
    http: httpx.Client
    redis: OwnRedis


def _start_redis(stack: Stack) -> OwnRedis:
    port = infra.free_port()
    command = [
        *("redis-server", "--port", str(port), "--bind", "127.0.0.1"),
        *("--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"),
    ]
    process = stack.spawn("own-redis", command, port, {})
    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)
    deadline = time.monotonic() + 20
    while True:
        try:
            client.ping()
            return OwnRedis(process, client)
        except redis.ConnectionError:
            if time.monotonic() > deadline or process.popen.poll() is not None:
                raise
            time.sleep(0.05)


@pytest.fixture
def service(extra_processes: Stack) -> Iterator[Service]:
    """A token service of its own whose Redis the test controls."""
    own = _start_redis(extra_processes)
    process = extra_processes.start_service("token", {"SVC_REDIS_URL": own.url})
    extra_processes.wait_until_up(process)
    headers = {"X-Forwarded-For": tf.fresh_address()}
    with httpx.Client(base_url=process.url, timeout=30, headers=headers) as http:
        yield Service(http, own)
    own.client.close()


@pytest.fixture
def app(stack: Stack) -> tf.AppClient:
    return tf.create_client(stack)


@pytest.fixture
def person(stack: Stack) -> tf.Person:
    return tf.create_person(stack)


def _code(
    stack: Stack, service: Service, app: tf.AppClient, person: tf.Person, challenge: str
) -> str:
    """A code issued in a live session, which the service's own Redis holds too (the
    refresh tokens it buys stand on that session)."""
    cookie = secrets.token_urlsafe(16)
    code = tf.create_code(
        stack, app, person, challenge=challenge, scope="openid offline_access", session_id=cookie
    )
    now = int(time.time())
    sid = session_sid(cookie)
    record = BrowserSession(
        sid=sid,
        user_id=str(person.id),
        auth_time=now,
        amr=["pwd"],
        acr="urn:idp:acr:1fa",
        created_at=now,
        last_seen=now,
    )
    key = f"{stack.env['SVC_REDIS_PREFIX']}session:{sid}"
    service.redis.client.set(key, msgspec.json.encode(record), ex=3600)
    return code


def _exchange(stack: Stack, service: Service, app: tf.AppClient, person: tf.Person) -> str:
    verifier, challenge = tf.pkce_pair()
    code = _code(stack, service, app, person, challenge)
    tokens = tf.exchange(service.http, app, code, verifier=verifier)
    assert tokens.status_code == 200, tokens.text
    return str(tokens.json()["refresh_token"])


def _family(stack: Stack, person: tf.Person) -> list[dict[str, object]]:
    return records.query(
        stack,
        "SELECT spent_at, revoked_at FROM refresh_tokens WHERE user_id = $1 ORDER BY issued_at",
        person.id,
    )


def _assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, (response.status_code, response.text)
    assert response.json()["error"] == "temporarily_unavailable"
    assert int(response.headers["retry-after"]) >= 1


def test_a_refresh_that_redis_refuses_leaves_the_old_token_usable(
    stack: Stack, service: Service, app: tf.AppClient, person: tf.Person
) -> None:
    old = _exchange(stack, service, app, person)
    service.redis.refuse_writes()
    failed = tf.refresh(service.http, app, old)
    service.redis.accept_writes()
    retried = tf.refresh(service.http, app, old)
    family = _family(stack, person)
    outcome = (
        failed.status_code,
        retried.status_code,
        [row["revoked_at"] is not None for row in family],
    )
    # 503, the retry rotates, nothing revoked: the old token spent once, by the retry.
    assert outcome == (503, 200, [False, False]), (outcome, failed.text, retried.text)
    _assert_unavailable(failed)
    assert [row["spent_at"] is not None for row in family] == [True, False]
    assert tf.refresh(service.http, app, retried.json()["refresh_token"]).status_code == 200


def test_a_code_exchange_that_redis_refuses_is_not_taken_for_a_replay(
    stack: Stack, service: Service, app: tf.AppClient, person: tf.Person
) -> None:
    verifier, challenge = tf.pkce_pair()
    code = _code(stack, service, app, person, challenge)
    service.redis.refuse_writes()
    failed = tf.exchange(service.http, app, code, verifier=verifier)
    service.redis.accept_writes()
    retried = tf.exchange(service.http, app, code, verifier=verifier)
    outcome = (failed.status_code, retried.status_code)
    assert outcome == (503, 200), (outcome, failed.text, retried.text)
    _assert_unavailable(failed)
    family = _family(stack, person)
    assert [row["revoked_at"] for row in family] == [None], family  # one family, live
    assert tf.refresh(service.http, app, retried.json()["refresh_token"]).status_code == 200


def test_a_reuse_that_redis_refuses_is_revoked_when_retried(
    stack: Stack, service: Service, app: tf.AppClient, person: tf.Person
) -> None:
    """Reuse must revoke the family and the grant's access tokens together: when Redis
    cannot list the access tokens, nothing is committed and the retry does both."""
    old = _exchange(stack, service, app, person)
    rotated = tf.refresh(service.http, app, old).json()
    service.redis.refuse_writes()
    failed = tf.refresh(service.http, app, old)
    service.redis.accept_writes()
    _assert_unavailable(failed)
    assert [row["revoked_at"] for row in _family(stack, person)] == [None, None]
    again = tf.refresh(service.http, app, old)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant", again.text
    assert all(row["revoked_at"] is not None for row in _family(stack, person))
    introspected = tf.introspect(service.http, app, rotated["access_token"])
    assert introspected.json() == {"active": False}


def test_without_redis_the_oauth_endpoints_answer_503_never_500(
    stack: Stack, service: Service, app: tf.AppClient, person: tf.Person
) -> None:
    http = service.http
    old = _exchange(stack, service, app, person)
    access = tf.refresh(http, app, old).json()
    verifier, challenge = tf.pkce_pair()
    code = tf.create_code(stack, app, person, challenge=challenge)
    service.redis.process.stop()
    answers = {
        "refresh": tf.refresh(http, app, access["refresh_token"]),
        "code": tf.exchange(http, app, code, verifier=verifier),
        "introspect": tf.introspect(http, app, access["access_token"]),
        "revoke access token": http.post(
            "/oauth2/revoke", data={"token": access["access_token"]}, headers=app.basic()
        ),
        "revoke refresh token": http.post(
            "/oauth2/revoke", data={"token": access["refresh_token"]}, headers=app.basic()
        ),
        "unknown client": http.post(
            "/oauth2/introspect",
            data={"token": "x"},
            headers=tf.AppClient(f"nobody-{uuid.uuid4().hex[:6]}", "s", uuid.uuid4()).basic(),
        ),
    }
    statuses = {name: answer.status_code for name, answer in answers.items()}
    assert 500 not in statuses.values(), statuses
    for name in ("refresh", "code", "introspect", "revoke access token", "revoke refresh token"):
        _assert_unavailable(answers[name])
    assert statuses["unknown client"] == 401


def test_the_test_redis_refuses_writes_for_real(service: Service) -> None:
    """The failure played above is Redis's own (not a stand-in)."""
    service.redis.refuse_writes()
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        service.redis.client.set("k", "v")
    service.redis.accept_writes()
    assert service.redis.client.set("k", "v")
