"""OAuth clients (RFC 6749 §2): the one writer of ``clients``, ``client_scopes`` and
``client_secrets``; the protocol endpoints read them through :func:`get_client`.

Every function runs in the caller's transaction. Guarantees, whoever calls:
- ``client_id`` is unique (generated, 144 random bits, unless the caller names it) and
  never changes, nor does ``type``. Two creates of one ``client_id`` (even racing): one
  row, the others a ``Conflict`` ``admin.client_id_taken``.
- A confidential client has exactly one secret, stored as its SHA-256 digest (one row per
  client); the secret itself is answered once, by :func:`create_client` or
  :func:`rotate_secret`. A public client has none and cannot rotate (``Conflict``).
- Writes to one client lock its row first (``SELECT ... FOR UPDATE``), so concurrent
  writes run one after the other: a rotation replaces the secret in one delete and one
  insert, a scope replace leaves one whole set.
- The seeded :data:`CONSOLE_CLIENT_ID` is the console's own: it is never deleted nor
  disabled (every administrator signs in to the console through it).
- Deleting a client deletes its secret, scopes, codes, refresh tokens and consents too.
- The signing algorithms (``id_token_signed_response_alg``, ``userinfo_signed_response_alg``)
  are stored as given: the caller checks the provider holds a key for them.
- A ``client_secret_jwt`` client's secret is also kept sealed (``client_secrets.sealed``,
  :mod:`idp_common.crypto.secretbox`, context :func:`client_secret_context` of the row id)
  when :func:`create_client` or :func:`rotate_secret` issues it with a
  ``secrets_key``: its HMAC key is the secret itself. For every other method it is NULL
  (a switch away from ``client_secret_jwt`` drops it); a client switched to
  ``client_secret_jwt`` gets a sealed copy at its next rotation.
The caller checks the settings' rules (before a create; ``check`` under the lock of an
update). :func:`ensure_client` is the operator tool's idempotent form.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, fields, replace
from typing import Any, Final

import msgspec
from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import flag_modified

from idp_common.crypto.secretbox import client_secret_context, seal
from idp_common.errors import Conflict, FieldError, InvalidArgument, NotFound
from idp_common.protocol.constants import CLIENT_AUTH_SECRET_JWT, CLIENT_TYPE_CONFIDENTIAL
from idp_common.protocol.fetch_cors import effective_web_origins
from idp_common.protocol.oidc_core_claims import digest
from idp_common.storage.db.models import Client, ClientScope, ClientSecret, Scope
from idp_common.storage.repos.catalogue import add_links, replace_links, rows_by_owner
from idp_common.storage.repos.client_shapes import (
    ClientCreated,
    ClientRead,
    ClientSettings,
    ClientType,
    SecretRotated,
)
from idp_common.storage.repos.client_shapes import ClientRecord as ClientRecord  # noqa: PLC0414 - re-exported to the token service
from idp_common.storage.repos.paging import Page, keyset_page

#: The console's own client, seeded by the operator tool.
CONSOLE_CLIENT_ID: Final = "console"
_CONSOLE_STAYS: Final = (
    "the console client cannot be disabled: every administrator signs in to the console "
    "through it, so disabling it would lock every administrator out"
)
MAX_CLIENT_ID_LENGTH: Final = 255


async def _scopes_of(session: AsyncSession, pks: Sequence[uuid.UUID]) -> dict[uuid.UUID, list[str]]:
    rows = await session.execute(
        select(ClientScope.client_pk, Scope.value)
        .join(Scope, Scope.id == ClientScope.scope_id)
        .where(ClientScope.client_pk.in_(list(pks)))
        .order_by(Scope.value)
    )
    return rows_by_owner(rows, pks)


async def get_client(session: AsyncSession, client_id: str) -> ClientRecord | None:
    """The client with this public ``client_id``, its secret digest and scopes; None if absent."""
    row = (
        await session.execute(
            select(Client, ClientSecret.digest, ClientSecret.sealed)
            .outerjoin(ClientSecret, ClientSecret.client_pk == Client.id)
            .where(Client.client_id == client_id)
        )
    ).first()
    if row is None:
        return None
    client, secret, sealed = row
    return ClientRecord(
        pk=client.id,
        **_fields(client, tuple),
        grant_types=frozenset(client.grant_types),
        scopes=frozenset((await _scopes_of(session, [client.id]))[client.id]),
        secret_digest=secret,
        sealed_secret=sealed,
        token_exchange_audiences=frozenset(client.token_exchange_audiences),
    )


async def all_web_origins(session: AsyncSession) -> frozenset[str]:
    """Every origin some client allows (its ``allowed_web_origins``, else its redirect
    URIs' origins): what a CORS preflight, which names no client, is answered by."""
    rows = await session.execute(select(Client.allowed_web_origins, Client.redirect_uris))
    found: set[str] = set()
    for allowed, redirect_uris in rows:
        found.update(effective_web_origins(allowed, redirect_uris))
    return frozenset(found)


def _fields(row: Client, sequence: Callable[[Iterable[str]], Any]) -> dict[str, Any]:
    """The columns both shapes of a client show, URI lists as ``sequence``."""
    return {
        "client_id": row.client_id,
        "name": row.name,
        "type": row.type,
        "redirect_uris": sequence(row.redirect_uris),
        "post_logout_redirect_uris": sequence(row.post_logout_redirect_uris),
        "backchannel_logout_uri": row.backchannel_logout_uri,
        "skip_consent": row.skip_consent,
        "disabled": row.disabled,
        "id_token_signed_response_alg": row.id_token_signed_response_alg,
        "userinfo_signed_response_alg": row.userinfo_signed_response_alg,
        "token_endpoint_auth_method": row.token_endpoint_auth_method,
        "jwks": row.jwks,
        "jwks_uri": row.jwks_uri,
        "require_pushed_authorization_requests": row.require_pushed_authorization_requests,
        "dpop_bound_access_tokens": row.dpop_bound_access_tokens,
        "security_profile": row.security_profile,
        "allowed_web_origins": sequence(row.allowed_web_origins),
    }


async def scope_descriptions(session: AsyncSession, values: list[str]) -> dict[str, str]:
    """Consent-screen sentence of each known scope value."""
    rows = await session.execute(
        select(Scope.value, Scope.description).where(Scope.value.in_(values))
    )
    return {value: description for value, description in rows}


async def client_scope_values(session: AsyncSession, client_id: str) -> frozenset[str]:
    """The scopes the client may request (none for an unknown client)."""
    rows = await session.scalars(
        select(Scope.value)
        .join(ClientScope, ClientScope.scope_id == Scope.id)
        .join(Client, Client.id == ClientScope.client_pk)
        .where(Client.client_id == client_id)
    )
    return frozenset(rows)


def default_auth_method(client_type: str, settings: ClientSettings) -> str:
    """The settings' method, or by type: ``client_secret_basic`` or ``none``."""
    if settings.token_endpoint_auth_method is not None:
        return settings.token_endpoint_auth_method
    return "client_secret_basic" if client_type == CLIENT_TYPE_CONFIDENTIAL else "none"


def new_secret() -> str:
    """A client secret of 256 random bits (docs/design.md "Tokens and clients")."""
    return secrets.token_urlsafe(32)


def _read(row: Client, scopes: list[str]) -> ClientRead:
    return ClientRead(
        **_fields(row, list),
        grant_types=list(row.grant_types),
        token_exchange_audiences=list(row.token_exchange_audiences),
        scopes=scopes,
        created_at=row.created_at,
        updated_at=row.updated_at,
        logo_uri=None,  # the brand's, filled by storage.repos.brands.branded_clients
        tos_uri=None,
        policy_uri=None,
    )


async def _row(session: AsyncSession, client_id: str, *, lock: bool = False) -> Client:
    """The client row; 404 for an unknown ``client_id`` (any string may be asked for)."""
    query = select(Client).where(Client.client_id == client_id)
    row = None
    if client_id and len(client_id) <= MAX_CLIENT_ID_LENGTH:
        row = await session.scalar(query.with_for_update() if lock else query)
    if row is None:
        raise NotFound("no client with this client_id", code="admin.client_not_found")
    return row


async def _read_of(session: AsyncSession, row: Client) -> ClientRead:
    return _read(row, (await _scopes_of(session, [row.id]))[row.id])


async def list_clients(
    session: AsyncSession, *, limit: int, cursor: str | None
) -> Page[ClientRead]:
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
    return Page(items=[_read(r, scopes[r.id]) for r in rows], next_cursor=next_cursor)


async def read_client(session: AsyncSession, client_id: str) -> ClientRead:
    """The client as the admin API shows it; 404 for an unknown ``client_id``."""
    return await _read_of(session, await _row(session, client_id))


async def create_client(
    session: AsyncSession,
    client_type: ClientType,
    settings: ClientSettings,
    *,
    client_id: str | None = None,
    secrets_key: bytes | None = None,
) -> ClientCreated:
    """Insert a client (``settings`` already checked) and, when confidential, a new
    secret's digest (and, for ``client_secret_jwt`` with ``secrets_key``, the sealed
    secret); ``client_id`` is generated unless given."""
    values = {**asdict(settings), "name": settings.name.strip()}
    values["token_endpoint_auth_method"] = default_auth_method(client_type, settings)
    row = Client(client_id=client_id or secrets.token_urlsafe(18), type=client_type, **values)
    session.add(row)
    try:
        await session.flush()
    except IntegrityError:  # a generated id is not expected to clash, but is not a 500
        raise Conflict("client_id clash, try again", code="admin.client_id_taken") from None
    secret = new_secret() if client_type == CLIENT_TYPE_CONFIDENTIAL else None
    if secret is not None:
        sealed = _sealed(row, secret, secrets_key)
        session.add(ClientSecret(client_pk=row.id, digest=digest(secret), sealed=sealed))
        await session.flush()
    read = _read(row, [])
    return ClientCreated(**msgspec.structs.asdict(read), client_secret=secret)


async def update_client(
    session: AsyncSession,
    client_id: str,
    changes: Mapping[str, Any],
    *,
    check: Callable[[str, ClientSettings], None],
) -> tuple[ClientRead, list[str]]:
    """Apply ``changes`` (snake_case field → value) once ``check(type, merged settings)``
    passes, under the client's lock. Returns the client and the fields that changed."""
    row = await _row(session, client_id, lock=True)
    current = ClientSettings(**{f.name: getattr(row, f.name) for f in fields(ClientSettings)})
    merged = replace(current, **changes)
    check(row.type, merged)
    if merged.disabled and row.client_id == CONSOLE_CLIENT_ID:
        raise InvalidArgument(
            _CONSOLE_STAYS,
            code="admin.client_protected",
            errors=[FieldError("disabled", _CONSOLE_STAYS)],
        )
    changed = [k for k in changes if getattr(current, k) != getattr(merged, k)]
    for field in changed:
        value = getattr(merged, field)
        setattr(row, field, value.strip() if field == "name" else value)
    if "jwks_uri" in changed and merged.jwks is None:
        flag_modified(row, "jwks")  # a JSON 'null' stored by older versions becomes SQL NULL
    method = merged.token_endpoint_auth_method
    if "token_endpoint_auth_method" in changed and method != CLIENT_AUTH_SECRET_JWT:
        await _drop_sealed(session, row.id)
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


async def _drop_sealed(session: AsyncSession, client_pk: uuid.UUID) -> None:
    """Only a ``client_secret_jwt`` client keeps its secret sealed."""
    query = update(ClientSecret).where(ClientSecret.client_pk == client_pk).values(sealed=None)
    await session.execute(query)


def _sealed(row: Client, secret: str, secrets_key: bytes | None) -> bytes | None:
    """The secret sealed for a ``client_secret_jwt`` client when a key is given, else None."""
    if row.token_endpoint_auth_method != CLIENT_AUTH_SECRET_JWT or secrets_key is None:
        return None
    return seal(secret.encode("utf-8"), key=secrets_key, context=client_secret_context(row.id))


async def rotate_secret(
    session: AsyncSession, client_id: str, *, secrets_key: bytes | None = None
) -> SecretRotated:
    """Replace a confidential client's secret; the old one stops matching at commit. A
    ``client_secret_jwt`` client's new secret is sealed with ``secrets_key`` when given."""
    row = await _row(session, client_id, lock=True)
    if row.type != CLIENT_TYPE_CONFIDENTIAL:
        raise Conflict("a public client has no secret", code="admin.client_public")
    secret = new_secret()
    await session.execute(delete(ClientSecret).where(ClientSecret.client_pk == row.id))
    sealed = _sealed(row, secret, secrets_key)
    session.add(ClientSecret(client_pk=row.id, digest=digest(secret), sealed=sealed))
    await session.flush()
    return SecretRotated(client_id=row.client_id, client_secret=secret)


async def set_client_scopes(
    session: AsyncSession, client_id: str, values: Sequence[str]
) -> tuple[ClientRead, list[str]]:
    """Replace the client's scopes by ``values``; 422 naming ``scopes[i]`` for an unknown one.
    Returns the client and the scopes it did not have before (sorted)."""
    row = await _row(session, client_id, lock=True)
    before = set((await _scopes_of(session, [row.id]))[row.id])
    wanted = list(dict.fromkeys(values))
    query = select(Scope.value, Scope.id).where(Scope.value.in_(wanted))
    known = dict((await session.execute(query)).all())
    errors = [
        FieldError(f"scopes[{i}]", "unknown scope") for i, v in enumerate(values) if v not in known
    ]
    if errors:
        raise InvalidArgument("unknown scopes", errors=errors)
    ids = [known[value] for value in wanted]
    await replace_links(session, ClientScope.client_pk, ClientScope.scope_id, row.id, ids)
    return await _read_of(session, row), sorted(set(wanted) - before)


async def ensure_client(
    session: AsyncSession,
    client_id: str,
    client_type: ClientType,
    settings: ClientSettings,
    *,
    scopes: Iterable[str] = (),
    secret_digest: bytes | None = None,
) -> int:
    """Insert the client unless ``client_id`` exists (its redirect and post-logout URIs are
    rewritten when they differ), its secret's digest when given and it has none, and
    whichever of ``scopes`` exist and it lacks; returns how many scopes were linked."""
    await session.execute(
        insert(Client)
        .values(
            client_id=client_id,
            type=client_type,
            **{
                **asdict(settings),
                "token_endpoint_auth_method": default_auth_method(client_type, settings),
            },
        )
        .on_conflict_do_nothing(index_elements=[Client.client_id])
    )
    await session.execute(
        update(Client)
        .where(
            Client.client_id == client_id,
            (Client.redirect_uris != settings.redirect_uris)
            | (Client.post_logout_redirect_uris != settings.post_logout_redirect_uris),
        )
        .values(
            redirect_uris=settings.redirect_uris,
            post_logout_redirect_uris=settings.post_logout_redirect_uris,
            updated_at=func.now(),
        )
    )
    pk = (
        await session.execute(select(Client.id).where(Client.client_id == client_id))
    ).scalar_one()
    if secret_digest is not None:
        await session.execute(
            insert(ClientSecret).values(client_pk=pk, digest=secret_digest).on_conflict_do_nothing()
        )
    scope_ids = await session.scalars(select(Scope.id).where(Scope.value.in_(list(scopes))))
    return await add_links(
        session, ClientScope.client_pk, ClientScope.scope_id, pk, list(scope_ids)
    )
