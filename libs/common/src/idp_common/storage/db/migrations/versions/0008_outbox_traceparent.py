"""The trace an outbox event was written in.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26

A logout's trace reaches the logout dispatcher: the W3C ``traceparent`` of the request
that wrote the event is kept with the row, and the relay sends it as a NATS header. A
column of its own, not a key of ``payload``: the payload is the event's contract with its
consumers, the trace is how it travelled. NULL when the writer was not traced.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("event_outbox", sa.Column("traceparent", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("event_outbox", "traceparent")
