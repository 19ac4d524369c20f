"""Attack 4: Unauthenticated Redis fill through ``/oauth2/authorize``.

Every ``GET /oauth2/authorize`` of a registered client without a session stores a sign-in
challenge in Redis for 600 s, and nothing limited how many: one address looping on the
endpoint (no account, no cookie, no secret needed) fills Redis, up to evicting or
refusing the sessions and revocations kept beside the challenges. Each parameter could
also be 2,048 characters long, so one challenge weighed about 8 KB.

What must hold now:

- one address gets a bounded number of challenges per minute (``SVC_CHALLENGE_PER_IP``,
  60 by default; then 429 with ``Retry-After``), and at most 50 live ones: a newer
  challenge pushes the address's oldest out;
- a parameter beyond its documented bound is a 400 page naming it, which does not echo
  the value and stores nothing;
- the proxy's coarse per-address limit also covers ``/oauth2/authorize``.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from redis import Redis as SyncRedis
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from tests.harness import infra, records, snapshots
from tests.harness.stack import Stack
from tests.integration.token_fixtures import fresh_address

pytestmark = pytest.mark.integration

#: The defaults this test expects: SVC_CHALLENGE_PER_IP and the live challenges per address.
PER_MINUTE = 60
LIVE_PER_ADDRESS = 50


@pytest.fixture(scope="module")
def app(stack: Stack) -> records.TestClient:
    return records.create_client(stack)


def authorize_params(client: records.TestClient, **extra: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": client.redirect_uri,
        "scope": "openid profile",
        "state": "st",
        "nonce": "n",
        **extra,
    }


def token_service(stack: Stack, address: str) -> httpx.Client:
    """Straight to the token service from 127.0.0.1 (trusted), as ``address``."""
    return httpx.Client(
        base_url=stack.service_url("token"), timeout=15, headers={"X-Forwarded-For": address}
    )


async def _challenges(stack: Stack) -> set[str]:
    prefix = stack.env["SVC_REDIS_PREFIX"] + "challenge:"
    redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
    try:
        return {key.decode()[len(prefix) :] async for key in redis.scan_iter(match=prefix + "*")}
    finally:
        await redis.aclose()


def live_challenges(stack: Stack) -> set[str]:
    """The ids of every challenge stored under the stack's prefix now."""
    return infra.run(_challenges(stack))


def request_state(stack: Stack, address: str) -> dict[bytes, bytes | None]:
    """What an authorization request from ``address`` could leave in Redis: challenges,
    the per-address challenge index, and that address's counters. (Other keys of the run
    come and go with other tests' background work, such as coalesced audit counts.)"""
    return {
        key: value
        for key, value in snapshots.redis_snapshot(stack).items()
        if b"challenge" in key or address.encode() in key
    }


def challenge_of(response: httpx.Response) -> str | None:
    values = parse_qs(urlsplit(response.headers.get("location", "")).query).get("challenge")
    return values[0] if response.status_code == 302 and values else None


def test_one_address_cannot_fill_redis_with_challenges(
    stack: Stack, app: records.TestClient
) -> None:
    before = live_challenges(stack)
    with token_service(stack, fresh_address()) as http:
        answers = [http.get("/oauth2/authorize", params=authorize_params(app)) for _ in range(150)]
    created = live_challenges(stack) - before
    codes = [answer.status_code for answer in answers]
    assert len(created) <= LIVE_PER_ADDRESS, (
        f"150 anonymous requests from one address stored {len(created)} challenges "
        f"(answers: {sorted(set(codes))})"
    )
    assert codes[:PER_MINUTE] == [302] * PER_MINUTE
    refused = answers[-1]
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert refused.headers["content-type"].startswith("text/html")
    assert "too many" in refused.text.lower()
    assert "location" not in refused.headers


def test_a_newer_challenge_pushes_out_the_oldest_of_its_address(
    stack: Stack, app: records.TestClient
) -> None:
    with token_service(stack, fresh_address()) as http:
        ids = [
            challenge_of(http.get("/oauth2/authorize", params=authorize_params(app)))
            for _ in range(LIVE_PER_ADDRESS + 5)
        ]
    assert None not in ids
    live = live_challenges(stack)
    kept = [challenge for challenge in ids if challenge in live]
    assert kept == ids[5:], (
        f"{len(kept)} of the address's {len(ids)} challenges are still stored "
        f"(at most {LIVE_PER_ADDRESS} may be)"
    )
    # Another address is not affected by this one's bound.
    with token_service(stack, fresh_address()) as http:
        assert challenge_of(http.get("/oauth2/authorize", params=authorize_params(app)))


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("state", "s" * 1500),
        ("nonce", "n" * 1500),
        ("login_hint", "h" * 600 + "@example.com"),
        ("scope", "openid " + " ".join(f"x{i}" for i in range(400))),
        ("ui_locales", "en " * 200),
    ],
)
def test_an_oversized_parameter_is_refused_and_stores_nothing(
    stack: Stack, app: records.TestClient, name: str, value: str
) -> None:
    address = fresh_address()
    before = (snapshots.database_fingerprint(stack), request_state(stack, address))
    with token_service(stack, address) as http:
        response = http.get("/oauth2/authorize", params=authorize_params(app, **{name: value}))
    after = (snapshots.database_fingerprint(stack), request_state(stack, address))
    assert response.status_code == 400, (response.status_code, response.headers.get("location"))
    assert "location" not in response.headers
    assert response.headers["content-type"].startswith("text/html")
    assert name in response.text
    assert value not in response.text
    assert after == before


