"""Roles, groups and the grants that make a user's effective scopes.

Effective scopes are the union of direct grants (``user_scopes``), the scopes of the
user's roles (``user_roles`` → ``role_scopes``) and the scopes of the roles of the user's
groups (``group_members`` → ``group_roles`` → ``role_scopes``); see docs/design.md "The
provider's own API and its permissions". Every link row cascades from both ends. The
second column of each composite key has its own index, for lookups from that side and for
cascading deletes.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from ._base import Base, created_at, updated_at, uuid_pk

_USER_FK = "users.id"
_ROLE_FK = "roles.id"
_GROUP_FK = "groups.id"
_SCOPE_FK = "scopes.id"


class Role(Base):
    """A named set of scopes."""

    __tablename__ = "roles"

    id: Mapped[uuid.UUID] = uuid_pk()
    name: Mapped[str] = mapped_column(unique=True)
    description: Mapped[str] = mapped_column(server_default="")
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class RoleScope(Base):
    """A scope held by a role."""

    __tablename__ = "role_scopes"

    role_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_ROLE_FK, ondelete="CASCADE"), primary_key=True
    )
    scope_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_SCOPE_FK, ondelete="CASCADE"), primary_key=True, index=True
    )


class Group(Base):
    """A set of users that receives roles together."""

    __tablename__ = "groups"

    id: Mapped[uuid.UUID] = uuid_pk()
    name: Mapped[str] = mapped_column(unique=True)
    description: Mapped[str] = mapped_column(server_default="")
    #: A SCIM client's own id of the group (RFC 7643 §3.1; migration 0015).
    external_id: Mapped[str | None] = mapped_column(index=True)
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class GroupMember(Base):
    """A user's membership of a group."""

    __tablename__ = "group_members"

    group_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_GROUP_FK, ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_USER_FK, ondelete="CASCADE"), primary_key=True, index=True
    )


class GroupRole(Base):
    """A role given to every member of a group."""

    __tablename__ = "group_roles"

    group_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_GROUP_FK, ondelete="CASCADE"), primary_key=True
    )
    role_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_ROLE_FK, ondelete="CASCADE"), primary_key=True, index=True
    )


class UserRole(Base):
    """A role given to one user."""

    __tablename__ = "user_roles"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_USER_FK, ondelete="CASCADE"), primary_key=True
    )
    role_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_ROLE_FK, ondelete="CASCADE"), primary_key=True, index=True
    )


class UserScope(Base):
    """A scope granted directly to one user."""

    __tablename__ = "user_scopes"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_USER_FK, ondelete="CASCADE"), primary_key=True
    )
    scope_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_SCOPE_FK, ondelete="CASCADE"), primary_key=True, index=True
    )
