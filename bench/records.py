"""The records a benchmark run needs, written into the run's own database and Redis.

Clients, people and browser sessions come from ``tests.harness.records`` (the same
models and repositories the services use). Here: an API with one scope (the
client_credentials grant issues API scopes only), refresh tokens in bulk (the rows
``idp_common.storage.repos.refresh_tokens.issue_refresh_token`` writes, a thousand per statement)
and sign-in challenges (``idp_common.state.sessions.SessionStore``, as GET /oauth2/authorize
stores them).
"""

from __future__ import annotations

import base64
import json
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, quote, urlsplit

import httpx
from redis.asyncio import Redis
from sqlalchemy import insert, select, update

from idp_common.protocol.constants import (
    ACR_ONE_FACTOR,
    AMR_PASSWORD,
    REFRESH_TOKEN_TTL_SECONDS,
    SESSION_COOKIE_NAME,
)
from idp_common.protocol.oidc_core_claims import digest
from idp_common.state.challenges import Challenge
from idp_common.state.sessions import SessionStore
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.models import Api, Client, RefreshToken, Scope, UserScope
from tests.harness import infra, records
from tests.harness.records import TestClient, TestUser, pkce_pair
from tests.harness.stack import Stack

API_SCOPE = "bench:read"
CODE_SCOPE = "openid profile email"
REFRESH_SCOPE = "openid profile email offline_access"
BATCH = 1000


@dataclass
class Session:
    cookie: str  # "svc_session=<value>"
    sid: str
    user_id: str


@dataclass
class Fixtures:
    client: TestClient
    users: list[TestUser]
    sessions: list[Session]
    #: What the rows ask for: client_credentials, the code flow, the refresh tokens.
    api_scope: str = API_SCOPE
    code_scope: str = CODE_SCOPE
    refresh_scope: str = REFRESH_SCOPE

    @property
    def basic(self) -> str:
        pair = f"{quote(self.client.client_id, safe='')}:{quote(self.client.secret or '', safe='')}"
        return "Basic " + base64.b64encode(pair.encode()).decode()


async def _create_api(stack: Stack) -> None:
    engine = create_engine(stack.database_url)
    try:
        async with create_session_factory(engine).begin() as db:
            api = Api(name="Benchmark API", audience=stack.issuer.rstrip("/") + "/bench-api")
            db.add(api)
            await db.flush()
            db.add(Scope(api_id=api.id, value=API_SCOPE, description="Read benchmark data"))
    finally:
        await engine.dispose()


def create_fixtures(
    stack: Stack, *, users: int, sessions: int, backchannel_logout_uri: str | None = None
) -> Fixtures:
    """One confidential skip_consent client with all three grants (and the back-channel
    logout URI given), people, sessions."""
    infra.run(_create_api(stack))
    client = records.create_client(
        stack,
        scopes=("openid", "profile", "email", "offline_access", API_SCOPE),
        skip_consent=True,
        grant_types=("client_credentials", "authorization_code", "refresh_token"),
        backchannel_logout_uri=backchannel_logout_uri,
    )
    people = [records.create_user(stack, password=secrets.token_urlsafe(12)) for _ in range(users)]
    made = []
    for i in range(sessions):
        person = people[i % len(people)]
        cookie, session = records.create_browser_session(stack, person.id)
        made.append(Session(f"{SESSION_COOKIE_NAME}={cookie}", session.sid, person.id))
    return Fixtures(client, people, made)


async def _issue_refresh_tokens(
    stack: Stack, client_id: str, sessions: list[Session], n: int, scope: str
) -> list[str]:
    engine = create_engine(stack.database_url)
    tokens: list[str] = []
    now = datetime.now(UTC)
    try:
        factory = create_session_factory(engine)
        async with factory() as db:
            client_pk = (
                await db.execute(select(Client.id).where(Client.client_id == client_id))
            ).scalar_one()
        for start in range(0, n, BATCH):
            rows = []
            for i in range(start, min(n, start + BATCH)):
                session = sessions[i % len(sessions)]
                token = secrets.token_urlsafe(32)
                tokens.append(token)
                rows.append(
                    {
                        "token_digest": digest(token),
                        "family_id": uuid.uuid4(),
                        "grant_id": None,
                        "parent_id": None,
                        "client_pk": client_pk,
                        "user_id": uuid.UUID(session.user_id),
                        "scope": scope,
                        "session_sid": session.sid,
                        "auth_time": now,
                        "acr": ACR_ONE_FACTOR,
                        "amr": [AMR_PASSWORD],
                        "issued_at": now,
                        "expires_at": now + timedelta(seconds=REFRESH_TOKEN_TTL_SECONDS),
                    }
                )
            async with factory.begin() as db:
                await db.execute(insert(RefreshToken), rows)
    finally:
        await engine.dispose()
    return tokens


def issue_refresh_tokens(stack: Stack, fixtures: Fixtures, n: int) -> list[str]:
    """``n`` refresh tokens, each the first of its own family, spread over the sessions."""
    return infra.run(
        _issue_refresh_tokens(
            stack, fixtures.client.client_id, fixtures.sessions, n, fixtures.refresh_scope
        )
    )


