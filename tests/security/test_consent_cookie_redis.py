"""Attack 17: consent for scopes never granted, a cookie a sibling host can set, and a
Redis that forgets.

- Consent was stored for every requested scope, not the subset this person could give:
  an application that asked for ``idp:users:read`` before the person held it got it
  silently (``prompt=none``) the day an administrator granted it. Consent now records only
  the granted scopes; a newly granted one is asked for again.
- The session cookie could not take the ``__Host-`` prefix, so a sibling subdomain could
  set or shadow ``svc_session``. With ``SVC_SESSION_COOKIE_HOST_PREFIX`` (production only)
  it is ``__Host-svc_session``: Secure, ``Path=/``, no ``Domain``, read back by every
  service.
- The Redis that holds revocations and sessions ran without persistence: a restart
  forgot every revoked token. The Redis of ``make up`` (deploy/redis/idp-redis.conf)
  writes an append-only file; a revoked token stays revoked across a crash.

- A Redis outage turned a bad bearer token at ``/admin/*`` or ``/entity/*`` into a 500:
  the guard's failed-authentication count raised. The limiter now fails open (a log line
  says the limit was not applied): a missing or bad token is 401, and a valid token, whose
  revocation cannot be checked, is never a 500 (503 with ``Retry-After``). The services
  here are real extra processes whose Redis address is a port where nothing listens.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from redis.asyncio import Redis

from idp_common.state.revocation import RevocationList
from idp_common.state.sessions import SessionStore
from tests.harness import infra, oidc, records, tokens
from tests.harness.stack import ROOT, Stack
from tests.integration.signin_fixtures import (
    create_client,
    create_person,
    fresh_address,
    new_challenge,
    post,
    signin_client,
)

pytestmark = pytest.mark.integration
USERS_READ = "idp:users:read"
REDIS_CONF = ROOT / "deploy/redis/idp-redis.conf"
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


# --- consent -----------------------------------------------------------------------------


def test_consent_covers_only_what_was_granted(stack: Stack) -> None:
    person = records.create_user(stack)
    app = records.create_client(stack, scopes=("openid", USERS_READ))
    with oidc.Browser(stack) as browser:
        authorization = oidc.Authorization(app)
        params = authorization.params(f"openid {USERS_READ}")
        to_login = browser.get("/oauth2/authorize", params=params)
        challenge = oidc.query_of(to_login.headers["location"])["challenge"]
        step = browser.post(
            "/api/v1/auth/login",
            json={"challenge": challenge, "email": person.email, "password": person.password},
        )
        assert step.json()["next"] == "consent", step.text
        shown = browser.get(f"/api/v1/auth/challenge/{challenge}").json()
        step = browser.post("/api/v1/auth/consent", json={"challenge": challenge, "approve": True})
        assert step.status_code == 200, step.text
        [row] = records.query(
            stack, "SELECT scopes FROM consents WHERE user_id = $1", uuid.UUID(person.id)
        )
        assert row["scopes"] == ["openid"]
        assert [s["value"] for s in shown["scopes"]] == ["openid"]  # what the page asked

        # An administrator grants the person the scope later: the application must ask.
        records.query(
            stack,
            "INSERT INTO user_scopes (user_id, scope_id) "
            "SELECT $1, id FROM scopes WHERE value = $2",
            uuid.UUID(person.id),
            USERS_READ,
        )
        silent = browser.get(
            "/oauth2/authorize",
            params={**oidc.Authorization(app).params(f"openid {USERS_READ}"), "prompt": "none"},
        )
    assert silent.status_code in (302, 303)
    answer = oidc.query_of(silent.headers["location"])
    assert "code" not in answer, answer
    assert answer["error"] == "consent_required"


# --- the __Host- cookie ------------------------------------------------------------------


@pytest.fixture(scope="module")
def host_prefixed(stack: Stack) -> Iterator[tuple[str, str]]:
    """An authui-api and a token service in production mode with the __Host- cookie."""
    overrides = {"SVC_ENV": "prod", "SVC_SESSION_COOKIE_HOST_PREFIX": "true"}
    with (
        stack.extra_service("authui-api", overrides) as authui,
        stack.extra_service("token", overrides) as token,
    ):
        yield authui, token


def test_the_session_cookie_can_be_host_prefixed(
    stack: Stack, host_prefixed: tuple[str, str]
) -> None:
    authui, token = host_prefixed
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        answer = post(
            client,
            "/login",
            {"challenge": challenge, "email": person.email, "password": person.password},
        )
    assert answer.status_code == 200, answer.text
    set_cookie = answer.headers["set-cookie"]
    name, _, rest = set_cookie.partition("=")
    assert name == "__Host-svc_session", set_cookie
    attributes = {part.strip().split("=")[0].lower() for part in rest.split(";")[1:]}
    assert {"path", "httponly", "samesite", "secure"} <= attributes
    assert "domain" not in attributes
    value = rest.split(";", 1)[0]

    # The token service reads the same cookie: the challenge completes into a code.
    with httpx.Client(base_url=token, timeout=20, follow_redirects=False) as client:
        plain = client.get(
            "/oauth2/authorize",
            params={"challenge": challenge},
            headers={"Cookie": f"svc_session={value}", "X-Forwarded-For": fresh_address()},
        )
        issued = client.get(
            "/oauth2/authorize",
            params={"challenge": challenge},
            headers={"Cookie": f"__Host-svc_session={value}", "X-Forwarded-For": fresh_address()},
        )
    assert plain.status_code == 400  # the unprefixed name is not this deployment's cookie
    assert issued.status_code == 302, issued.text
    assert "code" in oidc.query_of(issued.headers["location"])


# --- Redis that remembers ----------------------------------------------------------------


def start_redis(port: int, data: Path) -> subprocess.Popen[bytes]:
    """The Redis ``make up`` runs (deploy/redis/idp-redis.conf); before that file existed,
    ``make up`` ran ``--save "" --appendonly no``."""
    if REDIS_CONF.is_file():
        command = [REDIS_SERVER, str(REDIS_CONF), "--port", str(port), "--dir", str(data)]
    else:
        command = [REDIS_SERVER, "--port", str(port), "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if asyncio.run(_ping(port)):
                return process
        except OSError:
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError("redis-server did not start")


async def _ping(port: int) -> bool:
    redis = Redis(port=port, socket_connect_timeout=0.5)
    try:
        return bool(await redis.ping())
    except Exception:
        return False
    finally:
        await redis.aclose()


def test_revocations_and_sessions_survive_a_redis_crash(tmp_path: Path) -> None:
    port = infra.free_port()
    data = tmp_path / "redis"
    data.mkdir()
    prefix = "idp_t_durable:"
    now = int(time.time())

    async def write() -> str:
        redis = Redis(port=port)
        try:
            await RevocationList(redis, prefix).revoke_jti("jti-1", exp=now + 600, now=now)
            _, session = await SessionStore(redis, prefix).create_session(
                user_id=str(uuid.uuid4()),
                auth_time=now,
                amr=["pwd"],
                acr="urn:idp:acr:1fa",
                ip="127.0.0.1",
                user_agent="test",
            )
            return session.sid
        finally:
            await redis.aclose()

    async def read(sid: str) -> tuple[bool, bool]:
        redis = Redis(port=port)
        try:
            revoked = await RevocationList(redis, prefix).is_revoked("jti-1")
            alive = await SessionStore(redis, prefix).get_session_by_sid(sid) is not None
            return revoked, alive
        finally:
            await redis.aclose()

    first = start_redis(port, data)
    try:
        sid = asyncio.run(write())
        time.sleep(1.5)  # appendfsync everysec: on disk within a second
        os.kill(first.pid, signal.SIGKILL)  # a crash, not a clean shutdown
        first.wait(10)
        second = start_redis(port, data)
        try:
            revoked, alive = asyncio.run(read(sid))
        finally:
            second.kill()
            second.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
    assert revoked, "the revoked token is valid again after the restart"
    assert alive, "the session ended with the restart"


# --- a bad bearer token while Redis is down ---------------------------------------------

ROUTES = {"admin": "/admin/audit", "entity": "/entity/profile"}
SCOPES = {"admin": ["idp:audit:read"], "entity": ["idp:account:read"]}


def start_without_redis(stack: Stack, service: str) -> str:
    process = stack.start_service(
        service, {"SVC_REDIS_URL": f"redis://127.0.0.1:{infra.closed_port()}/0"}
    )
    stack.wait_until_up(process, "/health/live")
    return process.url


@pytest.mark.parametrize("service", sorted(ROUTES))
def test_a_bad_token_is_401_while_redis_is_down(extra_processes: Stack, service: str) -> None:
    url = start_without_redis(extra_processes, service)
    path = ROUTES[service]
    with httpx.Client(base_url=url, timeout=15) as client:
        for authorization in ("Bearer not.a.token", "Bearer", None):
            headers = {"Authorization": authorization} if authorization else {}
            answer = client.get(path, headers=headers)
            assert answer.status_code == 401, (authorization, answer.status_code, answer.text)
            assert answer.headers["content-type"] == "application/problem+json"
            assert answer.headers["www-authenticate"].startswith("Bearer ")
        # A token signed by the provider's key: the revocation list cannot be read, which is
        # a dependency failure (503 with Retry-After) or, where nothing needs it, a success.
        token = tokens.mint(extra_processes.key_dir, issuer=extra_processes.issuer,
                            scopes=SCOPES[service])  # fmt: skip
        valid = client.get(path, headers={"Authorization": f"Bearer {token}"})
        assert valid.status_code != 500, valid.text
        if valid.status_code == 503:
            assert valid.headers["retry-after"]
