"""Room on each page of the token tables, so that spending a row is a HOT update.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21

A refresh is ``UPDATE refresh_tokens SET spent_at`` on the presented row plus an
``INSERT`` of its successor, and a code exchange is ``UPDATE authorization_codes SET
consumed_at``. Neither changes an indexed column, so Postgres can keep the new row
version on the same page and touch no index (a heap-only tuple update), but only when
that page has room. With the default fill factor of 100 the pages of these append-mostly
tables are full: in the benchmark 37 % of the spends of ``refresh_tokens`` were ordinary
updates, each adding an entry to all eight of its indexes. A fill factor of 80 leaves the
room; it applies to pages written from now on.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TABLES = ("refresh_tokens", "authorization_codes")


def upgrade() -> None:
    for table in _TABLES:
        op.execute(f"ALTER TABLE {table} SET (fillfactor = 80)")


def downgrade() -> None:
    for table in _TABLES:
        op.execute(f"ALTER TABLE {table} RESET (fillfactor)")
