"""Records and helpers for the token-endpoint tests (``test_token_*``, ``test_introspect*``,
``test_revoke*``, ``test_userinfo*``).

Clients, people, APIs and authorization codes are written straight into the stack's
database through the models and repositories the services use (the admin API does not
exist yet). Every name is unique, so test modules never share a record. Requests go
straight to the token service from 127.0.0.1, a trusted sender, each client with its
own ``X-Forwarded-For`` address so that the per-address limit never mixes tests.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import uuid
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from joserfc import jwt
from joserfc.errors import SecurityWarning
from joserfc.jwk import KeySet
from sqlalchemy import select, update

from idp_common.crypto.passwords import hash_password
from idp_common.protocol.oidc_core_claims import session_sid
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.hot_pool import HotPool
from idp_common.storage.db.models import (
    Api,
    AuthorizationCode,
    Client,
    ClientScope,
    ClientSecret,
    PasswordCredential,
    Scope,
    User,
    UserScope,
)
from idp_common.storage.repos.codes import create_authorization_code
from tests.harness import infra, records
from tests.harness.stack import Stack

OIDC = ("openid", "profile", "email", "offline_access")
REDIRECT = "https://app.example/cb"


@dataclass
class AppClient:
    client_id: str
    secret: str | None
    pk: uuid.UUID
    redirect_uri: str = REDIRECT

    def basic(self, secret: str | None = None) -> dict[str, str]:
        raw = f"{self.client_id}:{secret if secret is not None else self.secret}".encode()
        return {"Authorization": "Basic " + base64.b64encode(raw).decode()}

    def post_fields(self) -> dict[str, str]:
        fields = {"client_id": self.client_id}
        if self.secret:
            fields["client_secret"] = self.secret
        return fields


@dataclass
class Person:
    id: uuid.UUID
    email: str
    username: str


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def fresh_address() -> str:
    n = uuid.uuid4().int
    return f"198.19.{n % 250}.{(n >> 8) % 250 + 1}"


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


async def _db(stack: Stack, work: Any) -> Any:
    engine = create_engine(stack.database_url)
    try:
        async with create_session_factory(engine).begin() as db:
            return await work(db)
    finally:
        await engine.dispose()


def create_api(stack: Stack, scopes: Sequence[str], *, alg: str = "RS256") -> str:
    """A resource API with a unique audience owning ``scopes``, its access tokens signed
    with ``alg``; returns the audience."""
    audience = f"https://{unique('api')}.example"

    async def work(db: Any) -> str:
        api = Api(name=unique("api"), audience=audience, access_token_signing_alg=alg)
        db.add(api)
        await db.flush()
        for value in scopes:
            db.add(Scope(api_id=api.id, value=value, description=f"Use {value}"))
        return audience

    return infra.run(_db(stack, work))  # type: ignore[no-any-return]


def create_client(
    stack: Stack,
    *,
    public: bool = False,
    scopes: Sequence[str] = OIDC,
    grant_types: Sequence[str] = ("authorization_code", "refresh_token"),
    id_token_alg: str = "RS256",
    userinfo_alg: str | None = None,
) -> AppClient:
    client_id = unique("tok")
    secret = None if public else secrets.token_urlsafe(32)

    async def work(db: Any) -> AppClient:
        client = Client(
            client_id=client_id,
            name=f"Token test {client_id}",
            type="public" if public else "confidential",
            redirect_uris=[REDIRECT],
            post_logout_redirect_uris=[],
            grant_types=list(grant_types),
            id_token_signed_response_alg=id_token_alg,
            userinfo_signed_response_alg=userinfo_alg,
        )
        db.add(client)
        await db.flush()
        if secret is not None:
            db.add(
                ClientSecret(client_pk=client.id, digest=hashlib.sha256(secret.encode()).digest())
            )
        for scope_id in await db.scalars(select(Scope.id).where(Scope.value.in_(list(scopes)))):
            db.add(ClientScope(client_pk=client.id, scope_id=scope_id))
        return AppClient(client_id, secret, client.id)

    return infra.run(_db(stack, work))  # type: ignore[no-any-return]


def create_person(stack: Stack, *, scopes: Sequence[str] = ()) -> Person:
    username = unique("tokperson")
    email = f"{username}@example.com"

    async def work(db: Any) -> Person:
        user = User(
            email=email, username=username, display_name="Token Person", email_verified=True
        )
        db.add(user)
        await db.flush()
        db.add(PasswordCredential(user_id=user.id, hash=hash_password("correct horse battery")))
        for scope_id in await db.scalars(select(Scope.id).where(Scope.value.in_(list(scopes)))):
            db.add(UserScope(user_id=user.id, scope_id=scope_id))
        return Person(user.id, email, username)

    return infra.run(_db(stack, work))  # type: ignore[no-any-return]


def disable_person(stack: Stack, person: Person) -> None:
    async def work(db: Any) -> None:
        await db.execute(update(User).where(User.id == person.id).values(disabled=True))

    infra.run(_db(stack, work))


def create_code(
    stack: Stack,
    client: AppClient,
    person: Person,
    *,
    scope: str = "openid profile email offline_access",
    challenge: str | None = None,
    method: str | None = "S256",
    nonce: str | None = "n-0S6_WzA2Mj",
    session_id: str | None = None,
    redirect_uri: str = REDIRECT,
    expired: bool = False,
) -> str:
    """An authorization code as ``/oauth2/authorize`` issues it, in a live browser session
    of the person (``session_id``: that session's cookie value; a new one by default);
    ``expired`` backdates it."""
    now = datetime.now(UTC)
    sid = session_sid(session_id or secrets.token_urlsafe(16))
    records.stand_session(stack, sid, str(person.id), auth_time=int(now.timestamp()) - 30)

    async def work() -> str:
        pool = HotPool(stack.database_url, timeout=5.0)
        try:
            return await issue(pool)
        finally:
            await pool.aclose()

    async def issue(pool: HotPool) -> str:
        code: str = await create_authorization_code(
            pool,
            now=now - timedelta(seconds=120) if expired else now,
            client_pk=client.pk,
            user_id=person.id,
            redirect_uri=redirect_uri,
            scope=scope,
            nonce=nonce,
            code_challenge=challenge,
            code_challenge_method=method if challenge else None,
            session_sid=sid,
            auth_time=now - timedelta(seconds=30),
            acr="urn:idp:acr:1fa",
            amr=["pwd"],
        )
        return code

    return infra.run(work())


def code_rows(stack: Stack) -> int:
    async def work(db: Any) -> int:
        return len((await db.scalars(select(AuthorizationCode.code_digest))).all())

    return infra.run(_db(stack, work))  # type: ignore[no-any-return]


def token_http(stack: Stack) -> Iterator[httpx.Client]:
    """A client straight to the token service, with an address of its own."""
    with httpx.Client(
        base_url=stack.service_url("token"),
        timeout=15,
        headers={"X-Forwarded-For": fresh_address()},
    ) as client:
        yield client


def unverified_claims(token: str) -> dict[str, Any]:
    segment = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))  # type: ignore[no-any-return]


def validate_jwt(
    stack: Stack, token: str, jwks: dict[str, Any], alg: str = "RS256"
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Verify a JWT signed with ``alg`` (only) with joserfc against the stack's published
    JWKS (joserfc warns that EdDSA is deprecated by RFC 9864; the warning is expected)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SecurityWarning)
        decoded = jwt.decode(token, KeySet.import_key_set(jwks), algorithms=[alg])  # type: ignore[arg-type]
    return dict(decoded.header), dict(decoded.claims)


def exchange(
    http: httpx.Client,
    client: AppClient,
    code: str,
    *,
    verifier: str | None = None,
    redirect_uri: str = REDIRECT,
    auth: str = "basic",
) -> httpx.Response:
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
    if verifier is not None:
        form["code_verifier"] = verifier
    headers: dict[str, str] = {}
    if auth == "basic":
        headers = client.basic()
    else:
        form.update(client.post_fields())
    return http.post("/oauth2/token", data=form, headers=headers)


def refresh(http: httpx.Client, client: AppClient, token: str, **extra: str) -> httpx.Response:
    form = {"grant_type": "refresh_token", "refresh_token": token, **extra}
    if client.secret:
        return http.post("/oauth2/token", data=form, headers=client.basic())
    return http.post("/oauth2/token", data={**form, "client_id": client.client_id})


def introspect(http: httpx.Client, client: AppClient, token: str, **extra: str) -> httpx.Response:
    return http.post("/oauth2/introspect", data={"token": token, **extra}, headers=client.basic())
