"""The operator's brand: the one writer and reader of ``brands`` (docs/branding.md).

Every function runs in the caller's transaction. Contract:

- One row per owner: ``client_pk`` NULL is the provider's own brand, else a client's
  (unique, NULLS NOT DISTINCT). A row is created by the first write to it; a NULL field
  means "not set" (for a client: the provider's value applies).
- :func:`update_brand` writes only the fields given, under the row's lock (``INSERT ...
  ON CONFLICT DO NOTHING`` then ``SELECT ... FOR UPDATE``), and answers which changed.
- :func:`set_logo` / :func:`remove_logo` answer the logo name they replaced, for the caller
  to delete the object once the transaction committed, and only when no brand row still
  names it (:func:`logo_in_use`: names are content-addressed, so two owners may share one).
- :func:`effective_brand`: the client's row field by field over the provider's, product
  name ``"Identity Provider"`` when neither sets it, the logo as an absolute URL under
  ``{issuer_base}/media/brand/``. :class:`BrandCache` keeps those answers a few seconds for
  the public reads of the sign-in path (:data:`CACHE_SECONDS`).
- :func:`client_metadata` reads the RFC 7591 ``logo_uri``/``tos_uri``/``policy_uri`` of many
  clients in one query (the client lists show them).
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

import msgspec
from sqlalchemy import ColumnElement, delete, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import NotFound
from idp_common.storage.db.models import Brand, Client
from idp_common.storage.repos.client_shapes import ClientRead

DEFAULT_PRODUCT_NAME: Final = "Identity Provider"
#: Public path of a logo under the issuer (served by the entity service).
BRAND_PATH: Final = "/media/brand/"
#: The settable text fields (attribute names; the wire spells them in camelCase).
TEXT_FIELDS: Final = ("product_name", "primary_color", "terms_uri", "privacy_uri")
#: How long a public read may show a brand after it changed (per worker).
CACHE_SECONDS: Final = 5.0
_CACHE_ENTRIES: Final = 4096
_MAX_CLIENT_ID_LENGTH: Final = 255
#: Logo objects are content-addressed: ``brand-<sha256 of the stored bytes>.<ext>``.
_LOGO_NAME: Final = re.compile(r"^brand-[0-9a-f]{64}\.(png|jpg|webp)$")


class BrandRead(msgspec.Struct, frozen=True, rename="camel"):
    """The effective brand a page or a mail shows (every key always present)."""

    product_name: str
    logo_uri: str | None
    primary_color: str | None
    terms_uri: str | None
    privacy_uri: str | None


class BrandSettings(msgspec.Struct, frozen=True, rename="camel"):
    """One owner's own row as the admin API shows it: nulls where it sets nothing."""

    product_name: str | None = None
    primary_color: str | None = None
    terms_uri: str | None = None
    privacy_uri: str | None = None
    logo_uri: str | None = None
    updated_at: datetime | None = None


@dataclass(frozen=True)
class ClientMetadata:
    """RFC 7591 §2 ``logo_uri`` (its object name), ``tos_uri``, ``policy_uri`` of one client
    (its own row)."""

    logo_name: str | None = None
    tos_uri: str | None = None
    policy_uri: str | None = None


def logo_name(digest_hex: str, extension: str) -> str:
    name = f"brand-{digest_hex}.{extension}"
    if not is_logo_name(name):
        raise ValueError(f"not a logo object name: {name!r}")
    return name


def is_logo_name(name: str) -> bool:
    """Whether ``name`` has the exact shape of a logo object (checked before the store)."""
    return _LOGO_NAME.fullmatch(name) is not None


def logo_url(issuer_base: str, name: str | None) -> str | None:
    return None if name is None else f"{issuer_base}{BRAND_PATH}{name}"


def _owner(client_pk: uuid.UUID | None) -> ColumnElement[bool]:
    return Brand.client_pk.is_(None) if client_pk is None else Brand.client_pk == client_pk


