"""The client properties of modern OAuth.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27

- ``clients.token_endpoint_auth_method`` (OIDC Registration §2): ``client_secret_basic``
  for every existing confidential client (which keeps accepting Basic or the form, as
  before), ``none`` for every public one; the check ties ``none`` to ``public``. The
  column keeps the default ``client_secret_basic``, so an insert that names no method (an
  operator's SQL) still makes a confidential client; a public one must say ``none``.
- ``clients.jwks`` / ``clients.jwks_uri``: the public keys of a ``private_key_jwt`` client
  (RFC 7523), at most one of the two.
- ``clients.require_pushed_authorization_requests`` (RFC 9126 §6),
  ``clients.dpop_bound_access_tokens`` (RFC 9449 §5.2): false.
- ``clients.security_profile``: NULL, or ``fapi2`` (FAPI 2.0 Security Profile).
- ``clients.token_exchange_audiences`` (RFC 8693): empty, no exchange allowed.
- ``client_secrets.sealed``: the sealed secret of a ``client_secret_jwt`` client; NULL.

Every new column has a constant default or none, so no row is rewritten but by the one
UPDATE that sets ``none`` on the public clients.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "clients",
        sa.Column(
            "token_endpoint_auth_method",
            sa.Text(),
            server_default=sa.text("'client_secret_basic'"),
            nullable=False,
        ),
    )
    op.execute("UPDATE clients SET token_endpoint_auth_method = 'none' WHERE type = 'public'")
    op.add_column("clients", sa.Column("jwks", JSONB(), nullable=True))
    op.add_column("clients", sa.Column("jwks_uri", sa.Text(), nullable=True))
    for flag in ("require_pushed_authorization_requests", "dpop_bound_access_tokens"):
        op.add_column(
            "clients", sa.Column(flag, sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    op.add_column("clients", sa.Column("security_profile", sa.Text(), nullable=True))
    op.add_column(
        "clients",
        sa.Column(
            "token_exchange_audiences",
            ARRAY(sa.Text()),
            server_default=sa.text("'{}'::text[]"),
            nullable=False,
        ),
    )
    op.create_check_constraint(
        op.f("ck_clients_token_endpoint_auth_method"),
        "clients",
        "token_endpoint_auth_method IN ('client_secret_basic', 'client_secret_post', "
        "'client_secret_jwt', 'private_key_jwt', 'none') "
        "AND (token_endpoint_auth_method = 'none') = (type = 'public')",
    )
    op.create_check_constraint(
        op.f("ck_clients_one_key_source"),
        "clients",
        "NOT (jwks IS NOT NULL AND jwks_uri IS NOT NULL)",
    )
    op.create_check_constraint(
        op.f("ck_clients_security_profile"), "clients", "security_profile IN ('fapi2')"
    )
    op.add_column("client_secrets", sa.Column("sealed", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    op.drop_column("client_secrets", "sealed")
    for column in (
        "token_exchange_audiences",
        "security_profile",
        "dpop_bound_access_tokens",
        "require_pushed_authorization_requests",
        "jwks_uri",
        "jwks",
        "token_endpoint_auth_method",
    ):
        op.drop_column("clients", column)
