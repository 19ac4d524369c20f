"""Storage and rules of OAuth clients (spec part 2 "OAuth client", DESIGN.md "Wire contracts").

Rules kept here, whoever calls:
- ``client_id`` is generated (URL-safe random) and never changes; ``type`` never changes.
- A confidential client has exactly one secret (``secrets.token_urlsafe(32)``, 256 bits),
  returned only by :func:`create_client` and :func:`rotate_secret` and stored as its
  SHA-256 digest (``client_secrets``, one row per client), as the token service checks it.
  A public client has none and cannot rotate (409).
- Redirect, post-logout and back-channel logout URIs are absolute, without a fragment, and
  ``https``; plain ``http`` only to a loopback host (``127.0.0.1``, ``[::1]``,
  ``localhost``), in every environment: a redirect over plain HTTP to another host leaks
  codes, and a development stack runs on loopback anyway.
- The back-channel logout URI is called by the provider itself, so unless the deployment
  allows it (``SVC_BACKCHANNEL_ALLOW_PRIVATE``) its host must not be a loopback, private,
  link-local or other non-global address, nor a name local by definition (``localhost``,
  ``*.local``...): :mod:`idp_common.protocol.rfc6890_special_addresses`. The dispatcher
  checks the resolved address again before it connects.
- ``grantTypes`` is a non-empty subset of ``GRANT_TYPES``; a public client cannot have
  ``client_credentials``; ``authorization_code`` needs at least one redirect URI.
- The seeded ``console`` client is the console's own: it is never deleted (409).
- Deleting a client deletes its secret, scopes, codes, refresh tokens and consents in the
  same transaction (FK ``ON DELETE CASCADE``).
"""

from __future__ import annotations

import ipaddress
import secrets
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Final, Literal
from urllib.parse import urlsplit

import httpx
import msgspec
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import Conflict, FieldError, InvalidArgument, NotFound
from idp_common.operations.seed import CONSOLE_CLIENT_ID
from idp_common.protocol.constants import (
    CLIENT_TYPE_CONFIDENTIAL,
    CLIENT_TYPE_PUBLIC,
    GRANT_TYPE_AUTHORIZATION_CODE,
    GRANT_TYPE_CLIENT_CREDENTIALS,
    GRANT_TYPES,
)
from idp_common.protocol.oidc_core_claims import digest
from idp_common.protocol.rfc6890_special_addresses import host_problem
from idp_common.storage.db.models import Client, ClientScope, ClientSecret, Scope
from idp_common.storage.repos.paging import keyset_page

ClientType = Literal["confidential", "public"]
MAX_NAME_LENGTH: Final = 200
MAX_URI_LENGTH: Final = 2000
MAX_URIS: Final = 50
MAX_CLIENT_ID_LENGTH: Final = 255
LOOPBACK_HOSTS: Final = frozenset({"localhost"})


class ClientRead(msgspec.Struct, frozen=True, rename="camel"):
    """A client as the admin API shows it: never its secret nor the secret's digest."""

    client_id: str = msgspec.field(name="client_id")
    name: str
    type: ClientType
    redirect_uris: list[str]
    post_logout_redirect_uris: list[str]
    backchannel_logout_uri: str | None
    grant_types: list[str]
    skip_consent: bool
    scopes: list[str]
    created_at: datetime
    updated_at: datetime


class ClientCreated(ClientRead, frozen=True, omit_defaults=True):
    """The answer to a creation: ``client_secret`` only for a confidential client."""

    client_secret: str | None = msgspec.field(default=None, name="client_secret")


class SecretRotated(msgspec.Struct, frozen=True):
    client_id: str
    client_secret: str


class ClientPage(msgspec.Struct, frozen=True, rename="camel"):
    items: list[ClientRead]
    next_cursor: str | None


@dataclass(frozen=True)
class ClientSettings:
    """The settable fields of a client, as one whole (creation, or after a patch)."""

    name: str
    redirect_uris: list[str]
    post_logout_redirect_uris: list[str]
    backchannel_logout_uri: str | None
    grant_types: list[str]
    skip_consent: bool


