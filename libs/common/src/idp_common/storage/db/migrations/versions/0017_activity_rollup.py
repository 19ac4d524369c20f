"""The activity dashboard (issue #28): hourly roll-ups of the audit log.

Skeleton: the dashboard helper fills ``upgrade``/``downgrade`` (see the contract).

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
