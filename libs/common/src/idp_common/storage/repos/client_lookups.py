"""Reads of clients that other parts need (the writes are :mod:`.clients`'s): display
names for the session list, back-channel URIs for the logout fan-out, and the clients a
person is connected to (contract §2 "Connection").

A connection is a remembered consent, or a client holding an active refresh token of the
person without one (a first-party client marked ``skipConsent`` never asks). Every
function only reads, in the caller's transaction; a client deleted meanwhile is absent.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import msgspec
from sqlalchemy import ColumnElement, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.db.models import Client
from idp_common.storage.repos.consents import consented_by
from idp_common.storage.repos.paging import keyset_page
from idp_common.storage.repos.refresh_tokens import held_by


class ConnectedClient(msgspec.Struct, frozen=True, kw_only=True):
    pk: uuid.UUID
    client_id: str
    name: str
    skip_consent: bool


def connected(user_id: uuid.UUID) -> ColumnElement[bool]:
    """The client (``Client``) has a consent of the person or an active token of theirs."""
    return or_(consented_by(user_id), held_by(user_id))


async def connected_client_pk(
    session: AsyncSession, user_id: uuid.UUID, client_id: str
) -> uuid.UUID | None:
    """The primary key of ``client_id`` when the person is connected to it, else None."""
    query = select(Client.id).where(Client.client_id == client_id, connected(user_id))
    return await session.scalar(query)


async def connected_clients(
    session: AsyncSession, user_id: uuid.UUID, *, limit: int, cursor: str | None
) -> tuple[list[ConnectedClient], str | None]:
    """One page of the clients the person is connected to, by ``client_id``."""
    rows: list[Client]
    rows, next_cursor = await keyset_page(
        session,
        select(Client).where(connected(user_id)),
        order_by=[Client.client_id.expression],
        key_of=lambda c: [c.client_id],
        limit=limit,
        cursor=cursor,
    )
    found = [
        ConnectedClient(pk=c.id, client_id=c.client_id, name=c.name, skip_consent=c.skip_consent)
        for c in rows
    ]
    return found, next_cursor


async def client_names(session: AsyncSession, client_ids: set[str]) -> dict[str, str]:
    """Display names of these clients, in one query; deleted clients are absent."""
    if not client_ids:
        return {}
    rows = await session.execute(
        select(Client.client_id, Client.name).where(Client.client_id.in_(client_ids))
    )
    return {client_id: name for client_id, name in rows}


async def backchannel_uris(session: AsyncSession, client_ids: Sequence[str]) -> dict[str, str]:
    """``client_id`` → ``backchannelLogoutUri`` for those of ``client_ids`` that registered one."""
    if not client_ids:
        return {}
    rows = await session.execute(
        select(Client.client_id, Client.backchannel_logout_uri).where(
            Client.client_id.in_(list(client_ids)), Client.backchannel_logout_uri.is_not(None)
        )
    )
    return {client_id: uri for client_id, uri in rows if uri}


async def backchannel_targets(
    session: AsyncSession, client_ids: Sequence[str]
) -> dict[str, tuple[str, str]]:
    """``client_id`` → (``backchannelLogoutUri``, ``id_token_signed_response_alg``: the
    algorithm of its logout tokens) for those of ``client_ids`` that registered
    a URI."""
    if not client_ids:
        return {}
    rows = await session.execute(
        select(
            Client.client_id, Client.backchannel_logout_uri, Client.id_token_signed_response_alg
        ).where(Client.client_id.in_(list(client_ids)), Client.backchannel_logout_uri.is_not(None))
    )
    return {client_id: (uri, alg) for client_id, uri, alg in rows if uri}
