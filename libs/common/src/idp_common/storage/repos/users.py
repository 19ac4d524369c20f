"""People as sign-in and token issuance see them."""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec
from sqlalchemy import func, select, union
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from idp_common.storage.db.models import (
    FaceTemplate,
    GroupMember,
    GroupRole,
    PasswordCredential,
    RoleScope,
    Scope,
    TotpCredential,
    User,
    UserRole,
    UserScope,
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


def _record(user: User) -> UserRecord:
    return UserRecord(
        id=user.id,
        email=user.email,
        username=user.username,
        display_name=user.display_name,
        picture=user.picture,
        email_verified=user.email_verified,
        disabled=user.disabled,
        updated_at=user.updated_at,
    )


async def get_user(session: AsyncSession, user_id: uuid.UUID | str) -> UserRecord | None:
    try:
        key = user_id if isinstance(user_id, uuid.UUID) else uuid.UUID(user_id)
    except ValueError:
        return None
    user = await session.get(User, key)
    return None if user is None else _record(user)


async def get_user_by_email(session: AsyncSession, email: str) -> UserRecord | None:
    """Case-insensitive lookup (the unique index is on lower(email))."""
    user = await session.scalar(select(User).where(func.lower(User.email) == email.strip().lower()))
    return None if user is None else _record(user)


async def get_password_hash(session: AsyncSession, user_id: uuid.UUID) -> str | None:
    return await session.scalar(
        select(PasswordCredential.hash).where(PasswordCredential.user_id == user_id)
    )


class SignInFacts(msgspec.Struct, frozen=True, kw_only=True):
    """What a first-factor sign-in needs about an account, read in one round trip."""

    user: UserRecord
    password_hash: str | None
    has_totp: bool  # a confirmed authenticator: the code step follows
    has_face: bool = False  # an enrolled face: the face step may follow the password


async def sign_in_facts(session: AsyncSession, email: str) -> SignInFacts | None:
    """The account an email names (case-insensitively), its password hash, whether it
    has a confirmed authenticator and an enrolled face; one statement instead of four."""
    row = (
        await session.execute(
            select(User, PasswordCredential.hash, TotpCredential.confirmed_at, FaceTemplate.user_id)
            .outerjoin(PasswordCredential, PasswordCredential.user_id == User.id)
            .outerjoin(TotpCredential, TotpCredential.user_id == User.id)
            .outerjoin(FaceTemplate, FaceTemplate.user_id == User.id)
            .where(func.lower(User.email) == email.strip().lower())
        )
    ).first()
    if row is None:
        return None
    user, password_hash, confirmed_at, face_owner = row
    return SignInFacts(
        user=_record(user),
        password_hash=password_hash,
        has_totp=confirmed_at is not None,
        has_face=face_owner is not None,
    )


async def effective_scopes(session: AsyncSession, user_id: uuid.UUID) -> set[str]:
    """Direct grants, plus roles' scopes, plus scopes of the roles of the user's groups, plus the
    self-service scopes every user holds (DESIGN.md "The provider's own API")."""
    direct = select(UserScope.scope_id).where(UserScope.user_id == user_id)
    via_roles = (
        select(RoleScope.scope_id)
        .join(UserRole, UserRole.role_id == RoleScope.role_id)
        .where(UserRole.user_id == user_id)
    )
    via_groups = (
        select(RoleScope.scope_id)
        .join(GroupRole, GroupRole.role_id == RoleScope.role_id)
        .join(GroupMember, GroupMember.group_id == GroupRole.group_id)
        .where(GroupMember.user_id == user_id)
    )
    ids = union(direct, via_roles, via_groups).subquery()
    values = await session.scalars(select(Scope.value).where(Scope.id.in_(select(ids.c.scope_id))))
    return set(values) | set(SELF_SERVICE_SCOPES)
