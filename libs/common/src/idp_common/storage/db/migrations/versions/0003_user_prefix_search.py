"""Prefix search of users by email or username uses an index.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21

``GET /admin/users?email=<prefix>`` filters with ``lower(email) LIKE 'prefix%'``. The unique
indexes on ``lower(email)`` and ``lower(username)`` cannot serve ``LIKE`` unless the
database collation is "C" (``C.UTF-8`` is not), so each gets a ``text_pattern_ops`` twin.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("CREATE INDEX ix_users_email_lower_pattern ON users (lower(email) text_pattern_ops)")
    op.execute(
        "CREATE INDEX ix_users_username_lower_pattern ON users (lower(username) text_pattern_ops)"
    )


def downgrade() -> None:
    op.drop_index("ix_users_username_lower_pattern", table_name="users")
    op.drop_index("ix_users_email_lower_pattern", table_name="users")
