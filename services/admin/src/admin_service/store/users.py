"""People as the administration API sees them (spec part 4 "Admin: users").

Every function runs in the caller's transaction. Writes to one person lock the user row
first (``SELECT ... FOR UPDATE``), so two writes to one person run one after the other. A
missing person (or a malformed id) is ``NotFound``; a taken email or username is
``Conflict`` naming the field, checked first and, for a concurrent insert, mapped from
the unique index's violation. Deleting a person removes their credentials, grants,
memberships, codes, refresh tokens, consents and profile values by foreign-key cascade.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import Text, bindparam, delete, func, select, tuple_
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from idp_common.errors import Conflict, FieldError, InvalidArgument, NotFound
from idp_common.protocol.email_address import email_problem
from idp_common.storage.db.models import (
    PasswordCredential,
    Role,
    Scope,
    TotpCredential,
    TotpRecoveryCode,
    User,
    UserRole,
    UserScope,
)
from idp_common.storage.repos.paging import Page, decode_cursor, encode_cursor


class UserRead(msgspec.Struct, frozen=True, rename="camel"):
    id: uuid.UUID
    email: str
    username: str | None
    display_name: str
    email_verified: bool
    disabled: bool
    created_at: datetime
    updated_at: datetime


class RoleRef(msgspec.Struct, frozen=True):
    id: uuid.UUID
    name: str


def _read(user: User) -> UserRead:
    return UserRead(
        id=user.id,
        email=user.email,
        username=user.username,
        display_name=user.display_name,
        email_verified=user.email_verified,
        disabled=user.disabled,
        created_at=user.created_at,
        updated_at=user.updated_at,
    )


def parse_id(value: str) -> uuid.UUID | None:
    """The UUID in a path segment, or None: a malformed id names nothing, so it is a 404."""
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def user_not_found() -> NotFound:
    return NotFound("no user with this id", code="admin.user_not_found")


def check_email(address: str) -> None:
    problem = email_problem(address)
    if problem:
        raise InvalidArgument(f"email {problem}", errors=[FieldError("email", problem)])


def like_prefix(prefix: str) -> str:
    """A LIKE pattern matching values that start with ``prefix`` taken literally."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


def _taken(field: str) -> Conflict:
    return Conflict(
        f"{field}: another user already has this {field}",
        code=f"admin.{field}_taken",
        errors=[FieldError(field, f"another user already has this {field}")],
    )


async def _check_unique(
    session: AsyncSession, *, email: str | None, username: str | None, other_than: uuid.UUID | None
) -> None:
    """Conflict when another person has ``email`` or ``username`` (case-insensitively)."""
    for field, column, value in (
        ("email", User.email, email),
        ("username", User.username, username),
    ):
        if value is None:
            continue
        query = select(User.id).where(func.lower(column) == value.lower())
        if other_than is not None:
            query = query.where(User.id != other_than)
        if await session.scalar(query.limit(1)) is not None:
            raise _taken(field)


def _conflict_of(error: IntegrityError) -> Conflict:
    """A unique-index violation from a concurrent write, named by its field."""
    text = str(error.orig)
    return _taken("username" if "uq_users_username_lower" in text else "email")


async def _flush(session: AsyncSession) -> None:
    try:
        await session.flush()
    except IntegrityError as error:
        raise _conflict_of(error) from error


# --- reads ----------------------------------------------------------------------------------


async def list_users(
    session: AsyncSession,
    *,
    email: str | None,
    username: str | None,
    limit: int,
    cursor: str | None,
) -> Page[UserRead]:
    """People by ``lower(email)``, then id; ``email`` and ``username`` filter by a
    case-insensitive prefix (wildcards in it are literal).

    Keyset paging as :func:`idp_common.storage.repos.paging.keyset_page`, but the sort key is read
    back from Postgres: ``lower()`` in Postgres and ``str.lower`` need not agree beyond ASCII.
    """
    email_key = func.lower(User.email, type_=Text())
    order: list[ColumnElement[Any]] = [email_key, User.id.expression]
    query = select(User, email_key)
    if email:
        query = query.where(email_key.like(func.lower(like_prefix(email)), escape="\\"))
    if username:
        username_key = func.lower(User.username, type_=Text())
        query = query.where(username_key.like(func.lower(like_prefix(username)), escape="\\"))
    if cursor:
        values = decode_cursor(cursor, order)
        bound = [bindparam(None, v, type_=col.type) for col, v in zip(order, values, strict=True)]
        query = query.where(tuple_(*order) > tuple_(*bound))
    rows = (await session.execute(query.order_by(*order).limit(limit + 1))).tuples().all()
    page = rows[:limit]
    more = len(rows) > limit and bool(page)
    next_cursor = encode_cursor([page[-1][1], page[-1][0].id]) if more else None
    return Page(items=[_read(user) for user, _ in page], next_cursor=next_cursor)


async def _user_row(session: AsyncSession, user_id: str, *, lock: bool = False) -> User:
    key = parse_id(user_id)
    if key is None:
        raise user_not_found()
    query = select(User).where(User.id == key)
    user = await session.scalar(query.with_for_update() if lock else query)
    if user is None:
        raise user_not_found()
    return user


