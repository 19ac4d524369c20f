"""Helpers of the sign-in API tests: people, clients, challenges and sessions written
straight into the stack's own PostgreSQL and Redis (the admin API does not exist yet),
with unique names per test. Nothing is mocked.

Every helper is synchronous: each call runs its coroutine in a fresh event loop
(``infra.run``) with its own engine and Redis client, so tests stay plain functions.
"""

from __future__ import annotations

import email
import email.policy
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pyotp
from redis.asyncio import Redis
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.crypto.passwords import hash_password
from idp_common.crypto.secretbox import generate_key, parse_key, seal, totp_context
from idp_common.state.challenges import Challenge
from idp_common.state.sessions import BrowserSession, SessionStore
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.models import (
    Client,
    ClientScope,
    PasswordCredential,
    Scope,
    TotpCredential,
    User,
)
from tests.harness import infra
from tests.harness.stack import Stack

T = TypeVar("T")
#: A key for the run when the stack has none; the extra authui-api processes of the TOTP
#: tests get ``secrets_key_text(stack)`` as SVC_SECRETS_KEY either way.
_RUN_KEY_TEXT = generate_key()


def secrets_key_text(stack: Stack) -> str:
    return stack.env.get("SVC_SECRETS_KEY") or _RUN_KEY_TEXT


JSON_HEADERS = {"Content-Type": "application/json"}
PASSWORD = "violet-harbour-lantern-42"


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def fresh_address() -> str:
    """A fresh TEST-NET address: each test its own per-address rate-limit bucket."""
    n = uuid.uuid4().int
    return f"198.18.{n % 250 + 1}.{(n >> 8) % 250 + 1}"


