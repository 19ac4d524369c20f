"""People, the one owner of ``users`` (contract §2 "Built-in person facts"): the person
record as sign-in, token issuance, the administration and the self-service APIs see it.
Their direct grants (``user_roles``, ``user_scopes``) are :mod:`.user_grants`; their
secrets :mod:`.credentials`.

Contract (every function runs in the caller's transaction):
- ``email`` and ``username`` are unique case-insensitively. :func:`create_user` and
  :func:`update_user` check first and raise :class:`IdentifierTaken` naming the field;
  of two concurrent writers of one address or username, the unique index makes the second
  wait for the first and then fail, which raises the same :class:`IdentifierTaken`;
- :func:`lock_user` takes the row lock (``SELECT … FOR UPDATE``): writes to one person
  that lock first run one after the other;
- :func:`update_user` is one ``UPDATE … RETURNING`` that moves ``updated_at``; a new email
  naming another mailbox (not only another letter case) is unverified unless the change
  sets ``email_verified`` itself;
- :func:`delete_user` removes the person and, by foreign-key cascade, their credentials,
  grants, memberships, codes, refresh tokens, consents and profile values.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Final

import msgspec
from sqlalchemy import Text, bindparam, delete, func, insert, select, tuple_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from idp_common.storage.db.models import (
    FaceTemplate,
    Passkey,
    PasswordCredential,
    TotpCredential,
    User,
)
from idp_common.storage.repos import user_grants
from idp_common.storage.repos.credentials import set_password_hash
from idp_common.storage.repos.paging import Page, decode_cursor, encode_cursor

#: At home in :mod:`.user_grants`; sign-in, issuance and the admin authority import it here.
effective_scopes = user_grants.effective_scopes
#: The attributes :func:`update_user` may change.
CHANGEABLE: Final = frozenset(
    {"email", "username", "display_name", "email_verified", "disabled", "picture", "external_id"}
)


class UserRecord(msgspec.Struct, frozen=True, kw_only=True):
    id: uuid.UUID
    email: str
    username: str | None
    display_name: str
    picture: str | None
    email_verified: bool
    disabled: bool
    updated_at: datetime


class UserAccount(UserRecord, frozen=True, kw_only=True):
    """The record with its creation time, as the administration and profile APIs show it."""

    created_at: datetime


class IdentifierTaken(Exception):
    """Another person has this ``email`` or ``username`` (case-insensitively)."""

    def __init__(self, field: str) -> None:
        super().__init__(f"another person has this {field}")
        self.field = field


_COLUMNS: Final = (
    User.id,
    User.email,
    User.username,
    User.display_name,
    User.picture,
    User.email_verified,
    User.disabled,
    User.updated_at,
    User.created_at,
)


def _account(row: Any) -> UserAccount:
    return UserAccount(**{column.key: value for column, value in zip(_COLUMNS, row, strict=True)})


def parse_user_id(value: uuid.UUID | str) -> uuid.UUID | None:
    """The id ``value`` names, or None: a malformed id names nobody."""
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(value)
    except ValueError:
        return None


# --- reads ---------------------------------------------------------------------------------


async def get_user(session: AsyncSession, user_id: uuid.UUID | str) -> UserAccount | None:
    """The person as stored now (not a copy the session saw earlier); None when absent."""
    key = parse_user_id(user_id)
    if key is None:
        return None
    row = (await session.execute(select(*_COLUMNS).where(User.id == key))).one_or_none()
    return None if row is None else _account(row)


async def lock_user(session: AsyncSession, user_id: uuid.UUID | str) -> UserAccount | None:
    """The person, locked until the transaction ends; None when absent."""
    key = parse_user_id(user_id)
    if key is None:
        return None
    query = select(*_COLUMNS).where(User.id == key).with_for_update()
    row = (await session.execute(query)).one_or_none()
    return None if row is None else _account(row)


async def get_user_by_email(session: AsyncSession, email: str) -> UserAccount | None:
    """Case-insensitive lookup (the unique index is on lower(email))."""
    query = select(*_COLUMNS).where(func.lower(User.email) == email.strip().lower())
    row = (await session.execute(query)).one_or_none()
    return None if row is None else _account(row)


async def username_in_use(session: AsyncSession, username: str) -> bool:
    """Whether some person has ``username`` (case-insensitively)."""
    query = select(User.id).where(func.lower(User.username) == username.lower()).limit(1)
    return await session.scalar(query) is not None


def like_prefix(prefix: str) -> str:
    """A LIKE pattern matching values that start with ``prefix`` taken literally."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


