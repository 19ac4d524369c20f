"""Browser applications on other origins: a client's allowed web origins.

``clients.allowed_web_origins``: the origins (``scheme://host[:port]``) whose pages may
call the token, userinfo and revocation endpoints for the client (CORS; docs/oauth/browser-apps.md).
Empty (every existing client): the origins of its redirect URIs apply.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "clients",
        sa.Column(
            "allowed_web_origins",
            postgresql.ARRAY(sa.Text()),
            nullable=False,
            server_default=sa.text("'{}'::text[]"),
        ),
    )


def downgrade() -> None:
    op.drop_column("clients", "allowed_web_origins")