def test_an_oversized_form_post_is_refused_too(stack: Stack, app: records.TestClient) -> None:
    before = live_challenges(stack)
    with token_service(stack, fresh_address()) as http:
        response = http.post("/oauth2/authorize", data=authorize_params(app, state="s" * 1500))
    assert response.status_code == 400
    assert "state" in response.text
    assert live_challenges(stack) == before


def test_signed_in_requests_are_not_counted(stack: Stack) -> None:
    """The limit guards what is stored: a code issued from a live session stores no
    challenge, so an address past its limit still gets one."""
    first_party = records.create_client(stack, skip_consent=True)
    person = records.create_user(stack)
    cookie, _ = records.create_browser_session(stack, person.id)
    with token_service(stack, fresh_address()) as http:
        for _ in range(PER_MINUTE + 1):
            http.get("/oauth2/authorize", params=authorize_params(first_party))
        limited = http.get("/oauth2/authorize", params=authorize_params(first_party))
        assert limited.status_code == 429
        signed_in = http.get(
            "/oauth2/authorize",
            params=authorize_params(first_party),
            headers={"Cookie": f"svc_session={cookie}"},
        )
    assert signed_in.status_code == 302
    assert "code=" in signed_in.headers["location"]


@pytest.mark.e2e
def test_the_proxy_limits_authorize_per_address(stack: Stack) -> None:
    """nginx's coarse limit (like the one on /oauth2/token) in front of the service."""
    transport = httpx.HTTPTransport(local_address="127.0.0.41")
    query = {"response_type": "code", "client_id": "nobody", "redirect_uri": "http://x/cb"}
    with httpx.Client(base_url=stack.proxy_url, transport=transport, timeout=15) as client:

        def one(_: int) -> httpx.Response:
            return client.get("/oauth2/authorize", params=query)

        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(one, range(200)))
    refused = [answer for answer in answers if answer.status_code == 429]
    assert refused, f"200 requests in a burst from one address: {answers[-1].status_code}"
    assert refused[0].headers["retry-after"]
    assert refused[0].json()["code"] == "proxy.rate_limited"


def test_a_full_redis_refuses_new_challenges_and_keeps_sessions(
    stack: Stack, app: records.TestClient, tmp_path: Path
) -> None:
    """The security state runs on a Redis with a memory bound and ``noeviction``
    (deploy/redis/idp-redis.conf): a flood that fills it gets 503 with Retry-After, never
    a 500, and evicts nothing — the session and the revocation written before survive."""
    port = infra.free_port()
    server = subprocess.Popen(
        [
            shutil.which("redis-server") or "/usr/bin/redis-server",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--maxmemory-policy",
            "noeviction",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    prefix = stack.env["SVC_REDIS_PREFIX"] + "full:"
    try:
        redis = SyncRedis(port=port)
        for _ in range(100):
            try:
                redis.ping()
                break
            except RedisConnectionError:
                time.sleep(0.05)
        redis.set(f"{prefix}session:kept", b"{}")
        redis.set(f"{prefix}revoked-jti:kept", b"1")
        used = int(redis.info("memory")["used_memory"])
        redis.config_set("maxmemory", used + 1_500_000)
        overrides = {
            "SVC_REDIS_URL": f"redis://127.0.0.1:{port}/0",
            "SVC_REDIS_PREFIX": prefix,
            "SVC_CHALLENGE_PER_IP": "100000",
        }
        with stack.extra_service("token", overrides) as url:
            params = authorize_params(app, state="s" * 1000, nonce="n" * 500, login_hint="h" * 250)
            statuses: list[int] = []
            refused = None
            with httpx.Client(base_url=url, timeout=15) as client:
                for _ in range(3000):
                    answer = client.get(
                        "/oauth2/authorize",
                        params=params,
                        headers={"X-Forwarded-For": fresh_address()},
                    )
                    statuses.append(answer.status_code)
                    if answer.status_code != 302:
                        refused = answer
                        break
        assert refused is not None, "Redis never filled up"
        assert 500 not in statuses
        assert refused.status_code == 503, refused.text
        assert int(refused.headers["retry-after"]) >= 1
        assert redis.get(f"{prefix}session:kept") == b"{}"
        assert redis.get(f"{prefix}revoked-jti:kept") == b"1"
    finally:
        server.kill()
        server.wait(10)
