"""The unused authorization codes of a session, by its sid.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25

Ending a session withdraws the codes issued in it that were not exchanged yet, so a code
of an ended session buys no refresh token. The partial index keeps that lookup to the
few unused codes instead of every code of the last hour.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INDEX = "ix_authorization_codes_unused_session_sid"


def upgrade() -> None:
    op.create_index(
        op.f(_INDEX),
        "authorization_codes",
        ["session_sid"],
        postgresql_where=sa.text("consumed_at IS NULL"),
    )


def downgrade() -> None:
    op.drop_index(op.f(_INDEX), table_name="authorization_codes")
