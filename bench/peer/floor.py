"""The Python floor of the signing rows: the same signatures and nothing else, under Granian.

Issue 24 item 2 asks client_credentials for 1.2 x the Postgres peer, and refresh and the
code flow for 0.9 x the in-memory peer. This app measures, in the same run, how far a
Python process under Granian gets when it does **only** what those rows cannot avoid:
read the request, sign the same tokens with the same code (``sign_jwt``, the run's
RSA-2048 key, on the event loop), and answer. No client authentication, no PKCE, no
storage, no Redis, no checks: what it answers is not a provider, and it is never started
outside ``make bench-peer``.

- ``POST /oauth2/token``: ``grant_type=client_credentials`` signs one RFC 9068 access
  token; any other grant signs an access token and an ID token (with ``at_hash``) and
  returns a new random ``refresh_token``, like a rotation or a code exchange.
- ``GET /oauth2/authorize``: ``302`` to the ``redirect_uri`` with a random ``code`` and
  the ``state``.

It speaks Granian's RSGI, the cheapest interface Granian offers (no ASGI message dicts),
so the figure is a floor for any Python framework on this server, ours included.

Run: ``python -m bench.peer.floor KEY_DIR PORT WORKERS``.
"""

from __future__ import annotations

import os
import secrets
import sys
import time
import uuid
from typing import Any
from urllib.parse import parse_qs, urlencode

import msgspec
from granian.constants import Interfaces

from bench.bare_sign import serve
from idp_common.crypto.jwt import TYP_ACCESS_TOKEN, TYP_JWT, access_token_claims, sign_jwt
from idp_common.crypto.keys import KeySet, load_key_set
from idp_common.protocol.oidc_core_claims import id_token_claims

ISSUER = "http://127.0.0.1/floor"
JSON_HEADERS = [("content-type", "application/json"), ("cache-control", "no-store")]


def tokens(key_set: KeySet, grant_type: str) -> dict[str, Any]:
    """The token answer of one request: the signatures a real answer of that grant makes."""
    now = int(time.time())
    subject = str(uuid.uuid4())
    access = sign_jwt(
        access_token_claims(
            issuer=ISSUER,
            subject=subject,
            audience="https://api.example.test",
            client_id="floor-client",
            scope=["openid", "offline_access", "api:read"],
            now=now,
            jti=uuid.uuid4().hex,
        ),
        key_set,
        typ=TYP_ACCESS_TOKEN,
        now=now,
    )
    answer: dict[str, Any] = {"access_token": access, "token_type": "Bearer", "expires_in": 600}
    if grant_type != "client_credentials":
        claims = id_token_claims(
            issuer=ISSUER,
            subject=subject,
            client_id="floor-client",
            now=now,
            ttl=3600,
            auth_time=now,
            acr="1",
            amr=["pwd"],
            sid=uuid.uuid4().hex,
            access_token=access,
        )
        answer["id_token"] = sign_jwt(claims, key_set, typ=TYP_JWT, now=now)
        answer["refresh_token"] = secrets.token_urlsafe(32)
    return answer


class App:
    """RSGI application (``__rsgi__``)."""

    def __init__(self, key_dir: str) -> None:
        self.key_set = load_key_set(key_dir)

    async def __rsgi__(self, scope: Any, proto: Any) -> None:
        if scope.method == "POST" and scope.path == "/oauth2/token":
            form = parse_qs((await proto()).decode())
            grant_type = form.get("grant_type", [""])[0]
            body = msgspec.json.encode(tokens(self.key_set, grant_type))
            proto.response_bytes(200, JSON_HEADERS, body)
        elif scope.method == "GET" and scope.path == "/oauth2/authorize":
            query = parse_qs(scope.query_string)
            redirect = query.get("redirect_uri", ["http://127.0.0.1/cb"])[0]
            code = {"code": secrets.token_urlsafe(32), "state": query.get("state", [""])[0]}
            proto.response_empty(302, [("location", f"{redirect}?{urlencode(code)}")])
        else:
            proto.response_bytes(404, JSON_HEADERS, b'{"error":"not_found"}')


def app() -> App:
    return App(os.environ["BENCH_KEY_DIR"])


def main(argv: list[str]) -> int:
    return serve("bench.peer.floor:app", Interfaces.RSGI, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