# --- Rules (pure) -------------------------------------------------------------------------


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def uri_problem(uri: str) -> str | None:
    """Why ``uri`` cannot be a redirect or logout URI of a client, or None."""
    if len(uri) > MAX_URI_LENGTH:
        return f"at most {MAX_URI_LENGTH} characters"
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in uri):
        return "must not contain spaces or control characters"
    try:
        parts = urlsplit(uri)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - raises on a port that is not a number
        httpx.URL(uri).host  # noqa: B018 - as the dispatcher will read it (IDNA A-labels)
    except (ValueError, httpx.InvalidURL):
        return "not a valid URI"
    problem = None
    if not parts.scheme or not parts.netloc or not host:
        problem = "must be an absolute URI with a host"
    elif "#" in uri:
        problem = "must not contain a fragment"
    elif parts.username is not None or parts.password is not None:
        problem = "must not contain user information"
    elif not (parts.scheme == "https" or (parts.scheme == "http" and _is_loopback(host))):
        problem = "must use https (plain http only to 127.0.0.1, [::1] or localhost)"
    return problem


def _uri_list_errors(field: str, uris: Sequence[str]) -> list[FieldError]:
    if len(uris) > MAX_URIS:
        return [FieldError(field, f"at most {MAX_URIS} URIs")]
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, uri in enumerate(uris):
        problem = uri_problem(uri) or ("repeated" if uri in seen else None)
        seen.add(uri)
        if problem:
            errors.append(FieldError(f"{field}[{i}]", problem))
    return errors


def _grant_errors(client_type: str, settings: ClientSettings) -> list[FieldError]:
    grants = settings.grant_types
    if not grants:
        return [FieldError("grantTypes", "at least one grant type")]
    errors: list[FieldError] = []
    for i, grant in enumerate(grants):
        if grant not in GRANT_TYPES:
            errors.append(FieldError(f"grantTypes[{i}]", f"one of {', '.join(GRANT_TYPES)}"))
        elif grant in grants[:i]:
            errors.append(FieldError(f"grantTypes[{i}]", "repeated"))
        elif grant == GRANT_TYPE_CLIENT_CREDENTIALS and client_type == CLIENT_TYPE_PUBLIC:
            errors.append(FieldError(f"grantTypes[{i}]", "a public client cannot have it"))
    if GRANT_TYPE_AUTHORIZATION_CODE in grants and not settings.redirect_uris:
        errors.append(FieldError("redirectUris", "authorization_code needs a redirect URI"))
    return errors


def backchannel_target_problem(uri: str) -> str | None:
    """Why the provider must not POST to ``uri``'s host (see the module text), or None."""
    kind = host_problem(urlsplit(uri).hostname or "")
    if kind is None:
        return None
    return (
        f"must not point at a {kind} address: the provider calls it from its own network "
        "(allowed only with SVC_BACKCHANNEL_ALLOW_PRIVATE)"
    )


def check_settings(
    client_type: str, settings: ClientSettings, *, allow_private: bool = False
) -> None:
    """Raise one ``InvalidArgument`` naming every bad field (spec §7). ``allow_private``:
    the deployment lets back-channel URIs reach non-global addresses."""
    errors: list[FieldError] = []
    name = settings.name.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        errors.append(FieldError("name", f"1 to {MAX_NAME_LENGTH} characters"))
    errors += _uri_list_errors("redirectUris", settings.redirect_uris)
    errors += _uri_list_errors("postLogoutRedirectUris", settings.post_logout_redirect_uris)
    uri = settings.backchannel_logout_uri
    if uri is not None:
        problem = uri_problem(uri)
        if problem is None and not allow_private:
            problem = backchannel_target_problem(uri)
        if problem:
            errors.append(FieldError("backchannelLogoutUri", problem))
    errors += _grant_errors(client_type, settings)
    if errors:
        fields = ", ".join(e.field for e in errors)
        raise InvalidArgument(f"invalid value for: {fields}", errors=errors)


