"""Authorization codes keep their row after use, marked by ``consumed_at``.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21

A replayed code must revoke what it issued (RFC 6749 §4.1.2); deleting the row on use
would leave nothing to detect the replay with. Expired rows still go with cleanup.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "authorization_codes", sa.Column("consumed_at", sa.DateTime(timezone=True), nullable=True)
    )


def downgrade() -> None:
    op.drop_column("authorization_codes", "consumed_at")
