"""The ``sender_constrained`` scenario's requests: client_credentials three ways, each
request built before the row starts so the generator only sends bytes.

- plain: client_secret_basic, the same form every time (a pool of identical requests, so
  this row runs on the same Python generator as the two below and the ratios compare
  like with like: the wrk row ``client_credentials`` stays as it was);
- DPoP (RFC 9449): the same client, each request with its own ES256 proof (``htm``,
  ``htu``, ``iat``, a fresh ``jti``): the token comes back ``token_type: DPoP`` with
  ``cnf.jkt``;
- private_key_jwt (RFC 7523): a client registered with an ES256 public key, each request
  with its own assertion (a fresh ``jti``: the provider keeps each one single use).

Proofs and assertions are signed with joserfc here, by the RFCs' shapes, not with the
provider's code, so the row measures the provider's checks and not a shared helper.
"""

from __future__ import annotations

import base64
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from joserfc import jwt
from joserfc.jwk import ECKey
from sqlalchemy import update

from idp_common.protocol.constants import (
    CLIENT_ASSERTION_TYPE_JWT_BEARER,
    CLIENT_AUTH_PRIVATE_KEY_JWT,
)
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.models import Client
from tests.harness import infra, records
from tests.harness.records import TestClient
from tests.harness.stack import Stack

FORM = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class KeyedClient:
    client: TestClient
    key: ECKey


def ec_key() -> ECKey:
    return ECKey.generate_key("P-256", private=True, auto_kid=True)


async def _register_key(stack: Stack, client_id: str, key: ECKey) -> None:
    engine = create_engine(stack.database_url)
    try:
        async with create_session_factory(engine).begin() as db:
            await db.execute(
                update(Client)
                .where(Client.client_id == client_id)
                .values(
                    token_endpoint_auth_method=CLIENT_AUTH_PRIVATE_KEY_JWT,
                    jwks={"keys": [key.as_dict(private=False)]},
                )
            )
    finally:
        await engine.dispose()


def private_key_jwt_client(stack: Stack, scopes: tuple[str, ...]) -> KeyedClient:
    """A confidential client_credentials client that authenticates with an ES256 key."""
    client = records.create_client(
        stack, scopes=scopes, skip_consent=True, grant_types=("client_credentials",)
    )
    key = ec_key()
    infra.run(_register_key(stack, client.client_id, key))
    return KeyedClient(client, key)


def dpop_proof(key: ECKey, method: str, url: str, now: int) -> str:
    header = {"typ": "dpop+jwt", "alg": "ES256", "jwk": key.as_dict(private=False)}
    claims = {"htm": method, "htu": url, "iat": now, "jti": secrets.token_urlsafe(16)}
    return jwt.encode(header, claims, key)


def client_assertion(key: ECKey, client_id: str, audience: str, now: int) -> str:
    header = {"alg": "ES256", "kid": key.kid}
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + 120,
        "jti": secrets.token_urlsafe(16),
    }
    return jwt.encode(header, claims, key)


def basic(client: TestClient) -> str:
    pair = f"{quote(client.client_id, safe='')}:{quote(client.secret or '', safe='')}"
    return "Basic " + base64.b64encode(pair.encode()).decode()


def plain_requests(client: TestClient, scope: str, n: int) -> list[dict[str, Any]]:
    one = {
        "headers": {"Authorization": basic(client), "Content-Type": FORM},
        "body": f"grant_type=client_credentials&scope={quote(scope)}",
    }
    return [one] * n


def dpop_requests(client: TestClient, scope: str, token_url: str, n: int) -> list[dict[str, Any]]:
    key, now = ec_key(), int(time.time())
    body = f"grant_type=client_credentials&scope={quote(scope)}"
    auth = basic(client)
    return [
        {
            "headers": {
                "Authorization": auth,
                "Content-Type": FORM,
                "DPoP": dpop_proof(key, "POST", token_url, now),
            },
            "body": body,
        }
        for _ in range(n)
    ]


def assertion_requests(
    keyed: KeyedClient, scope: str, audience: str, n: int
) -> list[dict[str, Any]]:
    now, client_id = int(time.time()), keyed.client.client_id
    prefix = (
        f"grant_type=client_credentials&scope={quote(scope)}&client_id={quote(client_id)}"
        f"&client_assertion_type={quote(CLIENT_ASSERTION_TYPE_JWT_BEARER, safe='')}"
        "&client_assertion="
    )
    return [
        {
            "headers": {"Content-Type": FORM},
            "body": prefix + client_assertion(keyed.key, client_id, audience, now),
        }
        for _ in range(n)
    ]
