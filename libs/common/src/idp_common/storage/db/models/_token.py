"""Single-use and long-lived artifacts: authorization codes, refresh tokens, reset tokens.

Every secret is stored only as a digest (``*_digest``); the plain value is never kept.
Expired rows are deleted by the cleanup job one hour after ``expires_at`` (contract §3),
hence the indexes on ``expires_at``. Codes and refresh tokens are spent by an update of an
unindexed column; their pages keep 20 % free (``fillfactor``) so that update stays on the
page and touches no index (migration 0004).
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index, text
from sqlalchemy.orm import Mapped, mapped_column

from ._base import EMPTY_TEXT_ARRAY, Base, created_at, uuid_pk

_USER_FK = "users.id"
_CLIENT_FK = "clients.id"
#: Room left on each page for the spending update (a heap-only tuple update).
_SPEND_ROOM = {"fillfactor": 80}


class AuthorizationCode(Base):
    """An authorization code (RFC 6749 §4.1.2), 60 s, single use.

    Consumed by setting ``consumed_at`` (``UPDATE … WHERE consumed_at IS NULL RETURNING``),
    so the row outlives its use: a replay finds it and revokes everything issued under
    ``grant_id`` (RFC 6749 §4.1.2, ``revoke_by_grant_id``). PKCE (RFC 7636) values are NULL
    when not used.
    """

    __tablename__ = "authorization_codes"
    __table_args__ = (
        # the unused codes of a session, withdrawn when it ends (migration 0007)
        Index(
            "ix_authorization_codes_unused_session_sid",
            "session_sid",
            postgresql_where=text("consumed_at IS NULL"),
        ),
        {"postgresql_with": _SPEND_ROOM},
    )

    code_digest: Mapped[bytes] = mapped_column(primary_key=True)
    grant_id: Mapped[uuid.UUID]
    client_pk: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_CLIENT_FK, ondelete="CASCADE"), index=True
    )
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey(_USER_FK, ondelete="CASCADE"), index=True)
    redirect_uri: Mapped[str]
    scope: Mapped[str]
    nonce: Mapped[str | None]
    code_challenge: Mapped[str | None]
    code_challenge_method: Mapped[str | None]
    session_sid: Mapped[str | None]
    auth_time: Mapped[datetime]
    acr: Mapped[str | None]
    amr: Mapped[list[str]] = mapped_column(server_default=EMPTY_TEXT_ARRAY)
    expires_at: Mapped[datetime] = mapped_column(index=True)
    created_at: Mapped[datetime] = created_at()
    consumed_at: Mapped[datetime | None]
    # RFC 9449 §10: the DPoP key (thumbprint) the exchange must prove (migration 0011)
    dpop_jkt: Mapped[str | None]


class RefreshToken(Base):
    """A refresh token, rotated on every use (docs/design.md "Tokens and clients").

    Rotation sets ``spent_at`` on the presented row and inserts a child with the same
    ``family_id`` and ``parent_id`` = the presented row. Presenting a spent token again
    revokes the whole family (``revoked_at``). ``user_id`` is NULL for tokens not bound
    to a person. ``session_sid`` ties the token to the browser session that logout ends.
    """

    __tablename__ = "refresh_tokens"
    __table_args__ = (
        Index("ix_refresh_tokens_user_id_client_pk", "user_id", "client_pk"),
        {"postgresql_with": _SPEND_ROOM},
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    token_digest: Mapped[bytes] = mapped_column(unique=True)
    family_id: Mapped[uuid.UUID] = mapped_column(index=True)
    grant_id: Mapped[uuid.UUID | None] = mapped_column(index=True)
    parent_id: Mapped[uuid.UUID | None]
    client_pk: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_CLIENT_FK, ondelete="CASCADE"), index=True
    )
    user_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey(_USER_FK, ondelete="CASCADE"))
    scope: Mapped[str]
    session_sid: Mapped[str | None] = mapped_column(index=True)
    auth_time: Mapped[datetime | None]
    acr: Mapped[str | None]
    amr: Mapped[list[str]] = mapped_column(server_default=EMPTY_TEXT_ARRAY)
    issued_at: Mapped[datetime] = created_at()
    expires_at: Mapped[datetime] = mapped_column(index=True)
    spent_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]
    # RFC 9449 §5: a public client's token is bound to its DPoP key (thumbprint; 0011)
    jkt: Mapped[str | None]


class PasswordResetToken(Base):
    """A single-use password-reset link token (30 min, docs/design.md "Sign-in")."""

    __tablename__ = "password_reset_tokens"

    token_digest: Mapped[bytes] = mapped_column(primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey(_USER_FK, ondelete="CASCADE"), index=True)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = created_at()
