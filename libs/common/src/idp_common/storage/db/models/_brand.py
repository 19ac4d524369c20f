"""``brands``: the operator's brand, for the whole provider and per client (migration 0016)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index
from sqlalchemy.orm import Mapped, mapped_column

from ._base import Base, updated_at, uuid_pk


class Brand(Base):
    """What the pages and mails show: product name, logo, primary colour, terms and privacy.

    ``client_pk`` NULL is the provider's own brand (at most one such row); a client's row
    overrides it field by field, a NULL field meaning "as the provider's". ``logo_name`` is
    the logo's object name in the S3-compatible store (served under ``/media/brand/``).
    """

    __tablename__ = "brands"
    __table_args__ = (
        CheckConstraint(
            "primary_color IS NULL OR primary_color ~ '^#[0-9a-f]{6}$'", name="primary_color"
        ),
        Index("uq_brands_client_pk", "client_pk", unique=True, postgresql_nulls_not_distinct=True),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    client_pk: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("clients.id", ondelete="CASCADE")
    )
    product_name: Mapped[str | None]
    primary_color: Mapped[str | None]
    terms_uri: Mapped[str | None]
    privacy_uri: Mapped[str | None]
    logo_name: Mapped[str | None]
    updated_at: Mapped[datetime] = updated_at()
