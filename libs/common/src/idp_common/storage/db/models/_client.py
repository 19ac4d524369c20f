"""OAuth clients, their secret and their allowed scopes (RFC 6749 §2)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, false, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from ._api import SIGNING_ALG_SQL
from ._base import EMPTY_TEXT_ARRAY, Base, created_at, updated_at, uuid_pk

_CLIENT_FK = "clients.id"


def _auth_method_by_type(context: Any) -> str:
    """An insert that names no method gets the one of its type (the check ties them)."""
    public = context.get_current_parameters().get("type") == "public"
    return "none" if public else "client_secret_basic"


class Client(Base):
    """An OAuth client. ``id`` is the internal key (``client_pk`` elsewhere);
    ``client_id`` is the public identifier of RFC 6749 §2.2.

    Redirect URIs are compared exactly (docs/design.md "Tokens and clients"). The two
    ``*_signed_response_alg`` columns are OIDC Registration's: the ID-token
    algorithm (also the logout tokens'), and the userinfo algorithm (NULL: plain JSON).

    Modern OAuth: ``token_endpoint_auth_method`` (OIDC Registration §2; ``none`` exactly when
    public), the client's public keys for ``private_key_jwt`` (``jwks`` or ``jwks_uri``,
    not both), ``require_pushed_authorization_requests`` (RFC 9126 §6),
    ``dpop_bound_access_tokens`` (RFC 9449 §5.2), ``security_profile`` (``fapi2``: the
    FAPI 2.0 Security Profile's rules) and ``token_exchange_audiences`` (RFC 8693: the
    audiences an administrator lets it exchange tokens for; none by default).

    Browser applications: ``allowed_web_origins``, the origins whose pages may call the
    token, userinfo and revocation endpoints for it (CORS); empty: its redirect URIs'
    origins (:mod:`idp_common.protocol.fetch_cors`).
    """

    __tablename__ = "clients"
    __table_args__ = (
        CheckConstraint("type IN ('confidential', 'public')", name="type"),
        CheckConstraint(
            f"id_token_signed_response_alg IN {SIGNING_ALG_SQL}",
            name="id_token_signed_response_alg",
        ),
        CheckConstraint(
            f"userinfo_signed_response_alg IN {SIGNING_ALG_SQL}",
            name="userinfo_signed_response_alg",
        ),
        CheckConstraint(
            "token_endpoint_auth_method IN ('client_secret_basic', 'client_secret_post', "
            "'client_secret_jwt', 'private_key_jwt', 'none') "
            "AND (token_endpoint_auth_method = 'none') = (type = 'public')",
            name="token_endpoint_auth_method",
        ),
        CheckConstraint("NOT (jwks IS NOT NULL AND jwks_uri IS NOT NULL)", name="one_key_source"),
        CheckConstraint("security_profile IN ('fapi2')", name="security_profile"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    client_id: Mapped[str] = mapped_column(unique=True)
    name: Mapped[str]
    type: Mapped[str]
    redirect_uris: Mapped[list[str]] = mapped_column(server_default=EMPTY_TEXT_ARRAY)
    post_logout_redirect_uris: Mapped[list[str]] = mapped_column(server_default=EMPTY_TEXT_ARRAY)
    backchannel_logout_uri: Mapped[str | None]
    grant_types: Mapped[list[str]]
    skip_consent: Mapped[bool] = mapped_column(server_default=false())
    #: Switched off by an administrator (migration 0018): no sign-in, no token, and the
    #: tokens it holds stop.
    disabled: Mapped[bool] = mapped_column(server_default=false())
    id_token_signed_response_alg: Mapped[str] = mapped_column(server_default=text("'RS256'"))
    userinfo_signed_response_alg: Mapped[str | None]
    token_endpoint_auth_method: Mapped[str] = mapped_column(
        default=_auth_method_by_type, server_default=text("'client_secret_basic'")
    )
    # SQL NULL for None, not JSON 'null': the one_key_source check tells them apart.
    jwks: Mapped[dict[str, Any] | None] = mapped_column(JSONB(none_as_null=True))
    jwks_uri: Mapped[str | None]
    require_pushed_authorization_requests: Mapped[bool] = mapped_column(server_default=false())
    dpop_bound_access_tokens: Mapped[bool] = mapped_column(server_default=false())
    security_profile: Mapped[str | None]
    token_exchange_audiences: Mapped[list[str]] = mapped_column(server_default=EMPTY_TEXT_ARRAY)
    allowed_web_origins: Mapped[list[str]] = mapped_column(server_default=EMPTY_TEXT_ARRAY)
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class ClientSecret(Base):
    """The SHA-256 digest of a confidential client's secret.

    At most one per client (``UNIQUE (client_pk)``): rotating replaces the row.
    ``sealed``: the secret itself, sealed with the deployment's secret box
    (:mod:`idp_common.crypto.secretbox`), kept only for a ``client_secret_jwt`` client
    (its HMAC key is the secret); NULL for every other client.
    """

    __tablename__ = "client_secrets"

    id: Mapped[uuid.UUID] = uuid_pk()
    client_pk: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_CLIENT_FK, ondelete="CASCADE"), unique=True
    )
    digest: Mapped[bytes]
    sealed: Mapped[bytes | None]
    created_at: Mapped[datetime] = created_at()


class ClientScope(Base):
    """A scope the client may request."""

    __tablename__ = "client_scopes"

    client_pk: Mapped[uuid.UUID] = mapped_column(
        ForeignKey(_CLIENT_FK, ondelete="CASCADE"), primary_key=True
    )
    scope_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("scopes.id", ondelete="CASCADE"), primary_key=True, index=True
    )