async def get_user(session: AsyncSession, user_id: str) -> UserRead:
    return _read(await _user_row(session, user_id))


async def lock_user(session: AsyncSession, user_id: str) -> UserRead:
    """The person, locked until the transaction ends (``NotFound`` when absent)."""
    return _read(await _user_row(session, user_id, lock=True))


async def user_roles(session: AsyncSession, user_id: str) -> list[RoleRef]:
    """The roles given to the person directly (not through groups), by name."""
    user = await _user_row(session, user_id)
    rows = await session.execute(
        select(Role.id, Role.name)
        .join(UserRole, UserRole.role_id == Role.id)
        .where(UserRole.user_id == user.id)
        .order_by(Role.name)
    )
    return [RoleRef(id=role_id, name=name) for role_id, name in rows.tuples()]


async def user_scopes(session: AsyncSession, user_id: str) -> list[str]:
    """The scopes granted to the person directly, by value."""
    user = await _user_row(session, user_id)
    rows = await session.scalars(
        select(Scope.value)
        .join(UserScope, UserScope.scope_id == Scope.id)
        .where(UserScope.user_id == user.id)
        .order_by(Scope.value)
    )
    return list(rows)


# --- writes ---------------------------------------------------------------------------------


async def create_user(
    session: AsyncSession,
    *,
    email: str,
    username: str | None,
    display_name: str,
    password_hash: str,
) -> UserRead:
    """Insert the person and their password credential (an argon2id PHC string)."""
    check_email(email)
    await _check_unique(session, email=email, username=username, other_than=None)
    user = User(email=email, username=username, display_name=display_name)
    session.add(user)
    await _flush(session)
    session.add(PasswordCredential(user_id=user.id, hash=password_hash))
    await session.flush()
    return _read(user)


async def update_user(session: AsyncSession, user_id: str, changes: dict[str, Any]) -> UserRead:
    """Apply ``changes`` (attribute names of :class:`User`: ``email``, ``username``,
    ``display_name``, ``email_verified``, ``disabled``). A new email is unverified unless
    ``email_verified`` is among the changes."""
    user = await _user_row(session, user_id, lock=True)
    if "email" in changes:
        check_email(changes["email"])
        if changes["email"].lower() != user.email.lower():
            changes.setdefault("email_verified", False)
    await _check_unique(
        session,
        email=changes.get("email"),
        username=changes.get("username"),
        other_than=user.id,
    )
    for name, value in changes.items():
        setattr(user, name, value)
    if changes:
        await _flush(session)
    return _read(user)


async def delete_user(session: AsyncSession, user_id: uuid.UUID) -> None:
    await session.execute(delete(User).where(User.id == user_id))


async def set_user_roles(
    session: AsyncSession, user_id: uuid.UUID, role_ids: Sequence[str]
) -> list[RoleRef]:
    """Replace the person's roles; an unknown or malformed id is a 422 naming ``roles[i]``."""
    parsed = [parse_id(value) for value in role_ids]
    wanted = {key for key in parsed if key is not None}
    found = {
        role.id: role for role in await session.scalars(select(Role).where(Role.id.in_(wanted)))
    }
    errors = [
        FieldError(f"roles[{i}]", "no role with this id")
        for i, key in enumerate(parsed)
        if key is None or key not in found
    ]
    if errors:
        raise InvalidArgument("roles: unknown role", errors=errors)
    await session.execute(delete(UserRole).where(UserRole.user_id == user_id))
    session.add_all(UserRole(user_id=user_id, role_id=key) for key in found)
    await session.flush()
    return sorted((RoleRef(id=r.id, name=r.name) for r in found.values()), key=lambda r: r.name)


async def set_user_scopes(
    session: AsyncSession, user_id: uuid.UUID, values: Sequence[str]
) -> list[str]:
    """Replace the person's direct grants; an unknown value is a 422 naming ``scopes[i]``."""
    found = dict(
        (await session.execute(select(Scope.value, Scope.id).where(Scope.value.in_(values))))
        .tuples()
        .all()
    )
    errors = [
        FieldError(f"scopes[{i}]", "no scope with this value")
        for i, value in enumerate(values)
        if value not in found
    ]
    if errors:
        raise InvalidArgument("scopes: unknown scope", errors=errors)
    await session.execute(delete(UserScope).where(UserScope.user_id == user_id))
    session.add_all(UserScope(user_id=user_id, scope_id=scope_id) for scope_id in found.values())
    await session.flush()
    return sorted(found)


async def set_password_hash(session: AsyncSession, user_id: uuid.UUID, hash: str | None) -> None:
    """Store the person's password (an argon2id PHC string), or remove it with None."""
    await session.execute(delete(PasswordCredential).where(PasswordCredential.user_id == user_id))
    if hash is not None:
        session.add(PasswordCredential(user_id=user_id, hash=hash))
        await session.flush()


async def clear_totp(session: AsyncSession, user_id: uuid.UUID) -> bool:
    """Remove the authenticator and every recovery code; True when there was one."""
    removed = await session.execute(delete(TotpCredential).where(TotpCredential.user_id == user_id))
    await session.execute(delete(TotpRecoveryCode).where(TotpRecoveryCode.user_id == user_id))
    return bool(getattr(removed, "rowcount", 0))
