"""Helpers of the audit, face, profile-field, grant, client-lookup and permission
contracts (on the people fixtures' sessions): counting stored rows, the ``shop`` API to
grant from, a role and a group holding some of its permissions, a client, and waiting
until a transaction waits on another's lock."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, text

from admin_service.repos import groups
from idp_common.storage.db.models import Client
from idp_common.storage.repos import roles
from idp_common.storage.repos.apis import ensure_api
from libs.common.tests.conformance.catalogue_fixtures import SHOP_SCOPES
from libs.common.tests.conformance.people_fixtures import Sessions


async def count(sessions: Sessions, model: type[Any], *where: Any) -> int:
    """How many committed rows of ``model`` match ``where``."""
    async with sessions() as session:
        found = await session.scalar(select(func.count()).select_from(model).where(*where))
    return int(found or 0)


async def add_shop(sessions: Sessions) -> None:
    """The ``shop`` API with the permissions of :data:`SHOP_SCOPES`, committed."""
    async with sessions.begin() as session:
        await ensure_api(session, name="shop", audience="https://shop.test", scopes=SHOP_SCOPES)


async def add_role(sessions: Sessions, name: str, scopes: Sequence[str]) -> uuid.UUID:
    """A committed role holding ``scopes`` (permissions of an API)."""
    async with sessions.begin() as session:
        role = await roles.create_role(session, name=name, description="")
        await roles.set_role_scopes(session, str(role.id), scopes)
    return role.id


async def add_group(
    sessions: Sessions, name: str, role_ids: Sequence[uuid.UUID], members: Sequence[uuid.UUID]
) -> uuid.UUID:
    """A committed group given ``role_ids``, of which ``members`` are members."""
    async with sessions.begin() as session:
        group = await groups.create_group(session, name=name, description="")
        await groups.set_group_roles(session, str(group.id), [str(r) for r in role_ids])
        if members:
            await groups.add_members(session, str(group.id), [str(m) for m in members])
    return group.id


async def add_client(sessions: Sessions, *, backchannel_logout_uri: str | None = None) -> str:
    """A committed confidential client; its ``client_id``."""
    client_id = f"app-{secrets.token_hex(4)}"
    async with sessions.begin() as session:
        session.add(
            Client(
                client_id=client_id,
                name=f"App {client_id}",
                type="confidential",
                grant_types=["authorization_code", "refresh_token"],
                backchannel_logout_uri=backchannel_logout_uri,
            )
        )
    return client_id


#: Transactions of this database waiting for a lock another transaction holds.
_LOCK_WAITERS = text(
    "SELECT count(*) FROM pg_stat_activity"
    " WHERE datname = current_database() AND wait_event_type = 'Lock'"
)


#: Seconds :func:`until_waiting` waits for a transaction to wait.
WAIT_LIMIT = 10


async def until_waiting(sessions: Sessions, waiters: int = 1) -> None:
    """Return once ``waiters`` transactions wait on a lock (fail after :data:`WAIT_LIMIT` s)."""
    async with asyncio.timeout(WAIT_LIMIT):
        while True:
            async with sessions() as session:
                if (await session.scalar(_LOCK_WAITERS) or 0) >= waiters:
                    return
            await asyncio.sleep(0.05)
