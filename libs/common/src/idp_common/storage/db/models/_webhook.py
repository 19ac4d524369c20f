"""``webhook_endpoints`` and ``webhook_deliveries`` (docs/webhooks.md)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, UniqueConstraint, func, text
from sqlalchemy.orm import Mapped, mapped_column

from ._base import EMPTY_TEXT_ARRAY, Base, created_at, updated_at, uuid_pk


class WebhookEndpoint(Base):
    """An administrator's webhook receiver: its URL, the event types it is sent, and its
    signing secret, sealed with the deployment's secret box
    (:func:`idp_common.crypto.secretbox.webhook_secret_context` of the row id)."""

    __tablename__ = "webhook_endpoints"

    id: Mapped[uuid.UUID] = uuid_pk()
    url: Mapped[str]
    description: Mapped[str] = mapped_column(server_default=text("''"))
    secret_sealed: Mapped[bytes]
    event_types: Mapped[list[str]] = mapped_column(server_default=EMPTY_TEXT_ARRAY)
    enabled: Mapped[bool] = mapped_column(server_default=text("true"))
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class WebhookDelivery(Base):
    """One event for one endpoint, and where its delivery stands.

    ``pending`` rows are due when ``next_attempt_at`` has passed and no lease is held
    (``lease_until`` NULL or past): a dispatcher claims a row by setting ``lease_until``,
    posts, then records the outcome; one killed meanwhile leaves the lease to expire.
    ``queued_at`` starts the retry window (creation, or the last "send again").
    """

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        UniqueConstraint("endpoint_id", "event_id"),
        CheckConstraint("status IN ('pending', 'succeeded', 'failed')", name="status"),
        Index(
            "ix_webhook_deliveries_due",
            "next_attempt_at",
            postgresql_where=text("status = 'pending'"),
        ),
        Index("ix_webhook_deliveries_endpoint_id_created_at", "endpoint_id", "created_at", "id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    endpoint_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("webhook_endpoints.id", ondelete="CASCADE")
    )
    event_id: Mapped[str]
    event_type: Mapped[str]
    payload: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(server_default=text("'pending'"))
    attempts: Mapped[int] = mapped_column(server_default=text("0"))
    next_attempt_at: Mapped[datetime | None] = mapped_column(server_default=func.now())
    lease_until: Mapped[datetime | None]
    last_status_code: Mapped[int | None]
    last_error: Mapped[str | None]
    queued_at: Mapped[datetime] = mapped_column(server_default=func.now())
    created_at: Mapped[datetime] = created_at()
    delivered_at: Mapped[datetime | None]
