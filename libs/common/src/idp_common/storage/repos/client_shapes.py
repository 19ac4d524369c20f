"""An OAuth client as the protocol endpoints read it (:class:`ClientRecord`) and as the
administration API writes and shows it (DESIGN.md "Wire contracts" → Clients); stored
by :mod:`idp_common.storage.repos.clients`.

``id_token_signed_response_alg`` and ``userinfo_signed_response_alg`` keep their OIDC
Dynamic Client Registration 1.0 §2 names on the wire (as ``client_id`` does; issue #24):
the ID tokens' algorithm (also the logout tokens'), default RS256; the userinfo
answer's, default none (plain JSON)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

import msgspec

from idp_common.protocol.constants import SIGNING_ALGORITHM

ClientType = Literal["confidential", "public"]
#: The wire (and column) names of the two algorithm fields: OIDC Registration's, verbatim.
ID_TOKEN_ALG: Final = "id_token_signed_response_alg"  # noqa: S105 - a field name
USERINFO_ALG: Final = "userinfo_signed_response_alg"


class ClientRecord(msgspec.Struct, frozen=True, kw_only=True):
    pk: uuid.UUID
    client_id: str
    name: str
    type: str  # "confidential" | "public"
    redirect_uris: tuple[str, ...]
    post_logout_redirect_uris: tuple[str, ...]
    backchannel_logout_uri: str | None
    grant_types: frozenset[str]
    skip_consent: bool
    scopes: frozenset[str]
    secret_digest: bytes | None
    id_token_signed_response_alg: str = SIGNING_ALGORITHM
    userinfo_signed_response_alg: str | None = None

    @property
    def is_confidential(self) -> bool:
        return self.type == "confidential"


class ClientRead(msgspec.Struct, frozen=True, rename="camel"):
    """A client as the admin API shows it: never its secret nor the secret's digest."""

    client_id: str = msgspec.field(name="client_id")
    name: str
    type: ClientType
    redirect_uris: list[str]
    post_logout_redirect_uris: list[str]
    backchannel_logout_uri: str | None
    grant_types: list[str]
    skip_consent: bool
    scopes: list[str]
    created_at: datetime
    updated_at: datetime
    # No defaults: the creation's answer (``omit_defaults``) shows them too.
    id_token_signed_response_alg: str = msgspec.field(name=ID_TOKEN_ALG)
    userinfo_signed_response_alg: str | None = msgspec.field(name=USERINFO_ALG)


class ClientCreated(ClientRead, frozen=True, omit_defaults=True):
    """The answer to a creation: ``client_secret`` only for a confidential client."""

    client_secret: str | None = msgspec.field(default=None, name="client_secret")


class SecretRotated(msgspec.Struct, frozen=True):
    client_id: str
    client_secret: str


@dataclass(frozen=True)
class ClientSettings:
    """The settable fields of a client, as one whole (creation, or after a patch)."""

    name: str
    redirect_uris: list[str]
    post_logout_redirect_uris: list[str]
    backchannel_logout_uri: str | None
    grant_types: list[str]
    skip_consent: bool
    id_token_signed_response_alg: str = SIGNING_ALGORITHM
    userinfo_signed_response_alg: str | None = None
