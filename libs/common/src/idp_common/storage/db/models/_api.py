"""``apis`` and ``scopes`` (contract §2, "Resource API and scope")."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, text
from sqlalchemy.orm import Mapped, mapped_column

from ._base import Base, created_at, updated_at, uuid_pk

#: The JWS algorithms a token may be signed with (protocol.constants).
SIGNING_ALG_SQL = "('RS256', 'PS256', 'ES256', 'EdDSA')"


class Api(Base):
    """A resource API; ``audience`` is the value its access tokens carry in ``aud``,
    ``access_token_signing_alg`` the algorithm they are signed with."""

    __tablename__ = "apis"
    __table_args__ = (
        CheckConstraint(
            f"access_token_signing_alg IN {SIGNING_ALG_SQL}", name="access_token_signing_alg"
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    name: Mapped[str] = mapped_column(unique=True)
    audience: Mapped[str] = mapped_column(unique=True)
    access_token_signing_alg: Mapped[str] = mapped_column(server_default=text("'RS256'"))
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class Scope(Base):
    """A permission. ``api_id`` NULL marks a standard OIDC scope.

    The migration inserts ``openid``, ``profile``, ``email`` and ``offline_access``
    (docs/design.md: they exist without seeding). ``description`` is the consent-screen
    sentence. Deleting the API deletes its scopes and every grant of them.
    """

    __tablename__ = "scopes"

    id: Mapped[uuid.UUID] = uuid_pk()
    api_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("apis.id", ondelete="CASCADE"), index=True
    )
    value: Mapped[str] = mapped_column(unique=True)
    description: Mapped[str]
    created_at: Mapped[datetime] = created_at()
