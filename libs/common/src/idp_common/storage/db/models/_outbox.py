"""``event_outbox``: events written in the transaction that caused them.

A relay publishes unpublished rows to NATS JetStream and sets ``published_at``, so an
event is never lost because NATS was briefly down (docs/design.md "Events").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Identity, Index, text
from sqlalchemy.orm import Mapped, mapped_column

from ._base import Base, created_at


class OutboxEvent(Base):
    """An event waiting for (or done with) publication on subject ``subject``.

    The partial index ``ix_event_outbox_unpublished`` lets the relay find pending rows in
    ``id`` order without scanning published ones. ``dedupe_key``, when set, is unique: a
    writer inserting with ``ON CONFLICT DO NOTHING`` writes an event for that key once
    (``session.ended:<sid>``: one event per ended session, :mod:`idp_common.usecases.session_end`).
    """

    __tablename__ = "event_outbox"
    __table_args__ = (
        Index("ix_event_outbox_unpublished", "id", postgresql_where=text("published_at IS NULL")),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    subject: Mapped[str]
    payload: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = created_at()
    published_at: Mapped[datetime | None]
    dedupe_key: Mapped[str | None] = mapped_column(unique=True)
    # W3C trace context of the writer (``traceparent``), sent as a NATS header; NULL untraced
    traceparent: Mapped[str | None]
