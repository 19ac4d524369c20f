"""``audit_events``: every admin and entity write, with actor, target, address, outcome."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Identity, Index, func
from sqlalchemy.orm import Mapped, mapped_column

from ._base import EMPTY_JSON_OBJECT, Base


class AuditEvent(Base):
    """One audited action (contract §2, "Audit event").

    Listed newest first with keyset pagination over ``(occurred_at, id)``, served by the
    descending index ``ix_audit_events_occurred_at_desc_id_desc``. ``detail`` carries
    action-specific facts (for logout delivery: ``uri``).
    """

    __tablename__ = "audit_events"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    occurred_at: Mapped[datetime] = mapped_column(server_default=func.now())
    action: Mapped[str] = mapped_column(index=True)
    actor: Mapped[str | None] = mapped_column(index=True)
    target_type: Mapped[str | None]
    target: Mapped[str | None] = mapped_column(index=True)
    ip: Mapped[str | None]
    status_code: Mapped[int]
    detail: Mapped[dict[str, Any]] = mapped_column(server_default=EMPTY_JSON_OBJECT)


Index(
    "ix_audit_events_occurred_at_desc_id_desc",
    AuditEvent.occurred_at.desc(),
    AuditEvent.id.desc(),
)
