"""The caller's connections: the applications that have access to their account (contract §2
"Connection", part 4 "Entity (self-service)"; docs/design.md "Sign-in").

- A connection is a remembered consent (``consents``), or a client holding a live refresh
  token of the person without one: a first-party client marked ``skipConsent`` never asks,
  yet it has access all the same. ``firstParty`` tells them apart.
- ``scopes`` are the consented scopes, else those of the live refresh tokens; ``grantedAt``
  the consent's first approval, else the oldest live token's issue.
- Withdrawing one is the use case ``entity_service.connections``. The consents and
  refresh tokens are read through their owners (``storage.repos.consents``,
  ``storage.repos.refresh_tokens``).
"""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.constants import IDP_SCOPE_DESCRIPTIONS, OIDC_SCOPE_DESCRIPTIONS
from idp_common.storage.repos.client_lookups import ConnectedClient, connected_clients
from idp_common.storage.repos.clients import scope_descriptions
from idp_common.storage.repos.consents import consents_of
from idp_common.storage.repos.refresh_tokens import holdings


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


async def list_connections(
    session: AsyncSession, user_id: uuid.UUID, *, limit: int, cursor: str | None
) -> ConnectionPage:
    """One page of the person's connections, by ``clientId``."""
    clients, next_cursor = await connected_clients(session, user_id, limit=limit, cursor=cursor)
    pks = [c.pk for c in clients]
    consents = await consents_of(session, user_id, pks)
    tokens = await holdings(session, user_id, pks)
    items: list[tuple[ConnectedClient, datetime, list[str]]] = []
    for client in clients:
        if client.pk in consents:
            items.append((client, *consents[client.pk]))
        elif client.pk in tokens:  # else its last token expired a moment ago
            first, held = tokens[client.pk]
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


def _describe(value: str, known: dict[str, str]) -> str:
    """The consent-screen sentence, as the sign-in page shows it."""
    return (
        known.get(value)
        or OIDC_SCOPE_DESCRIPTIONS.get(value)
        or IDP_SCOPE_DESCRIPTIONS.get(value)
        or value
    )