# --- database and Redis ------------------------------------------------------------------
def in_db(stack: Stack, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    async def go() -> T:
        engine = create_engine(stack.database_url)
        try:
            async with create_session_factory(engine).begin() as session:
                return await work(session)
        finally:
            await engine.dispose()

    return infra.run(go())


def in_store(stack: Stack, work: Callable[[SessionStore], Awaitable[T]]) -> T:
    async def go() -> T:
        redis = Redis.from_url(infra.REDIS_URL)
        try:
            return await work(SessionStore(redis, stack.env["SVC_REDIS_PREFIX"]))
        finally:
            await redis.aclose()

    return infra.run(go())


def sql(stack: Stack, statement: str, **params: Any) -> list[Any]:
    async def work(session: AsyncSession) -> list[Any]:
        return list((await session.execute(text(statement), params)).all())

    return in_db(stack, work)


@dataclass
class Person:
    id: str
    email: str
    password: str
    totp_secret: str | None = None


def create_person(
    stack: Stack,
    *,
    password: str = PASSWORD,
    disabled: bool = False,
    totp: bool = False,
    email_address: str | None = None,
) -> Person:
    address = email_address or f"{unique('person')}@example.com"
    secret = pyotp.random_base32() if totp else None
    key = parse_key(secrets_key_text(stack))

    async def work(session: AsyncSession) -> str:
        user = User(email=address, username=unique("u"), display_name="Test Person")
        user.disabled = disabled
        session.add(user)
        await session.flush()
        session.add(PasswordCredential(user_id=user.id, hash=hash_password(password)))
        if secret is not None:
            session.add(
                TotpCredential(
                    user_id=user.id,
                    secret_encrypted=seal(secret.encode(), key=key, context=totp_context(user.id)),
                    confirmed_at=text("now()"),
                )
            )
        return str(user.id)

    return Person(in_db(stack, work), address, password, secret)


@dataclass
class RelyingParty:
    client_id: str
    name: str
    redirect_uri: str
    scopes: list[str] = field(default_factory=list)


def create_client(
    stack: Stack, *, skip_consent: bool = False, scopes: tuple[str, ...] = ("openid", "email")
) -> RelyingParty:
    client_id = unique("rp")
    redirect_uri = f"https://{client_id}.example.com/callback"

    async def work(session: AsyncSession) -> None:
        client = Client(
            client_id=client_id,
            name=f"App {client_id}",
            type="public",
            redirect_uris=[redirect_uri],
            grant_types=["authorization_code"],
            skip_consent=skip_consent,
        )
        session.add(client)
        await session.flush()
        ids = await session.scalars(select(Scope.id).where(Scope.value.in_(scopes)))
        session.add_all(ClientScope(client_pk=client.id, scope_id=i) for i in ids)

    in_db(stack, work)
    return RelyingParty(client_id, f"App {client_id}", redirect_uri, list(scopes))


def new_challenge(stack: Stack, rp: RelyingParty, **fields: Any) -> str:
    """Save a challenge as /oauth2/authorize would; return its id."""
    challenge = Challenge(
        id="",
        client_id=rp.client_id,
        redirect_uri=rp.redirect_uri,
        scopes=list(fields.pop("scopes", rp.scopes)),
        **fields,
    )

    async def work(store: SessionStore) -> str:
        await store.save_challenge(challenge)
        return challenge.id

    return in_store(stack, work)


def read_challenge(stack: Stack, challenge_id: str) -> Challenge | None:
    return in_store(stack, lambda store: store.get_challenge(challenge_id))


def sessions_of(stack: Stack, user_id: str) -> list[BrowserSession]:
    return in_store(stack, lambda store: store.list_sessions(user_id))


def start_session(stack: Stack, person: Person) -> tuple[str, BrowserSession]:
    """A live browser session of ``person`` (cookie value, record)."""

    async def work(store: SessionStore) -> tuple[str, BrowserSession]:
        return await store.create_session(
            user_id=person.id,
            auth_time=int(time.time()),
            amr=["pwd"],
            acr="urn:idp:acr:1fa",
            ip="127.0.0.1",
            user_agent="test",
        )

    return in_store(stack, work)


def audit_rows(stack: Stack, action: str, **where: str) -> list[Any]:
    clauses = " ".join(f"AND {column} = :{column}" for column in where)
    return sql(
        stack,
        f"SELECT actor, target, status_code, ip, detail FROM audit_events "  # noqa: S608
        f"WHERE action = :action {clauses} ORDER BY id",
        action=action,
        **where,
    )


def totp_now(secret: str, offset_steps: int = 0) -> str:
    return str(pyotp.TOTP(secret).generate_otp(int(time.time() // 30) + offset_steps))


# --- HTTP ----------------------------------------------------------------------------------
@contextmanager
def signin_client(base_url: str, *, address: str | None = None) -> Iterator[httpx.Client]:
    """A client from 127.0.0.1 (trusted) naming its own address in X-Forwarded-For."""
    headers = {"X-Forwarded-For": address or fresh_address()}
    with httpx.Client(base_url=base_url, headers=headers, timeout=20) as client:
        yield client


def post(client: httpx.Client, path: str, body: dict[str, Any], **kw: Any) -> httpx.Response:
    return client.post("/api/v1/auth" + path, json=body, **kw)


# --- mail --------------------------------------------------------------------------------
def wait_for_mail(directory: Path, count: int = 1, timeout: float = 15) -> list[EmailMessage]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        files = sorted(directory.glob("*.eml"))
        if len(files) >= count:
            return [
                email.message_from_bytes(f.read_bytes(), policy=email.policy.default)  # type: ignore[misc]
                for f in files
            ]
        time.sleep(0.1)
    raise AssertionError(f"expected {count} mail(s) in {directory}, found {len(files)}")


def mail_part(message: EmailMessage, subtype: str = "plain") -> str:
    """The text (or ``html``) part of a mail: the provider's mails are
    ``multipart/alternative`` of both (issue #28, docs/mail-templates.md)."""
    part = message.get_body((subtype,))
    assert part is not None, f"no text/{subtype} part in {message.get_content_type()}"
    content: str = part.get_content()
    return content
