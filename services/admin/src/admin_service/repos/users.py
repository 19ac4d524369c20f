"""People as the administration API answers them (contract §4 "Admin: users"), over
:mod:`idp_common.storage.repos.users` and :mod:`idp_common.storage.repos.user_grants`.

A missing person (or a malformed id) is ``NotFound`` (``admin.user_not_found``); a taken
email or username is ``Conflict`` naming the field (``admin.email_taken``,
``admin.username_taken``), also when a concurrent writer wins the unique index.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Any, TypeVar

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import Conflict, FieldError, InvalidArgument, NotFound
from idp_common.protocol.email_address import email_problem
from idp_common.storage.repos import user_grants, users
from idp_common.storage.repos.paging import Page
from idp_common.storage.repos.user_grants import RoleRef
from idp_common.storage.repos.users import IdentifierTaken, UserAccount

T = TypeVar("T")


class UserRead(msgspec.Struct, frozen=True, rename="camel"):
    id: uuid.UUID
    email: str
    username: str | None
    display_name: str
    email_verified: bool
    disabled: bool
    created_at: datetime
    updated_at: datetime


def _read(account: UserAccount) -> UserRead:
    fields = UserRead.__struct_fields__
    return UserRead(**{name: getattr(account, name) for name in fields})


def user_not_found() -> NotFound:
    return NotFound("no user with this id", code="admin.user_not_found")


def check_email(address: str) -> None:
    problem = email_problem(address)
    if problem:
        raise InvalidArgument(f"email {problem}", errors=[FieldError("email", problem)])


def _taken(field: str) -> Conflict:
    return Conflict(
        f"{field}: another user already has this {field}",
        code=f"admin.{field}_taken",
        errors=[FieldError(field, f"another user already has this {field}")],
    )


async def _unique(write: Coroutine[Any, Any, T]) -> T:
    try:
        return await write
    except IdentifierTaken as taken:
        raise _taken(taken.field) from taken


async def _found(
    find: Callable[[AsyncSession, str], Coroutine[Any, Any, UserAccount | None]],
    session: AsyncSession,
    user_id: str,
) -> UserAccount:
    account = await find(session, user_id)
    if account is None:
        raise user_not_found()
    return account


def page_of(page: Page[UserAccount]) -> Page[UserRead]:
    """A page of :func:`idp_common.storage.repos.users.list_users` as this API answers it."""
    return Page(items=[_read(a) for a in page.items], next_cursor=page.next_cursor)


async def get_user(session: AsyncSession, user_id: str) -> UserRead:
    return _read(await _found(users.get_user, session, user_id))


async def lock_user(session: AsyncSession, user_id: str) -> UserRead:
    """The person, locked until the transaction ends (``NotFound`` when absent)."""
    return _read(await _found(users.lock_user, session, user_id))


async def user_roles(session: AsyncSession, user_id: str) -> list[RoleRef]:
    """The roles given to the person directly (not through groups), by name."""
    account = await _found(users.get_user, session, user_id)
    return await user_grants.user_roles(session, account.id)


async def user_scopes(session: AsyncSession, user_id: str) -> list[str]:
    """The scopes granted to the person directly, by value."""
    account = await _found(users.get_user, session, user_id)
    return await user_grants.user_scopes(session, account.id)


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
    account = await _unique(
        users.create_user(
            session,
            email=email,
            username=username,
            display_name=display_name,
            password_hash=password_hash,
        )
    )
    return _read(account)


async def update_user(session: AsyncSession, user_id: str, changes: dict[str, Any]) -> UserRead:
    """Apply ``changes`` (``email``, ``username``, ``display_name``, ``email_verified``,
    ``disabled``) to the person, locked first. A new email is unverified unless
    ``email_verified`` is among the changes."""
    account = await _found(users.lock_user, session, user_id)
    if not changes:
        return _read(account)
    if "email" in changes:
        check_email(changes["email"])
    updated = await _unique(users.update_user(session, account.id, changes))
    if updated is None:  # unreachable while the row lock is held
        raise user_not_found()
    return _read(updated)
