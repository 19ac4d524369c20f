"""``consents``: what a user allowed a client (a "connection", docs/design.md "Sign-in")."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from ._base import Base, created_at, updated_at


class Consent(Base):
    """The scope values a user consented to for one client.

    Withdrawing it (deleting the row) also revokes that client's refresh tokens for the
    user; the repository does both in one transaction.
    """

    __tablename__ = "consents"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    client_pk: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("clients.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    scopes: Mapped[list[str]]
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()
