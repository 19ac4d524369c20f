"""Credentials of a user: password, TOTP authenticator, recovery codes, face template,
the fingerprints of the photos they published (which face sign-in refuses), passkeys.

Each row belongs to one user and disappears with them (``ON DELETE CASCADE``).
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from ._base import EMPTY_TEXT_ARRAY, Base, created_at, updated_at, uuid_pk

_USER_FK = "users.id"


class PasswordCredential(Base):
    """The user's password as an argon2id PHC string (docs/design.md "Sign-in")."""

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
    """The user's enrolled face embedding, encrypted (docs/design.md "Sign-in", face)."""

    __tablename__ = "face_templates"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_USER_FK, ondelete="CASCADE"), primary_key=True
    )
    template_encrypted: Mapped[bytes]
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class PhotoFingerprint(Base):
    """A photo the user published (``/media/avatars``, the ``picture`` claim), remembered
    so that face sign-in refuses it (docs/security.md, attack 2): the digest of its decoded pixels
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


class Passkey(Base):
    """A WebAuthn credential of the user (docs/passkeys.md): its id and COSE
    public key, the authenticator's counter, its backup flags (``backup_eligible``: a
    synced passkey; ``backed_up``: synced now) and its AAGUID. ``clone_suspected_at`` is
    set when the counter went backwards (WebAuthn §7.2 step 21): the credential is then
    refused until the person or an administrator removes it."""

    __tablename__ = "passkeys"

    id: Mapped[uuid.UUID] = uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey(_USER_FK, ondelete="CASCADE"), index=True)
    credential_id: Mapped[bytes] = mapped_column(unique=True)
    public_key: Mapped[bytes]
    sign_count: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    aaguid: Mapped[str]
    transports: Mapped[list[str]] = mapped_column(server_default=EMPTY_TEXT_ARRAY)
    backup_eligible: Mapped[bool]
    backed_up: Mapped[bool]
    user_verified: Mapped[bool]  # at registration
    name: Mapped[str]
    created_at: Mapped[datetime] = created_at()
    last_used_at: Mapped[datetime | None]
    clone_suspected_at: Mapped[datetime | None]
