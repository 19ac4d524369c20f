"""Client assertions (RFC 7523 §2.2, OIDC Core §9) made quickly, for the tests and the
bench: key pairs as JWKs, a signed assertion, and the form members that carry it.

    key = new_key("ES256")                         # joserfc key with a kid
    jwks = public_jwks(key)                        # what the client registers
    form = assertion_form(sign_assertion(key, client_id, token_url))

Nothing here checks anything: the provider does
(``token_service.protocol.rfc7523_client_assertion``).
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any, Final

from joserfc import jws
from joserfc.jwk import ECKey, Key, OctKey, RSAKey
from joserfc.jws import JWSRegistry

from idp_common.protocol.constants import CLIENT_ASSERTION_TYPE_JWT_BEARER

#: Every algorithm these helpers sign with, ``none`` included (for the negative cases).
_REGISTRY: Final = JWSRegistry(algorithms=["RS256", "PS256", "ES256", "HS256", "none"])


def new_key(alg: str, kid: str | None = None) -> Key:
    """A fresh private key for ``alg`` (RS256/PS256: RSA 2048, ES256: P-256), with ``kid``
    (default: a random one)."""
    parameters = {"kid": kid or secrets.token_urlsafe(8), "use": "sig", "alg": alg}
    if alg == "ES256":
        return ECKey.generate_key("P-256", parameters=parameters)  # type: ignore[arg-type]
    return RSAKey.generate_key(2048, parameters=parameters)  # type: ignore[arg-type]


def public_jwks(*keys: Key) -> dict[str, Any]:
    """The JWK Set of the keys' public halves."""
    return {"keys": [dict(key.as_dict(private=False)) for key in keys]}


def claims(
    client_id: str, audience: str | list[str], *, now: int | None = None, lifetime: int = 60
) -> dict[str, Any]:
    """RFC 7523 §3 claims: iss = sub = client_id, aud, iat, exp, a fresh jti."""
    moment = int(time.time()) if now is None else now
    return {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": moment,
        "exp": moment + lifetime,
        "jti": secrets.token_urlsafe(16),
    }


def sign(payload: dict[str, Any], key: Key | None, header: dict[str, Any]) -> str:
    """A compact JWS of ``payload`` with ``header`` (``alg`` decides; ``none``: no key)."""
    body = json.dumps(payload).encode()
    return jws.serialize_compact(header, body, key, registry=_REGISTRY)


def sign_assertion(key: Key, client_id: str, audience: str | list[str], **overrides: Any) -> str:
    """A ``private_key_jwt`` assertion signed by ``key`` with its ``alg`` and ``kid``;
    ``overrides`` replace claims (None removes one)."""
    payload = {**claims(client_id, audience), **overrides}
    payload = {name: value for name, value in payload.items() if value is not None}
    header = {"alg": key.get("alg") or "RS256", "kid": key.kid, "typ": "JWT"}
    return sign(payload, key, header)


def secret_assertion(secret: str, client_id: str, audience: str, **overrides: Any) -> str:
    """A ``client_secret_jwt`` assertion: HS256 keyed with the secret's UTF-8 bytes."""
    payload = {**claims(client_id, audience), **overrides}
    return sign(payload, OctKey.import_key(secret.encode()), {"alg": "HS256", "typ": "JWT"})


def assertion_form(assertion: str, client_id: str | None = None) -> dict[str, str]:
    """The form members of RFC 7523 §2.2 (and ``client_id`` when given)."""
    form = {
        "client_assertion_type": CLIENT_ASSERTION_TYPE_JWT_BEARER,
        "client_assertion": assertion,
    }
    if client_id is not None:
        form["client_id"] = client_id
    return form
