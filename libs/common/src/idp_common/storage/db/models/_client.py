"""OAuth clients, their secret and their allowed scopes (RFC 6749 §2)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, false, text
from sqlalchemy.orm import Mapped, mapped_column

from ._api import SIGNING_ALG_SQL
from ._base import EMPTY_TEXT_ARRAY, Base, created_at, updated_at, uuid_pk

_CLIENT_FK = "clients.id"


class Client(Base):
    """An OAuth client. ``id`` is the internal key (``client_pk`` elsewhere);
    ``client_id`` is the public identifier of RFC 6749 §2.2.

    Redirect URIs are compared exactly (DESIGN.md "Tokens and clients"). The two
    ``*_signed_response_alg`` columns are OIDC Registration's (issue #24): the ID-token
    algorithm (also the logout tokens'), and the userinfo algorithm (NULL: plain JSON).
    """

    __tablename__ = "clients"
    __table_args__ = (
        CheckConstraint("type IN ('confidential', 'public')", name="type"),
        CheckConstraint(
            f"id_token_signed_response_alg IN {SIGNING_ALG_SQL}",
            name="id_token_signed_response_alg",
        ),
        CheckConstraint(
            f"userinfo_signed_response_alg IN {SIGNING_ALG_SQL}",
            name="userinfo_signed_response_alg",
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    client_id: Mapped[str] = mapped_column(unique=True)
    name: Mapped[str]
    type: Mapped[str]
    redirect_uris: Mapped[list[str]] = mapped_column(server_default=EMPTY_TEXT_ARRAY)
    post_logout_redirect_uris: Mapped[list[str]] = mapped_column(server_default=EMPTY_TEXT_ARRAY)
    backchannel_logout_uri: Mapped[str | None]
    grant_types: Mapped[list[str]]
    skip_consent: Mapped[bool] = mapped_column(server_default=false())
    id_token_signed_response_alg: Mapped[str] = mapped_column(server_default=text("'RS256'"))
    userinfo_signed_response_alg: Mapped[str | None]
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class ClientSecret(Base):
    """The SHA-256 digest of a confidential client's secret.

    At most one per client (``UNIQUE (client_pk)``): rotating replaces the row.
    """

    __tablename__ = "client_secrets"

    id: Mapped[uuid.UUID] = uuid_pk()
    client_pk: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_CLIENT_FK, ondelete="CASCADE"), unique=True
    )
    digest: Mapped[bytes]
    created_at: Mapped[datetime] = created_at()


class ClientScope(Base):
    """A scope the client may request."""

    __tablename__ = "client_scopes"

    client_pk: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_CLIENT_FK, ondelete="CASCADE"), primary_key=True
    )
    scope_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("scopes.id", ondelete="CASCADE"), primary_key=True, index=True
    )
