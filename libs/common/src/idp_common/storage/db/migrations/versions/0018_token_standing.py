"""What an access token stands on (docs/security.md "Tokens end when what they stand for ends").

``users.credentials_changed_at``: the moment the person's credentials last changed in a way
that ends what was issued before (a password set or reset, a second factor, passkey or face
removed, an administrator ending every session, the account disabled). A sign-in older than
it cannot step up anything, and an access token about the person issued before it, without
a session to stand on, is refused. NULL: never.

``clients.disabled``: an administrator switched the client off. It cannot authenticate,
start a sign-in or use a token, and the tokens issued to it stop at the provider's own API,
userinfo and introspection; switched on again, nothing else changed.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "users", sa.Column("credentials_changed_at", sa.DateTime(timezone=True), nullable=True)
    )
    op.add_column(
        "clients",
        sa.Column("disabled", sa.Boolean(), server_default=sa.false(), nullable=False),
    )


def downgrade() -> None:
    op.drop_column("clients", "disabled")
    op.drop_column("users", "credentials_changed_at")
