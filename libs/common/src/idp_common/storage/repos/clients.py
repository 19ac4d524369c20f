"""OAuth clients as the protocol endpoints see them (RFC 6749 §2)."""

from __future__ import annotations

import uuid

import msgspec
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.db.models import Client, ClientScope, ClientSecret, Scope


class ClientRecord(msgspec.Struct, frozen=True, kw_only=True):
    pk: uuid.UUID
    client_id: str
    name: str
    type: str  # "confidential" | "public"
    redirect_uris: tuple[str, ...]
    post_logout_redirect_uris: tuple[str, ...]
    backchannel_logout_uri: str | None
    grant_types: frozenset[str]
    skip_consent: bool
    scopes: frozenset[str]
    secret_digest: bytes | None

    @property
    def is_confidential(self) -> bool:
        return self.type == "confidential"


async def get_client(session: AsyncSession, client_id: str) -> ClientRecord | None:
    """The client with this public ``client_id``, its secret digest and scopes; None if absent."""
    row = (
        await session.execute(
            select(Client, ClientSecret.digest)
            .outerjoin(ClientSecret, ClientSecret.client_pk == Client.id)
            .where(Client.client_id == client_id)
        )
    ).first()
    if row is None:
        return None
    client, secret = row
    scopes = await session.scalars(
        select(Scope.value)
        .join(ClientScope, ClientScope.scope_id == Scope.id)
        .where(ClientScope.client_pk == client.id)
    )
    return ClientRecord(
        pk=client.id,
        client_id=client.client_id,
        name=client.name,
        type=client.type,
        redirect_uris=tuple(client.redirect_uris),
        post_logout_redirect_uris=tuple(client.post_logout_redirect_uris),
        backchannel_logout_uri=client.backchannel_logout_uri,
        grant_types=frozenset(client.grant_types),
        skip_consent=client.skip_consent,
        scopes=frozenset(scopes),
        secret_digest=secret,
    )


async def get_client_by_pk(session: AsyncSession, pk: uuid.UUID) -> ClientRecord | None:
    client_id = await session.scalar(select(Client.client_id).where(Client.id == pk))
    return None if client_id is None else await get_client(session, client_id)


async def scope_descriptions(session: AsyncSession, values: list[str]) -> dict[str, str]:
    """Consent-screen sentence of each known scope value."""
    rows = await session.execute(
        select(Scope.value, Scope.description).where(Scope.value.in_(values))
    )
    return {value: description for value, description in rows}
