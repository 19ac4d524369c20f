"""DPoP key bindings (RFC 9449): refresh tokens and authorization codes.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27

- ``refresh_tokens.jkt``: the RFC 7638 thumbprint of the key of the DPoP proof the token
  was issued with, for a public client; NULL for every other token (and every existing
  one). Rotation copies it to the successor; a refresh of a bound token needs a proof
  signed by that key (§5).
- ``authorization_codes.dpop_jkt``: the ``dpop_jkt`` of the authorization request
  (§10); the code's exchange must carry a proof of that key. NULL: not bound.

Nullable columns without a default: no row is rewritten.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("refresh_tokens", sa.Column("jkt", sa.Text(), nullable=True))
    op.add_column("authorization_codes", sa.Column("dpop_jkt", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("authorization_codes", "dpop_jkt")
    op.drop_column("refresh_tokens", "jkt")
