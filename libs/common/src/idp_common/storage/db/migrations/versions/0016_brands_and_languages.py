"""The pages people see (docs/frontends.md): brands and a saved language.

``brands``: the operator's brand for the whole provider (``client_pk`` NULL, at most one
row) and, optionally, one per client (overriding the provider's field by field; a NULL
field falls back to the provider's). ``logo_name`` is the object name of the logo in the
S3-compatible store (as ``users.picture``), served under ``/media/brand/{logo_name}``.
``primary_color`` is ``#rrggbb``, checked for WCAG AA contrast before it is stored.

``users.ui_locale``: the language a person chose for the pages and mails (a supported
BCP 47 tag such as ``de``; NULL: not chosen).

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("users", sa.Column("ui_locale", sa.Text(), nullable=True))
    op.create_table(
        "brands",
        sa.Column(
            "id",
            postgresql.UUID(as_uuid=True),
            server_default=sa.text("gen_random_uuid()"),
            nullable=False,
        ),
        sa.Column("client_pk", postgresql.UUID(as_uuid=True), nullable=True),
        sa.Column("product_name", sa.Text(), nullable=True),
        sa.Column("primary_color", sa.Text(), nullable=True),
        sa.Column("terms_uri", sa.Text(), nullable=True),
        sa.Column("privacy_uri", sa.Text(), nullable=True),
        sa.Column("logo_name", sa.Text(), nullable=True),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "primary_color IS NULL OR primary_color ~ '^#[0-9a-f]{6}$'",
            name=op.f("ck_brands_primary_color"),
        ),
        sa.ForeignKeyConstraint(
            ["client_pk"],
            ["clients.id"],
            name=op.f("fk_brands_client_pk_clients"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_brands")),
    )
    # One provider row (client_pk NULL) and one row per client.
    op.create_index(
        "uq_brands_client_pk",
        "brands",
        ["client_pk"],
        unique=True,
        postgresql_nulls_not_distinct=True,
    )


def downgrade() -> None:
    op.drop_index("uq_brands_client_pk", table_name="brands")
    op.drop_table("brands")
    op.drop_column("users", "ui_locale")
