"""SCIM 2.0 provisioning (docs/scim.md): ``external_id`` on users and groups.

A provisioning client's own identifier of the person or group (RFC 7643 §3.1
``externalId``): set by the client, not unique (two clients may use one value), and
looked up by ``externalId eq "..."`` filters, hence the index.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("users", sa.Column("external_id", sa.Text(), nullable=True))
    op.add_column("groups", sa.Column("external_id", sa.Text(), nullable=True))
    op.create_index("ix_users_external_id", "users", ["external_id"])
    op.create_index("ix_groups_external_id", "groups", ["external_id"])


def downgrade() -> None:
    op.drop_index("ix_groups_external_id", table_name="groups")
    op.drop_index("ix_users_external_id", table_name="users")
    op.drop_column("groups", "external_id")
    op.drop_column("users", "external_id")
