"""One outbox event per key: ``event_outbox.dedupe_key`` (unique, optional).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02

Ending a browser session writes its ``session.ended`` event with the key
``session.ended:<sid>`` and ``ON CONFLICT DO NOTHING``: two requests ending the same
session at once, or a logout retried after a failure, write one event between them
(the second insert waits for the first transaction, then finds the key taken). Rows
without a key (NULL) are not constrained. See ``idp_common.usecases.session_end``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("event_outbox", sa.Column("dedupe_key", sa.Text(), nullable=True))
    op.create_unique_constraint(op.f("uq_event_outbox_dedupe_key"), "event_outbox", ["dedupe_key"])


def downgrade() -> None:
    op.drop_constraint(op.f("uq_event_outbox_dedupe_key"), "event_outbox", type_="unique")
    op.drop_column("event_outbox", "dedupe_key")