# --- Storage ------------------------------------------------------------------------------


def _not_found() -> NotFound:
    return NotFound("no client with this client_id", code="admin.client_not_found")


def new_secret() -> str:
    """A client secret of 256 random bits (DESIGN.md "Tokens and clients")."""
    return secrets.token_urlsafe(32)


async def _scopes_of(session: AsyncSession, pks: Sequence[uuid.UUID]) -> dict[uuid.UUID, list[str]]:
    found: dict[uuid.UUID, list[str]] = {pk: [] for pk in pks}
    rows = await session.execute(
        select(ClientScope.client_pk, Scope.value)
        .join(Scope, Scope.id == ClientScope.scope_id)
        .where(ClientScope.client_pk.in_(list(pks)))
        .order_by(Scope.value)
    )
    for pk, value in rows:
        found[pk].append(value)
    return found


def _read(row: Client, scopes: list[str]) -> ClientRead:
    return ClientRead(
        client_id=row.client_id,
        name=row.name,
        type=CLIENT_TYPE_PUBLIC if row.type == CLIENT_TYPE_PUBLIC else CLIENT_TYPE_CONFIDENTIAL,
        redirect_uris=list(row.redirect_uris),
        post_logout_redirect_uris=list(row.post_logout_redirect_uris),
        backchannel_logout_uri=row.backchannel_logout_uri,
        grant_types=list(row.grant_types),
        skip_consent=row.skip_consent,
        scopes=scopes,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


async def _row(session: AsyncSession, client_id: str, *, lock: bool = False) -> Client:
    """The client row; 404 for an unknown ``client_id`` (any string may be asked for)."""
    if not client_id or len(client_id) > MAX_CLIENT_ID_LENGTH:
        raise _not_found()
    query = select(Client).where(Client.client_id == client_id)
    row = await session.scalar(query.with_for_update() if lock else query)
    if row is None:
        raise _not_found()
    return row


async def _read_of(session: AsyncSession, row: Client) -> ClientRead:
    return _read(row, (await _scopes_of(session, [row.id]))[row.id])


async def list_clients(session: AsyncSession, *, limit: int, cursor: str | None) -> ClientPage:
    """One page of clients in ``client_id`` order."""
    rows: list[Client]
    rows, next_cursor = await keyset_page(
        session,
        select(Client),
        order_by=[Client.client_id.expression],
        key_of=lambda r: (r.client_id,),
        limit=limit,
        cursor=cursor,
    )
    scopes = await _scopes_of(session, [r.id for r in rows])
    return ClientPage(items=[_read(r, scopes[r.id]) for r in rows], next_cursor=next_cursor)


async def get_client(session: AsyncSession, client_id: str) -> ClientRead:
    return await _read_of(session, await _row(session, client_id))


async def create_client(
    session: AsyncSession,
    client_type: ClientType,
    settings: ClientSettings,
    *,
    allow_private: bool = False,
) -> ClientCreated:
    """Insert a client (and its secret's digest when confidential); 422 on bad settings."""
    check_settings(client_type, settings, allow_private=allow_private)
    row = Client(
        client_id=secrets.token_urlsafe(18),
        name=settings.name.strip(),
        type=client_type,
        redirect_uris=settings.redirect_uris,
        post_logout_redirect_uris=settings.post_logout_redirect_uris,
        backchannel_logout_uri=settings.backchannel_logout_uri,
        grant_types=settings.grant_types,
        skip_consent=settings.skip_consent,
    )
    session.add(row)
    try:
        await session.flush()
    except IntegrityError:  # 144 random bits: a clash is not expected, but is not a 500
        raise Conflict("client_id clash, try again", code="admin.client_id_taken") from None
    secret = new_secret() if client_type == CLIENT_TYPE_CONFIDENTIAL else None
    if secret is not None:
        session.add(ClientSecret(client_pk=row.id, digest=digest(secret)))
        await session.flush()
    read = _read(row, [])
    return ClientCreated(**msgspec.structs.asdict(read), client_secret=secret)


async def update_client(
    session: AsyncSession,
    client_id: str,
    changes: Mapping[str, Any],
    *,
    allow_private: bool = False,
) -> tuple[ClientRead, list[str]]:
    """Apply ``changes`` (snake_case field → value) and check the client as a whole.

    Returns the client and the names of the fields that changed. A back-channel URI
    stored before the address rule existed is judged only when the patch sends one.
    """
    row = await _row(session, client_id, lock=True)
    current = ClientSettings(
        name=row.name,
        redirect_uris=list(row.redirect_uris),
        post_logout_redirect_uris=list(row.post_logout_redirect_uris),
        backchannel_logout_uri=row.backchannel_logout_uri,
        grant_types=list(row.grant_types),
        skip_consent=row.skip_consent,
    )
    merged = replace(current, **changes)
    check_settings(
        row.type,
        merged,
        allow_private=allow_private or "backchannel_logout_uri" not in changes,
    )
    changed = [k for k in changes if getattr(current, k) != getattr(merged, k)]
    for field in changed:
        value = getattr(merged, field)
        setattr(row, field, value.strip() if field == "name" else value)
    if changed:
        await session.flush()
        await session.refresh(row)
    return await _read_of(session, row), changed


async def delete_client(session: AsyncSession, client_id: str) -> None:
    """Delete the client and, by cascade, everything issued to it; the console stays (409)."""
    row = await _row(session, client_id, lock=True)
    if row.client_id == CONSOLE_CLIENT_ID:
        raise Conflict(
            "the console client is the administration console's own and cannot be deleted",
            code="admin.client_protected",
        )
    await session.execute(delete(Client).where(Client.id == row.id))


async def rotate_secret(session: AsyncSession, client_id: str) -> SecretRotated:
    """Replace a confidential client's secret; the old one stops matching at commit."""
    row = await _row(session, client_id, lock=True)
    if row.type != CLIENT_TYPE_CONFIDENTIAL:
        raise Conflict("a public client has no secret", code="admin.client_public")
    secret = new_secret()
    await session.execute(delete(ClientSecret).where(ClientSecret.client_pk == row.id))
    session.add(ClientSecret(client_pk=row.id, digest=digest(secret)))
    await session.flush()
    return SecretRotated(client_id=row.client_id, client_secret=secret)


async def client_scope_values(session: AsyncSession, client_id: str) -> frozenset[str]:
    """The scopes the client may request (none for an unknown client)."""
    rows = await session.scalars(
        select(Scope.value)
        .join(ClientScope, ClientScope.scope_id == Scope.id)
        .join(Client, Client.id == ClientScope.client_pk)
        .where(Client.client_id == client_id)
    )
    return frozenset(rows)


async def set_scopes(
    session: AsyncSession, client_id: str, values: Sequence[str]
) -> tuple[ClientRead, list[str]]:
    """Replace the client's scopes by ``values``; 422 naming ``scopes[i]`` for an unknown one.
    Returns the client and the scopes it did not have before (sorted)."""
    row = await _row(session, client_id, lock=True)
    before = set((await _scopes_of(session, [row.id]))[row.id])
    wanted = list(dict.fromkeys(values))
    known = dict(
        (await session.execute(select(Scope.value, Scope.id).where(Scope.value.in_(wanted)))).all()
    )
    errors = [
        FieldError(f"scopes[{i}]", "unknown scope") for i, v in enumerate(values) if v not in known
    ]
    if errors:
        raise InvalidArgument("unknown scopes", errors=errors)
    await session.execute(delete(ClientScope).where(ClientScope.client_pk == row.id))
    for value in wanted:
        session.add(ClientScope(client_pk=row.id, scope_id=known[value]))
    await session.flush()
    return await _read_of(session, row), sorted(set(wanted) - before)
