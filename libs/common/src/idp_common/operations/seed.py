"""What the operator tool writes: the scope catalogue, the first administrator, cleanup.

``seed_catalogue`` (DESIGN.md "The provider's own API and its permissions"): the ``idp``
API with audience ``{SVC_ISSUER}/api``, every ``idp:*`` scope, the ``administrator``
role holding every admin scope, and the ``console`` client (DESIGN.md "Wire contracts").
It only inserts what is missing (``ON CONFLICT DO NOTHING``), so a second run changes
nothing, and a release that adds scopes hands them to ``administrator`` on the next run
(spec §5 rule 3, §9 rule 5).

``cleanup_expired`` is ``idp cleanup``: one run of :mod:`idp_common.operations.cleanup`.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.config import Settings
from idp_common.crypto.passwords import hash_password_async, verify_password_async
from idp_common.operations.cleanup import delete_expired
from idp_common.protocol.constants import (
    ADMIN_SCOPES,
    GRANT_TYPE_AUTHORIZATION_CODE,
    GRANT_TYPE_REFRESH_TOKEN,
    IDP_API_NAME,
    IDP_SCOPE_DESCRIPTIONS,
    SCOPE_EMAIL,
    SCOPE_OPENID,
    SCOPE_PROFILE,
    SELF_SERVICE_SCOPES,
)
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.models import (
    Api,
    Client,
    ClientScope,
    PasswordCredential,
    Role,
    RoleScope,
    Scope,
    User,
    UserRole,
)
from idp_common.storage.repos.audit import AuditEntry, write_audit

ADMIN_ROLE = "administrator"
CONSOLE_CLIENT_ID = "console"
OPERATOR_ACTOR = "operator:cli"


async def _in_transaction(settings: Settings, work: Any) -> Any:
    engine = create_engine(settings.database_url)
    try:
        async with create_session_factory(engine).begin() as session:
            return await work(session)
    finally:
        await engine.dispose()


async def _ensure_api(session: AsyncSession, audience: str) -> uuid.UUID:
    await session.execute(
        insert(Api)
        .values(name=IDP_API_NAME, audience=audience)
        .on_conflict_do_nothing(index_elements=[Api.name])
    )
    # The audience follows SVC_ISSUER; rewritten only when the issuer changed.
    await session.execute(
        update(Api)
        .where(Api.name == IDP_API_NAME, Api.audience != audience)
        .values(audience=audience, updated_at=func.now())
    )
    return (await session.execute(select(Api.id).where(Api.name == IDP_API_NAME))).scalar_one()


async def _scope_ids(session: AsyncSession, values: tuple[str, ...]) -> list[uuid.UUID]:
    return list(await session.scalars(select(Scope.id).where(Scope.value.in_(values))))


async def seed_catalogue_in(session: AsyncSession, settings: Settings) -> dict[str, int]:
    """Insert what is missing; return how many rows of each kind were added."""
    api_id = await _ensure_api(session, settings.api_audience)
    idp_scopes = (*ADMIN_SCOPES, *SELF_SERVICE_SCOPES)
    added = await session.execute(
        insert(Scope)
        .values(
            [
                {"api_id": api_id, "value": v, "description": IDP_SCOPE_DESCRIPTIONS[v]}
                for v in idp_scopes
            ]
        )
        .on_conflict_do_nothing(index_elements=[Scope.value])
        .returning(Scope.id)
    )
    scopes_added = len(added.all())
    await session.execute(
        insert(Role)
        .values(name=ADMIN_ROLE, description="Full access to the administration API")
        .on_conflict_do_nothing(index_elements=[Role.name])
    )
    role_id = await session.scalar(select(Role.id).where(Role.name == ADMIN_ROLE))
    granted = await session.execute(
        insert(RoleScope)
        .values(
            [{"role_id": role_id, "scope_id": s} for s in await _scope_ids(session, ADMIN_SCOPES)]
        )
        .on_conflict_do_nothing()
        .returning(RoleScope.scope_id)
    )
    console = await _ensure_console(session, settings)
    console_scopes = (SCOPE_OPENID, SCOPE_PROFILE, SCOPE_EMAIL, *idp_scopes)
    linked = await session.execute(
        insert(ClientScope)
        .values(
            [
                {"client_pk": console, "scope_id": s}
                for s in await _scope_ids(session, console_scopes)
            ]
        )
        .on_conflict_do_nothing()
        .returning(ClientScope.scope_id)
    )
    return {
        "scopes added": scopes_added,
        "administrator grants added": len(granted.all()),
        "console scopes added": len(linked.all()),
    }


async def _ensure_console(session: AsyncSession, settings: Settings) -> uuid.UUID:
    base = settings.issuer_base
    redirect, post_logout = [f"{base}/console/callback"], [f"{base}/console/"]
    await session.execute(
        insert(Client)
        .values(
            client_id=CONSOLE_CLIENT_ID,
            name="Console",
            type="public",
            redirect_uris=redirect,
            post_logout_redirect_uris=post_logout,
            grant_types=[GRANT_TYPE_AUTHORIZATION_CODE, GRANT_TYPE_REFRESH_TOKEN],
            skip_consent=True,
        )
        .on_conflict_do_nothing(index_elements=[Client.client_id])
    )
    # The URIs follow SVC_ISSUER; rewritten only when the issuer changed.
    await session.execute(
        update(Client)
        .where(
            Client.client_id == CONSOLE_CLIENT_ID,
            (Client.redirect_uris != redirect) | (Client.post_logout_redirect_uris != post_logout),
        )
        .values(
            redirect_uris=redirect, post_logout_redirect_uris=post_logout, updated_at=func.now()
        )
    )
    query = select(Client.id).where(Client.client_id == CONSOLE_CLIENT_ID)
    return (await session.execute(query)).scalar_one()


async def seed_catalogue(settings: Settings) -> dict[str, int]:
    async def work(session: AsyncSession) -> dict[str, int]:
        return await seed_catalogue_in(session, settings)

    result: dict[str, int] = await _in_transaction(settings, work)
    return result


async def create_admin(
    settings: Settings, *, email: str, password: str | None
) -> tuple[bool, str | None]:
    """Create an administrator unless the address is taken; return (created, password).

    A generated password is returned so the tool can print it once; it is never logged.
    """
    if password is not None and len(password) < 8:
        raise ValueError("the administrator password must have at least 8 characters")
    chosen = password or secrets.token_urlsafe(18)
    password_hash = await hash_password_async(chosen)

    async def work(session: AsyncSession) -> tuple[bool, str | None]:
        role_id = await session.scalar(select(Role.id).where(Role.name == ADMIN_ROLE))
        if role_id is None:
            raise RuntimeError("the administrator role is missing: run `idp seed` first")
        existing = await session.scalar(
            select(User.id).where(func.lower(User.email) == email.lower())
        )
        if existing is not None:
            return False, None
        username_taken = await session.scalar(
            select(User.id).where(func.lower(User.username) == "admin")
        )
        user = User(
            email=email,
            username=None if username_taken else "admin",
            display_name="Administrator",
            email_verified=True,
        )
        session.add(user)
        await session.flush()
        session.add(PasswordCredential(user_id=user.id, hash=password_hash))
        session.add(UserRole(user_id=user.id, role_id=role_id))
        write_audit(
            session,
            AuditEntry(
                action="user.created",
                status_code=201,
                actor=OPERATOR_ACTOR,
                target_type="user",
                target=str(user.id),
                detail={"via": "create-admin", "role": ADMIN_ROLE},
            ),
        )
        return True, chosen

    result: tuple[bool, str | None] = await _in_transaction(settings, work)
    return result


async def admin_password_matches(settings: Settings, *, email: str, password: str) -> bool:
    """Whether ``password`` signs in as the account ``email`` (for ``make up``'s summary)."""

    async def work(session: AsyncSession) -> str | None:
        return await session.scalar(
            select(PasswordCredential.hash)
            .join(User, User.id == PasswordCredential.user_id)
            .where(func.lower(User.email) == email.lower())
        )

    stored: str | None = await _in_transaction(settings, work)
    return stored is not None and await verify_password_async(stored, password)


async def cleanup_expired(settings: Settings, *, now: datetime) -> dict[str, int]:
    """``idp cleanup``: one run, waiting for no lock (an operator asked for it)."""

    async def work(session: AsyncSession) -> dict[str, int]:
        return await delete_expired(session, now=now, actor=OPERATOR_ACTOR)

    result: dict[str, int] = await _in_transaction(settings, work)
    return result