async def _api_for_alg(stack: Stack, alg: str, scope: str, users: list[TestUser]) -> None:
    engine = create_engine(stack.database_url)
    try:
        async with create_session_factory(engine).begin() as db:
            api = Api(
                name=f"Benchmark API {alg}",
                audience=stack.issuer.rstrip("/") + f"/bench-api-{alg.lower()}",
                access_token_signing_alg=alg,
            )
            db.add(api)
            await db.flush()
            scope_row = Scope(api_id=api.id, value=scope, description=f"Read ({alg})")
            db.add(scope_row)
            await db.flush()
            for person in users:
                db.add(UserScope(user_id=uuid.UUID(person.id), scope_id=scope_row.id))
    finally:
        await engine.dispose()


async def _id_token_alg(stack: Stack, client_id: str, alg: str) -> None:
    engine = create_engine(stack.database_url)
    try:
        async with create_session_factory(engine).begin() as db:
            await db.execute(
                update(Client)
                .where(Client.client_id == client_id)
                .values(id_token_signed_response_alg=alg)
            )
    finally:
        await engine.dispose()


def access_token_alg(stack: Stack, fixtures: Fixtures) -> str:
    """The ``alg`` of a client_credentials access token for ``fixtures`` (a check that
    the rows measure the algorithm they name)."""
    answer = httpx.post(
        stack.service_url("token") + "/oauth2/token",
        data={"grant_type": "client_credentials", "scope": fixtures.api_scope},
        headers={"Authorization": fixtures.basic},
        timeout=10,
    )
    if answer.status_code != 200:
        return f"nothing (the token endpoint answered {answer.status_code})"
    header = answer.json()["access_token"].split(".")[0]
    return str(json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["alg"])


def fixtures_for_alg(stack: Stack, base: Fixtures, alg: str) -> Fixtures:
    """An API whose access tokens ``alg`` signs (the people hold its scope) and a client of
    its own whose ID tokens ``alg`` signs; the people and sessions of ``base``. The code
    flow and the refresh tokens ask for the API's scope too, so both of their tokens are
    signed with ``alg`` (the provider's own API, also named, leaves the choice to it)."""
    scope = f"bench-{alg.lower()}:read"
    infra.run(_api_for_alg(stack, alg, scope, base.users))
    client = records.create_client(
        stack,
        scopes=("openid", "profile", "email", "offline_access", scope),
        skip_consent=True,
        grant_types=("client_credentials", "authorization_code", "refresh_token"),
    )
    infra.run(_id_token_alg(stack, client.client_id, alg))
    return Fixtures(
        client,
        base.users,
        base.sessions,
        api_scope=scope,
        code_scope=f"{CODE_SCOPE} {scope}",
        refresh_scope=f"{REFRESH_SCOPE} {scope}",
    )


async def _create_challenges(stack: Stack, client: TestClient, n: int) -> list[str]:
    redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
    try:
        store = SessionStore(redis, stack.env["SVC_REDIS_PREFIX"])
        ids = []
        for _ in range(n):
            challenge = Challenge(
                id="",
                client_id=client.client_id,
                redirect_uri=client.redirect_uri,
                scopes=CODE_SCOPE.split(),
                state=secrets.token_urlsafe(8),
                nonce=secrets.token_urlsafe(8),
            )
            await store.save_challenge(challenge)
            ids.append(challenge.id)
        return ids
    finally:
        await redis.aclose()


def create_challenges(stack: Stack, fixtures: Fixtures, n: int) -> list[list[str]]:
    """``n`` sign-in challenges at step ``password`` → [challenge, email, password] items."""
    ids = infra.run(_create_challenges(stack, fixtures.client, n))
    people = fixtures.users
    return [
        [cid, people[i % len(people)].email, people[i % len(people)].password]
        for i, cid in enumerate(ids)
    ]


def challenge_via_authorize(stack: Stack, fixtures: Fixtures) -> str | None:
    """The challenge id GET /oauth2/authorize (no session) puts in its redirect, if any."""
    answer = httpx.get(
        stack.service_url("token") + "/oauth2/authorize",
        params=code_request(fixtures.client, CODE_SCOPE, None),
        timeout=10,
    )
    location = answer.headers.get("location", "")
    values = parse_qs(urlsplit(location).query).get("challenge")
    return values[0] if answer.status_code == 302 and values else None


def code_request(client: TestClient, scope: str, code_challenge: str | None) -> dict[str, str]:
    params = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": client.redirect_uri,
        "scope": scope,
        "state": secrets.token_urlsafe(8),
    }
    if code_challenge:
        params |= {"code_challenge": code_challenge, "code_challenge_method": "S256"}
    return params


def access_token_from_endpoint(stack: Stack, fixtures: Fixtures) -> tuple[str | None, str]:
    """One code flow against the running token service → (access token or None, how)."""
    base = stack.service_url("token")
    verifier, challenge = pkce_pair()
    with httpx.Client(base_url=base, timeout=10) as http:
        first = http.get(
            "/oauth2/authorize",
            params=code_request(fixtures.client, CODE_SCOPE, challenge),
            headers={"Cookie": fixtures.sessions[0].cookie},
        )
        codes = parse_qs(urlsplit(first.headers.get("location", "")).query).get("code")
        if first.status_code != 302 or not codes:
            return None, f"authorize answered {first.status_code} {first.text[:200]!r}"
        second = http.post(
            "/oauth2/token",
            data={
                "grant_type": "authorization_code",
                "code": codes[0],
                "redirect_uri": fixtures.client.redirect_uri,
                "code_verifier": verifier,
            },
            headers={"Authorization": fixtures.basic},
        )
        if second.status_code != 200 or "access_token" not in second.text:
            return None, f"token answered {second.status_code} {second.text[:200]!r}"
        return str(second.json()["access_token"]), "code flow at the token endpoint"
