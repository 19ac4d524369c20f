"""Helpers shared by the ``/oauth2/authorize`` tests: request parameters, a signed-in browser,
an ID token to send as a hint."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import httpx

from idp_common.crypto.jwt import sign_jwt
from idp_common.crypto.keys import load_key_set
from tests.harness import records
from tests.harness.stack import Stack


def params(client: records.TestClient, **extra: str) -> dict[str, str]:
    base = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": client.redirect_uri,
        "scope": "openid profile",
        "state": "st-1",
        "nonce": "n-1",
    }
    if client.secret is None and "code_challenge" not in extra:
        base["code_challenge"] = records.pkce_pair()[1]
        base["code_challenge_method"] = "S256"
    base.update(extra)
    return base


def query_of(response: httpx.Response) -> dict[str, str]:
    location = response.headers["location"]
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def signed_in(stack: Stack, person: records.TestUser, **kw: int) -> dict[str, str]:
    cookie, _ = records.create_browser_session(stack, person.id, **kw)
    return {"Cookie": f"svc_session={cookie}"}


def id_token_for(stack: Stack, client_id: str, subject: str, **extra: object) -> str:
    now = int(time.time())
    claims = {
        "iss": stack.issuer,
        "sub": subject,
        "aud": client_id,
        "iat": now - 7200,
        "exp": now - 3600,
        **extra,
    }
    return sign_jwt(claims, load_key_set(stack.key_dir))
