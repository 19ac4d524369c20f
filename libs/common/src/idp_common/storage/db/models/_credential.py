"""Credentials of a user: password, TOTP authenticator, recovery codes, face template,
and the fingerprints of the photos they published (which face sign-in refuses).

Each row belongs to one user and disappears with them (``ON DELETE CASCADE``).
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ._base import Base, created_at, updated_at, uuid_pk

_USER_FK = "users.id"


class PasswordCredential(Base):
    """The user's password as an argon2id PHC string (DESIGN.md "Sign-in")."""

    __tablename__ = "password_credentials"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_USER_FK, ondelete="CASCADE"), primary_key=True
    )
    hash: Mapped[str]
    updated_at: Mapped[datetime] = updated_at()


class TotpCredential(Base):
    """The user's TOTP authenticator (RFC 6238).

    ``confirmed_at`` is NULL while enrolment waits for the first code. ``last_used_step``
    is the last accepted time step, so a code cannot be replayed within its window.
    """

    __tablename__ = "totp_credentials"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_USER_FK, ondelete="CASCADE"), primary_key=True
    )
    secret_encrypted: Mapped[bytes]
    confirmed_at: Mapped[datetime | None]
    last_used_step: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = created_at()


class TotpRecoveryCode(Base):
    """A single-use recovery code, stored as a digest; ``used_at`` set when spent."""

    __tablename__ = "totp_recovery_codes"
    __table_args__ = (UniqueConstraint("user_id", "code_digest"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey(_USER_FK, ondelete="CASCADE"))
    code_digest: Mapped[bytes]
    used_at: Mapped[datetime | None]


class FaceTemplate(Base):
    """The user's enrolled face embedding, encrypted (DESIGN.md "Sign-in", face)."""

    __tablename__ = "face_templates"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_USER_FK, ondelete="CASCADE"), primary_key=True
    )
    template_encrypted: Mapped[bytes]
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class PhotoFingerprint(Base):
    """A photo the user published (``/media/avatars``, the ``picture`` claim), remembered
    so that face sign-in refuses it (issue #19, attack 2): the digest of its decoded pixels
    and, when it shows one face, that face's embedding, sealed like a face template. Kept
    after the photo is replaced or removed: it was public, and copies outlive it."""

    __tablename__ = "photo_fingerprints"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_USER_FK, ondelete="CASCADE"), primary_key=True
    )
    pixel_digest: Mapped[bytes] = mapped_column(primary_key=True)
    embedding_encrypted: Mapped[bytes | None]
    picture: Mapped[str | None]  # the stored object's name, while it was published
    created_at: Mapped[datetime] = created_at()
