"""The signing algorithm per API and per client.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26

- ``apis.access_token_signing_alg``: the algorithm of the access tokens for the API's
  audience; ``RS256`` for every existing API (what they were signed with).
- ``clients.id_token_signed_response_alg`` (OIDC Registration §2): the ID tokens' and the
  logout tokens' algorithm; ``RS256`` for every existing client.
- ``clients.userinfo_signed_response_alg``: NULL (userinfo answers plain JSON, as before)
  or the algorithm userinfo signs its answer with.

Each is checked to be one of RS256, PS256, ES256, EdDSA. Adding a column with a constant
default rewrites no row (PostgreSQL 11+), so the upgrade is quick on a large table.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ALGS = "('RS256', 'PS256', 'ES256', 'EdDSA')"


def upgrade() -> None:
    op.add_column(
        "apis",
        sa.Column(
            "access_token_signing_alg",
            sa.Text(),
            server_default=sa.text("'RS256'"),
            nullable=False,
        ),
    )
    op.create_check_constraint(
        op.f("ck_apis_access_token_signing_alg"), "apis", f"access_token_signing_alg IN {_ALGS}"
    )
    op.add_column(
        "clients",
        sa.Column(
            "id_token_signed_response_alg",
            sa.Text(),
            server_default=sa.text("'RS256'"),
            nullable=False,
        ),
    )
    op.add_column("clients", sa.Column("userinfo_signed_response_alg", sa.Text(), nullable=True))
    for column in ("id_token_signed_response_alg", "userinfo_signed_response_alg"):
        op.create_check_constraint(op.f(f"ck_clients_{column}"), "clients", f"{column} IN {_ALGS}")


def downgrade() -> None:
    op.drop_column("clients", "userinfo_signed_response_alg")
    op.drop_column("clients", "id_token_signed_response_alg")
    op.drop_column("apis", "access_token_signing_alg")
