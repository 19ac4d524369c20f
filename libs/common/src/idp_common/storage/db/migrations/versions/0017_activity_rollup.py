"""The activity dashboard: hourly roll-ups of the audit log.

``activity_hours``: per closed UTC hour, how many audit rows of each ``(action, variant)``
the dashboard counts (docs/activity-dashboard.md); a marker row ``action = ''`` says the
hour is rolled. ``ix_audit_events_activity``: the audit rows of those actions by time, for
the roll-up and the live hours.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The same list, in the same order, as ``ACTIVITY_ACTIONS`` of the model.
_ACTIONS = (
    "login.succeeded",
    "login.failed",
    "login.throttled",
    "totp.failed",
    "second_factor.throttled",
    "POST backchannel_logout",
    "tokens.issued",
)


def upgrade() -> None:
    op.create_table(
        "activity_hours",
        sa.Column("hour", sa.DateTime(timezone=True), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("count", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("hour", "action", "variant", name=op.f("pk_activity_hours")),
    )
    where = "action IN ({})".format(", ".join(f"'{action}'" for action in _ACTIONS))
    op.create_index(
        "ix_audit_events_activity",
        "audit_events",
        ["occurred_at"],
        postgresql_where=sa.text(where),
    )


def downgrade() -> None:
    op.drop_index("ix_audit_events_activity", table_name="audit_events")
    op.drop_table("activity_hours")