async def client_pk_of(session: AsyncSession, client_id: str) -> uuid.UUID:
    """The row id of the client ``client_id``; 404 for an unknown one."""
    pk = None
    if client_id and len(client_id) <= _MAX_CLIENT_ID_LENGTH:
        pk = await session.scalar(select(Client.id).where(Client.client_id == client_id))
    if pk is None:
        raise NotFound("no client with this client_id", code="admin.client_not_found")
    return pk


async def owner_pk(session: AsyncSession, client_id: str | None) -> uuid.UUID | None:
    """None for the provider's brand, else the row id of the client (404 when unknown)."""
    return None if client_id is None else await client_pk_of(session, client_id)


async def brand_row(
    session: AsyncSession, client_pk: uuid.UUID | None, *, lock: bool = False
) -> Brand | None:
    query = select(Brand).where(_owner(client_pk))
    return await session.scalar(query.with_for_update() if lock else query)


def settings_of(row: Brand | None, issuer_base: str) -> BrandSettings:
    if row is None:
        return BrandSettings()
    return BrandSettings(
        product_name=row.product_name,
        primary_color=row.primary_color,
        terms_uri=row.terms_uri,
        privacy_uri=row.privacy_uri,
        logo_uri=logo_url(issuer_base, row.logo_name),
        updated_at=row.updated_at,
    )


async def read_settings(
    session: AsyncSession, client_pk: uuid.UUID | None, *, issuer_base: str
) -> BrandSettings:
    return settings_of(await brand_row(session, client_pk), issuer_base)


async def _locked_row(session: AsyncSession, client_pk: uuid.UUID | None) -> Brand:
    """The owner's row, created when missing, locked until the transaction ends."""
    await session.execute(
        insert(Brand).values(client_pk=client_pk).on_conflict_do_nothing().returning(Brand.id)
    )
    row = await brand_row(session, client_pk, lock=True)
    assert row is not None  # inserted or already there, under our lock
    return row


async def update_brand(
    session: AsyncSession, client_pk: uuid.UUID | None, changes: Mapping[str, str | None]
) -> tuple[Brand, list[str]]:
    """Set the given text fields (already checked and normalised); answer the row and the
    names of the fields whose value changed."""
    unknown = set(changes) - set(TEXT_FIELDS)
    if unknown:
        raise ValueError(f"not brand fields: {sorted(unknown)}")
    row = await _locked_row(session, client_pk)
    changed = [name for name, value in changes.items() if getattr(row, name) != value]
    for name in changed:
        setattr(row, name, changes[name])
    if changed:
        await session.flush()
        await session.refresh(row)  # the new updated_at
    return row, changed


async def set_logo(
    session: AsyncSession, client_pk: uuid.UUID | None, name: str
) -> tuple[Brand, str | None]:
    """The owner's logo becomes the stored object ``name``; answers the row and the name
    it replaced (None when none, or the same)."""
    row = await _locked_row(session, client_pk)
    old = row.logo_name
    if old != name:
        row.logo_name = name
        await session.flush()
        await session.refresh(row)
    return row, (old if old != name else None)


async def remove_logo(session: AsyncSession, client_pk: uuid.UUID | None) -> str | None:
    """Clear the owner's logo; answers the name it had (None when none)."""
    row = await brand_row(session, client_pk, lock=True)
    if row is None or row.logo_name is None:
        return None
    old, row.logo_name = row.logo_name, None
    await session.flush()
    return old


async def reset_brand(session: AsyncSession, client_pk: uuid.UUID) -> Brand | None:
    """Delete a client's row (it then shows the provider's brand); answers what it was."""
    row = await brand_row(session, client_pk, lock=True)
    if row is not None:
        await session.execute(delete(Brand).where(Brand.id == row.id))
    return row


async def logo_in_use(session: AsyncSession, name: str) -> bool:
    """Whether any brand row names the logo object ``name``."""
    found = await session.scalar(select(Brand.id).where(Brand.logo_name == name).limit(1))
    return found is not None


