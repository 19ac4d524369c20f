"""What the operator tool writes: the scope catalogue, the first administrator, cleanup.

``seed_catalogue`` (docs/design.md "The provider's own API and its permissions"): the ``idp``
API with audience ``{SVC_ISSUER}/api``, every ``idp:*`` scope, the ``administrator``
role holding every admin scope, and the ``console`` client (docs/design.md "Wire contracts").
It only inserts what is missing (``ON CONFLICT DO NOTHING``), so a second run changes
nothing, and a release that adds scopes hands them to ``administrator`` on the next run
(contract §5 rule 3, §9 rule 5).

``cleanup_expired`` is ``idp cleanup``: one run of :mod:`idp_common.operations.cleanup`.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.config import Settings
from idp_common.crypto.passwords import hash_password_async, verify_password_async
from idp_common.events.webhook_events import outbox_events
from idp_common.operations.cleanup import run_cleanup
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
from idp_common.storage.repos import apis, clients, credentials, roles, user_grants, users
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.storage.repos.client_shapes import ClientSettings
from idp_common.storage.repos.clients import CONSOLE_CLIENT_ID
from idp_common.storage.repos.roles import ADMIN_ROLE

OPERATOR_ACTOR = "operator:cli"


async def _in_transaction(settings: Settings, work: Any) -> Any:
    engine = create_engine(settings.database_url)
    try:
        # `idp create-admin` announces the person it creates as the admin API would
        sessions = create_session_factory(engine, audit_events=outbox_events(settings.nats_prefix))
        async with sessions.begin() as session:
            return await work(session)
    finally:
        await engine.dispose()


async def seed_catalogue_in(session: AsyncSession, settings: Settings) -> dict[str, int]:
    """Insert what is missing; return how many rows of each kind were added."""
    idp_scopes = (*ADMIN_SCOPES, *SELF_SERVICE_SCOPES)
    scopes_added = await apis.ensure_api(
        session,
        name=IDP_API_NAME,
        audience=settings.api_audience,
        scopes={value: IDP_SCOPE_DESCRIPTIONS[value] for value in idp_scopes},
    )
    granted = await roles.ensure_role(
        session,
        name=ADMIN_ROLE,
        description="Full access to the administration API",
        scopes=ADMIN_SCOPES,
    )
    base = settings.issuer_base
    console = ClientSettings(
        name="Console",
        redirect_uris=[f"{base}/console/callback"],
        post_logout_redirect_uris=[f"{base}/console/"],
        backchannel_logout_uri=None,
        grant_types=[GRANT_TYPE_AUTHORIZATION_CODE, GRANT_TYPE_REFRESH_TOKEN],
        skip_consent=True,
    )
    linked = await clients.ensure_client(
        session,
        CONSOLE_CLIENT_ID,
        "public",
        console,
        scopes=(SCOPE_OPENID, SCOPE_PROFILE, SCOPE_EMAIL, *idp_scopes),
    )
    return {
        "scopes added": scopes_added,
        "administrator grants added": granted,
        "console scopes added": linked,
    }


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
        role_id = await roles.role_id_by_name(session, ADMIN_ROLE)
        if role_id is None:
            raise RuntimeError("the administrator role is missing: run `idp seed` first")
        if await users.get_user_by_email(session, email) is not None:
            return False, None
        user = await users.create_user(
            session,
            email=email,
            username=None if await users.username_in_use(session, "admin") else "admin",
            display_name="Administrator",
            password_hash=password_hash,
            email_verified=True,
        )
        await user_grants.give_role(session, user.id, role_id)
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
        user = await users.get_user_by_email(session, email)
        return None if user is None else await credentials.get_password_hash(session, user.id)

    stored: str | None = await _in_transaction(settings, work)
    return stored is not None and await verify_password_async(stored, password)


async def cleanup_expired(settings: Settings, *, now: datetime) -> dict[str, int]:
    """``idp cleanup``: one run, in batches of ``SVC_CLEANUP_BATCH_SIZE``; a run in progress
    (a replica's periodic one) holds the lock, and this one waits for it to end."""
    engine = create_engine(settings.database_url)
    try:
        counts = await run_cleanup(
            engine,
            now=now,
            actor=OPERATOR_ACTOR,
            batch_size=settings.cleanup_batch_size,
            pause=settings.cleanup_batch_pause,
            wait=True,
        )
    finally:
        await engine.dispose()
    return counts or {}  # a waiting run always runs: never None
