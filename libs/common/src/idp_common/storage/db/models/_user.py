"""``users``: the built-in person facts (contract §2, "Built-in person facts")."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, Index, false, func, text
from sqlalchemy.orm import Mapped, mapped_column

from ._base import Base, created_at, updated_at, uuid_pk


class User(Base):
    """A person who signs in.

    ``email`` and ``username`` keep the spelling the person typed but are unique
    case-insensitively (unique indexes on ``lower(...)``); look them up with
    ``func.lower(User.email) == address.lower()`` so the index is used. ``picture`` is the
    object name of the photo in the S3-compatible store, not a URL.
    """

    __tablename__ = "users"
    __table_args__ = (
        Index("uq_users_email_lower", func.lower(text("email")), unique=True),
        Index("uq_users_username_lower", func.lower(text("username")), unique=True),
        # Prefix search (LIKE 'x%') under a collation other than "C" (migration 0003).
        Index(
            "ix_users_email_lower_pattern",
            func.lower(text("email")).label("email_lower"),
            postgresql_ops={"email_lower": "text_pattern_ops"},
        ),
        Index(
            "ix_users_username_lower_pattern",
            func.lower(text("username")).label("username_lower"),
            postgresql_ops={"username_lower": "text_pattern_ops"},
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    email: Mapped[str]
    username: Mapped[str | None]
    display_name: Mapped[str] = mapped_column(server_default="")
    picture: Mapped[str | None]
    email_verified: Mapped[bool] = mapped_column(server_default=false())
    disabled: Mapped[bool] = mapped_column(server_default=false())
    #: A SCIM client's own id of the person (RFC 7643 §3.1; migration 0015).
    external_id: Mapped[str | None] = mapped_column(index=True)
    #: The language the person chose for the pages and mails (migration 0016; NULL: none).
    ui_locale: Mapped[str | None]
    #: The last change of the person's credentials that ends what was issued before it
    #: (migration 0018; NULL: none): sign-ins before it cannot step up.
    credentials_changed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()