async def list_users(
    session: AsyncSession,
    *,
    email: str | None,
    username: str | None,
    limit: int,
    cursor: str | None,
) -> Page[UserAccount]:
    """People by ``lower(email)``, then id; ``email`` and ``username`` filter by a
    case-insensitive prefix (wildcards in it are literal). Keyset paging as
    :mod:`.paging`, but the sort key is read back from Postgres: ``lower()`` in Postgres
    and ``str.lower`` need not agree beyond ASCII."""
    email_key = func.lower(User.email, type_=Text())
    order: list[ColumnElement[Any]] = [email_key, User.id.expression]
    query = select(*_COLUMNS, email_key)
    for column, prefix in ((User.email, email), (User.username, username)):
        if prefix:
            key = func.lower(column, type_=Text())
            query = query.where(key.like(func.lower(like_prefix(prefix)), escape="\\"))
    if cursor:
        values = decode_cursor(cursor, order)
        bound = [bindparam(None, v, type_=col.type) for col, v in zip(order, values, strict=True)]
        query = query.where(tuple_(*order) > tuple_(*bound))
    rows = (await session.execute(query.order_by(*order).limit(limit + 1))).all()
    page = rows[:limit]
    more = len(rows) > limit and bool(page)
    next_cursor = encode_cursor([page[-1][-1], page[-1][0]]) if more else None
    return Page(items=[_account(row[:-1]) for row in page], next_cursor=next_cursor)


# --- sign-in and issuance ------------------------------------------------------------------


class SignInFacts(msgspec.Struct, frozen=True, kw_only=True):
    """What a first-factor sign-in needs about an account, read in one round trip."""

    user: UserRecord
    password_hash: str | None
    has_totp: bool  # a confirmed authenticator: the code step follows
    has_face: bool = False  # an enrolled face: the face step may follow the password
    has_passkey: bool = False  # a usable passkey: it may follow the password


async def sign_in_facts(session: AsyncSession, email: str) -> SignInFacts | None:
    """The account an email names (case-insensitively), its password hash, whether it
    has a confirmed authenticator, an enrolled face and a usable passkey; one statement
    instead of five. No address holds NUL (PostgreSQL text cannot): such an email names no
    account, and the database is not asked."""
    if "\x00" in email:
        return None
    passkey = (
        select(Passkey.id)
        .where(Passkey.user_id == User.id, Passkey.clone_suspected_at.is_(None))
        .exists()
    )
    row = (
        await session.execute(
            select(
                *_COLUMNS,
                PasswordCredential.hash,
                TotpCredential.confirmed_at,
                FaceTemplate.user_id,
                passkey,
            )
            .outerjoin(PasswordCredential, PasswordCredential.user_id == User.id)
            .outerjoin(TotpCredential, TotpCredential.user_id == User.id)
            .outerjoin(FaceTemplate, FaceTemplate.user_id == User.id)
            .where(func.lower(User.email) == email.strip().lower())
        )
    ).first()
    if row is None:
        return None
    *user, password_hash, confirmed_at, face_owner, has_passkey = row
    return SignInFacts(
        user=_account(user),
        password_hash=password_hash,
        has_totp=confirmed_at is not None,
        has_face=face_owner is not None,
        has_passkey=bool(has_passkey),
    )


# --- writes --------------------------------------------------------------------------------


async def _check_unique(
    session: AsyncSession, changes: dict[str, Any], other_than: uuid.UUID | None
) -> None:
    for field, column in (("email", User.email), ("username", User.username)):
        value = changes.get(field)
        if value is None:
            continue
        query = select(User.id).where(func.lower(column) == value.lower())
        if other_than is not None:
            query = query.where(User.id != other_than)
        if await session.scalar(query.limit(1)) is not None:
            raise IdentifierTaken(field)


