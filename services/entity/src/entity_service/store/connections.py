"""The caller's connections: the applications that have access to their account (spec part 2
"Connection", part 4 "Entity (self-service)"; DESIGN.md "Sign-in").

- A connection is a remembered consent (``consents``), or a client holding a live refresh
  token of the person without one: a first-party client marked ``skipConsent`` never asks,
  yet it has access all the same. ``firstParty`` tells them apart.
- ``scopes`` are the consented scopes, else those of the live refresh tokens; ``grantedAt``
  the consent's first approval, else the oldest live token's issue.
- Withdrawing deletes the consent and revokes every refresh token of that client for the
  person, in one transaction. Nothing else ends: browser sessions and access tokens
  already issued (minutes long) stay; the next authorization asks for consent again.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Final

import msgspec
from sqlalchemy import ColumnElement, delete, exists, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import NotFound
from idp_common.protocol.constants import IDP_SCOPE_DESCRIPTIONS, OIDC_SCOPE_DESCRIPTIONS
from idp_common.storage.db.models import Client, Consent, RefreshToken
from idp_common.storage.repos.clients import scope_descriptions
from idp_common.storage.repos.paging import keyset_page

_MAX_CLIENT_ID_LENGTH: Final = 255


class ConnectionScope(msgspec.Struct, frozen=True):
    value: str
    description: str


class ConnectionRead(msgspec.Struct, frozen=True, rename="camel"):
    client_id: str
    name: str
    scopes: list[ConnectionScope]
    granted_at: datetime
    first_party: bool


class ConnectionPage(msgspec.Struct, frozen=True, rename="camel"):
    items: list[ConnectionRead]
    next_cursor: str | None


class Withdrawn(msgspec.Struct, frozen=True, kw_only=True):
    client_id: str
    had_consent: bool
    tokens_revoked: int


def _live_tokens(user_id: uuid.UUID) -> ColumnElement[bool]:
    return (
        (RefreshToken.user_id == user_id)
        & RefreshToken.revoked_at.is_(None)
        & RefreshToken.spent_at.is_(None)
        & (RefreshToken.expires_at > func.now())
    )


def _connected(user_id: uuid.UUID) -> ColumnElement[bool]:
    """The client (``Client``) has a consent of the person or one of their live tokens."""
    consented = exists().where(Consent.user_id == user_id, Consent.client_pk == Client.id)
    holding = exists().where(_live_tokens(user_id), RefreshToken.client_pk == Client.id)
    return or_(consented, holding)


async def list_connections(
    session: AsyncSession, user_id: uuid.UUID, *, limit: int, cursor: str | None
) -> ConnectionPage:
    """One page of the person's connections, by ``clientId``."""
    clients: list[Client]
    clients, next_cursor = await keyset_page(
        session,
        select(Client).where(_connected(user_id)),
        order_by=[Client.client_id.expression],
        key_of=lambda c: [c.client_id],
        limit=limit,
        cursor=cursor,
    )
    pks = [c.id for c in clients]
    consents = {
        c.client_pk: c
        for c in await session.scalars(
            select(Consent).where(Consent.user_id == user_id, Consent.client_pk.in_(pks))
        )
    }
    tokens = await _token_holdings(session, user_id, pks)
    items: list[tuple[Client, datetime, list[str]]] = []
    for client in clients:
        consent = consents.get(client.id)
        if consent is not None:
            items.append((client, consent.created_at, sorted(consent.scopes)))
        elif client.id in tokens:  # else its last token expired a moment ago
            first, held = tokens[client.id]
            items.append((client, first, sorted(held)))
    known = await scope_descriptions(session, sorted({v for _, _, vs in items for v in vs}))
    return ConnectionPage(
        items=[
            ConnectionRead(
                client_id=client.client_id,
                name=client.name,
                scopes=[ConnectionScope(v, _describe(v, known)) for v in values],
                granted_at=granted_at,
                first_party=client.skip_consent,
            )
            for client, granted_at, values in items
        ],
        next_cursor=next_cursor,
    )


async def _token_holdings(
    session: AsyncSession, user_id: uuid.UUID, pks: list[uuid.UUID]
) -> dict[uuid.UUID, tuple[datetime, set[str]]]:
    """Per client: the oldest live refresh token's issue and the scopes they carry."""
    held: dict[uuid.UUID, tuple[datetime, set[str]]] = {}
    rows = await session.execute(
        select(RefreshToken.client_pk, RefreshToken.issued_at, RefreshToken.scope).where(
            _live_tokens(user_id), RefreshToken.client_pk.in_(pks)
        )
    )
    for pk, issued, scope in rows.tuples():
        first, values = held.get(pk, (issued, set()))
        held[pk] = (min(first, issued), values | set(scope.split()))
    return held


def _describe(value: str, known: dict[str, str]) -> str:
    """The consent-screen sentence, as the sign-in page shows it."""
    return (
        known.get(value)
        or OIDC_SCOPE_DESCRIPTIONS.get(value)
        or IDP_SCOPE_DESCRIPTIONS.get(value)
        or value
    )


async def withdraw_connection(
    session: AsyncSession, user_id: uuid.UUID, client_id: str
) -> Withdrawn:
    """Delete the person's consent to ``client_id`` and revoke that client's refresh tokens
    of the person; 404 (nothing changed) when the client is unknown or not connected."""
    client_pk = None
    if len(client_id) <= _MAX_CLIENT_ID_LENGTH:
        client_pk = await session.scalar(
            select(Client.id).where(Client.client_id == client_id, _connected(user_id))
        )
    if client_pk is None:
        raise NotFound("no connection to this client_id", code="entity.connection_not_found")
    removed = await session.execute(
        delete(Consent)
        .where(Consent.user_id == user_id, Consent.client_pk == client_pk)
        .returning(Consent.client_pk)
    )
    had_consent = removed.first() is not None
    revoked = await session.execute(
        update(RefreshToken)
        .where(
            RefreshToken.user_id == user_id,
            RefreshToken.client_pk == client_pk,
            RefreshToken.revoked_at.is_(None),
        )
        .values(revoked_at=func.now())
        .returning(RefreshToken.id)
    )
    return Withdrawn(
        client_id=client_id, had_consent=had_consent, tokens_revoked=len(revoked.all())
    )
