"""Fingerprints of published photos, which face sign-in refuses (docs/security.md, attack 2).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24

A person's photo is public (``/media/avatars/…``, the ``picture`` claim), so anyone may
present it to face sign-in. Each published photo leaves a row: the SHA-256 of its decoded
pixels and, when it shows one face, that face's embedding sealed like a template. Rows
stay when the photo changes (copies of a public photo outlive it) and go with the person.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "photo_fingerprints",
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("pixel_digest", postgresql.BYTEA(), nullable=False),
        sa.Column("embedding_encrypted", postgresql.BYTEA(), nullable=True),
        sa.Column("picture", sa.Text(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_photo_fingerprints_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", "pixel_digest", name=op.f("pk_photo_fingerprints")),
    )


def downgrade() -> None:
    op.drop_table("photo_fingerprints")