def merge(own: Brand | None, provider: Brand | None, issuer_base: str) -> BrandRead:
    """``own`` field by field over ``provider`` (either may be missing)."""

    def pick(name: str) -> str | None:
        for row in (own, provider):
            value = None if row is None else getattr(row, name)
            if value is not None:
                return str(value)
        return None

    return BrandRead(
        product_name=pick("product_name") or DEFAULT_PRODUCT_NAME,
        logo_uri=logo_url(issuer_base, pick("logo_name")),
        primary_color=pick("primary_color"),
        terms_uri=pick("terms_uri"),
        privacy_uri=pick("privacy_uri"),
    )


async def effective_brand(
    session: AsyncSession, client_pk: uuid.UUID | None, *, issuer_base: str = ""
) -> BrandRead:
    """What the pages and mails show for ``client_pk`` (None: the provider's brand).

    ``logoUri`` is ``{issuer_base}/media/brand/<name>``: pass the settings' ``issuer_base``
    (without it the URL is only the path, fine for the provider's own pages, not for mail).
    """
    owners = _owner(None) if client_pk is None else _owner(None) | _owner(client_pk)
    rows = (await session.scalars(select(Brand).where(owners))).all()
    by_owner = {row.client_pk: row for row in rows}
    own = by_owner.get(client_pk) if client_pk is not None else None
    return merge(own, by_owner.get(None), issuer_base)


async def client_metadata(
    session: AsyncSession, client_ids: Sequence[str]
) -> dict[str, ClientMetadata]:
    """The brand metadata of the clients ``client_ids`` that have a brand row, in one query
    (keys: ``client_id``; a client without a row is left out)."""
    if not client_ids:
        return {}
    rows = await session.execute(
        select(Client.client_id, Brand.logo_name, Brand.terms_uri, Brand.privacy_uri)
        .join(Brand, Brand.client_pk == Client.id)
        .where(Client.client_id.in_(list(client_ids)))
    )
    return {
        client_id: ClientMetadata(logo, terms, privacy)
        for client_id, logo, terms, privacy in rows.tuples()
    }


async def branded_clients(
    session: AsyncSession, reads: Sequence[ClientRead], *, issuer_base: str
) -> list[ClientRead]:
    """``reads`` with their ``logoUri``, ``tosUri``, ``policyUri`` filled (one query)."""
    found = await client_metadata(session, [read.client_id for read in reads])
    return [
        msgspec.structs.replace(
            read,
            logo_uri=logo_url(issuer_base, meta.logo_name),
            tos_uri=meta.tos_uri,
            policy_uri=meta.policy_uri,
        )
        if (meta := found.get(read.client_id)) is not None
        else read
        for read in reads
    ]


class BrandCache:
    """Effective brands kept :data:`CACHE_SECONDS` per worker, for the public reads (the
    sign-in page reads one per challenge). A change shows within that delay; the admin API
    reads the rows themselves, uncached."""

    def __init__(self, seconds: float = CACHE_SECONDS) -> None:
        self.seconds = seconds
        self._entries: dict[tuple[uuid.UUID | None, str], tuple[float, BrandRead]] = {}

    async def get(
        self, session: AsyncSession, client_pk: uuid.UUID | None, *, issuer_base: str
    ) -> BrandRead:
        key, now = (client_pk, issuer_base), time.monotonic()
        hit = self._entries.get(key)
        if hit is not None and now - hit[0] < self.seconds:
            return hit[1]
        brand = await effective_brand(session, client_pk, issuer_base=issuer_base)
        if len(self._entries) >= _CACHE_ENTRIES:
            self._entries.clear()  # bounded: a flood of clients only costs reads
        self._entries[key] = (now, brand)
        return brand


#: One per worker process (each service imports it once).
PUBLIC_BRANDS: Final = BrandCache()
