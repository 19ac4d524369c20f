"""Reads only the token service needs: what a token says about a person, and which API
each scope belongs to (STYLE.md §1: code moves into ``idp_common.repos`` when a second
service needs it).

- ``load_user_claims``: the person's built-in facts plus the values of profile fields
  mapped to a claim (spec part 2 "Profile field" rule 2), in two indexed queries.
- ``scope_audiences``: ``aud`` of the APIs owning the given scopes, one query.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection

import msgspec
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.db.models import Api, ProfileField, ProfileValue, Scope
from idp_common.repos.users import UserRecord, get_user


class MappedClaim(msgspec.Struct, frozen=True):
    """A profile value released as ``name`` to clients granted ``scope``."""

    name: str
    scope: str
    data_type: str
    value: str


class UserClaims(msgspec.Struct, frozen=True, kw_only=True):
    user: UserRecord
    mapped: tuple[MappedClaim, ...] = ()


async def load_user_claims(session: AsyncSession, user_id: uuid.UUID | str) -> UserClaims | None:
    """The person and their mapped profile values; None when the person does not exist."""
    user = await get_user(session, user_id)
    if user is None:
        return None
    rows = await session.execute(
        select(
            ProfileField.claim_name,
            ProfileField.claim_scope,
            ProfileField.data_type,
            ProfileValue.value,
        )
        .join(ProfileValue, ProfileValue.field_id == ProfileField.id)
        .where(ProfileValue.user_id == user.id, ProfileField.claim_name.is_not(None))
    )
    mapped = tuple(
        MappedClaim(name, scope, data_type, value)
        for name, scope, data_type, value in rows
        if name and scope
    )
    return UserClaims(user=user, mapped=mapped)


async def scope_audiences(session: AsyncSession, values: Collection[str]) -> list[str]:
    """Audiences of the APIs that own ``values``, sorted; OIDC scopes own none."""
    if not values:
        return []
    rows = await session.scalars(
        select(Api.audience)
        .join(Scope, Scope.api_id == Api.id)
        .where(Scope.value.in_(list(values)))
        .distinct()
    )
    return sorted(rows)