def _taken_of(error: IntegrityError) -> IdentifierTaken:
    """The unique-index violation of a concurrent writer, named by its field."""
    text = str(error.orig)
    if "uq_users_username_lower" in text:
        return IdentifierTaken("username")
    if "uq_users_email_lower" in text:
        return IdentifierTaken("email")
    raise error


async def create_user(
    session: AsyncSession,
    *,
    email: str,
    username: str | None,
    display_name: str,
    password_hash: str | None,
    email_verified: bool = False,
    external_id: str | None = None,
) -> UserAccount:
    """Insert the person and, unless None, their password (an argon2id PHC string);
    ``external_id``: a SCIM client's own id of the person (docs/scim.md)."""
    values = {"email": email, "username": username}
    await _check_unique(session, values, None)
    statement = (
        insert(User)
        .values(
            **values,
            display_name=display_name,
            email_verified=email_verified,
            external_id=external_id,
        )
        .returning(*_COLUMNS)
    )
    try:
        account = _account((await session.execute(statement)).one())
    except IntegrityError as error:
        raise _taken_of(error) from error
    if password_hash is not None:
        await set_password_hash(session, account.id, password_hash)
    return account


async def update_user(
    session: AsyncSession, user_id: uuid.UUID, changes: dict[str, Any]
) -> UserAccount | None:
    """Apply ``changes`` (names in :data:`CHANGEABLE`; none at all only moves ``updated_at``);
    None when the person is absent."""
    unknown = set(changes) - CHANGEABLE
    if unknown:
        raise ValueError(f"not changeable: {sorted(unknown)}")
    values = dict(changes)
    if "email" in values and "email_verified" not in values:
        before = await session.scalar(select(User.email).where(User.id == user_id))
        if before is not None and before.lower() != values["email"].lower():
            values["email_verified"] = False
    await _check_unique(session, values, user_id)
    statement = (
        update(User)
        .where(User.id == user_id)
        .values(**values, updated_at=func.now())
        .returning(*_COLUMNS)
    )
    try:
        row = (await session.execute(statement)).one_or_none()
    except IntegrityError as error:
        raise _taken_of(error) from error
    return None if row is None else _account(row)


async def delete_user(session: AsyncSession, user_id: uuid.UUID) -> None:
    await session.execute(delete(User).where(User.id == user_id))


# --- the saved language (docs/languages.md) ------------------------------------------------


async def get_ui_locale(session: AsyncSession, user_id: uuid.UUID | str) -> str | None:
    """The language the person chose for pages and mails (``users.ui_locale``); None when
    none was chosen or the person is absent."""
    key = parse_user_id(user_id)
    if key is None:
        return None
    return await session.scalar(select(User.ui_locale).where(User.id == key))


async def set_ui_locale(session: AsyncSession, user_id: uuid.UUID, locale: str | None) -> bool:
    """Save the person's language (a supported tag, checked by the caller; None clears
    it); False when the person is absent. Not a profile change: ``updated_at`` (the OIDC
    claim) stays, against the column's on-update default."""
    statement = (
        update(User)
        .where(User.id == user_id)
        .values(ui_locale=locale, updated_at=User.updated_at)
        .returning(User.id)
    )
    return (await session.execute(statement)).scalar_one_or_none() is not None


# --- what ends earlier tokens (docs/security.md "Tokens end when what they stand for ends") -


async def mark_credentials_changed(session: AsyncSession, user_id: uuid.UUID) -> None:
    """Record that the person's credentials changed now (``credentials_changed_at``, the
    transaction's time): a sign-in from before it cannot step up, and a token about the
    person issued before it without a session is refused. Not a profile change:
    ``updated_at`` (the OIDC claim) stays. Nothing happens when the person is absent."""
    statement = (
        update(User)
        .where(User.id == user_id)
        .values(credentials_changed_at=func.now(), updated_at=User.updated_at)
    )
    await session.execute(statement)
