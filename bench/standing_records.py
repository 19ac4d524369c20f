"""The records of ``bench/standing_cost.py``: a confidential application, a person, and
access tokens from real code flows in live browser sessions.

Each token comes the way a browser's comes: a session as the sign-in API makes it
(``tests.harness.records.create_browser_session``), an authorization code issued in that
session as ``/oauth2/authorize`` issues it (``tests.integration.token_fixtures.create_code``,
PKCE S256), exchanged at the running token endpoint. So it carries the session's ``sid``,
and the checks of a token that stands (the session, the person, the client) run in full.

Two tokens: one whose session stays up for the whole run (the measured one), and one whose
session is then ended (``SessionStore.end_session``, as a logout does): the code of this
tree refuses it and the code of ``815a817`` still answers it, which tells the two apart
over HTTP.
"""

from __future__ import annotations

import base64
import json
import uuid
from dataclasses import dataclass
from typing import Any

import httpx
from redis.asyncio import Redis
from sqlalchemy import select

from idp_common.protocol.constants import SCOPE_IDP_ACCOUNT_READ
from idp_common.protocol.oidc_core_claims import session_sid
from idp_common.state.sessions import SessionStore
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.models import Client
from tests.harness import infra, records
from tests.harness.records import TestClient, TestUser
from tests.harness.stack import Stack
from tests.integration import token_fixtures

#: One token serves the three rows: ``openid`` for userinfo, ``email`` for its claims,
#: ``idp:account:read`` for ``GET /entity/profile``.
SCOPE = f"openid profile email {SCOPE_IDP_ACCOUNT_READ}"


@dataclass(frozen=True)
class Tokens:
    """What the rows send: the application's Basic credentials (introspection), the token
    that stands, and the token of an ended session."""

    basic: str
    standing: str
    ended: str
    claims: dict[str, Any]


def claims_of(token: str) -> dict[str, Any]:
    """A JWT's claims, unverified (the services verify it)."""
    segment = token.split(".")[1]
    decoded: dict[str, Any] = json.loads(
        base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    )
    return decoded


async def _client_pk(stack: Stack, client_id: str) -> uuid.UUID:
    engine = create_engine(stack.database_url)
    try:
        async with create_session_factory(engine)() as db:
            found = await db.scalar(select(Client.id).where(Client.client_id == client_id))
    finally:
        await engine.dispose()
    if found is None:
        raise RuntimeError(f"client {client_id} not stored")
    return found


def _token_in_new_session(
    stack: Stack, app: token_fixtures.AppClient, person: TestUser
) -> tuple[str, str]:
    """(access token, sid) of a code flow in a new browser session of ``person``."""
    cookie, session = records.create_browser_session(stack, person.id)
    if session.sid != session_sid(cookie):
        raise RuntimeError("the session's sid is not the one its cookie names")
    verifier, challenge = token_fixtures.pkce_pair()
    code = token_fixtures.create_code(
        stack,
        app,
        token_fixtures.Person(uuid.UUID(person.id), person.email, person.email.split("@")[0]),
        scope=SCOPE,
        challenge=challenge,
        session_id=cookie,
        redirect_uri=app.redirect_uri,
    )
    with httpx.Client(base_url=stack.service_url("token"), timeout=15) as http:
        answer = token_fixtures.exchange(
            http, app, code, verifier=verifier, redirect_uri=app.redirect_uri
        )
    if answer.status_code != 200 or "access_token" not in answer.text:
        raise RuntimeError(f"code exchange answered {answer.status_code}: {answer.text[:300]}")
    token = str(answer.json()["access_token"])
    if claims_of(token).get("sid") != session.sid:
        raise RuntimeError("the access token does not carry its session's sid")
    return token, session.sid


async def _end_session(stack: Stack, sid: str) -> None:
    redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
    try:
        store = SessionStore(redis, stack.env["SVC_REDIS_PREFIX"])
        record = await store.get_session_by_sid(sid)
        if record is None or not await store.end_session(record):
            raise RuntimeError(f"session {sid} was not live")
    finally:
        await redis.aclose()


def create_tokens(stack: Stack) -> Tokens:
    client: TestClient = records.create_client(
        stack, scopes=tuple(SCOPE.split()), skip_consent=True
    )
    if client.secret is None:
        raise RuntimeError("the application must be confidential")
    pk = infra.run(_client_pk(stack, client.client_id))
    app = token_fixtures.AppClient(client.client_id, client.secret, pk, client.redirect_uri)
    person = records.create_user(stack)
    standing, _ = _token_in_new_session(stack, app, person)
    ended, ended_sid = _token_in_new_session(stack, app, person)
    infra.run(_end_session(stack, ended_sid))
    basic = app.basic()["Authorization"]
    return Tokens(basic, standing, ended, claims_of(standing))
