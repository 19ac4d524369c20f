"""Access tokens for tests, signed with the stack's own key files.

The token endpoint arrives with the sign-in issue; until then tests sign RFC 9068 access
tokens exactly as the token service will (same key set loader, same claim builder).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from idp_common.crypto.jwt import access_token_claims, sign_jwt
from idp_common.crypto.keys import load_key_set

ACCESS_TYP = "at+jwt"


def mint(
    key_dir: Path,
    *,
    issuer: str,
    scopes: Iterable[str],
    subject: str = "user-1",
    audience: str | None = None,
    ttl: int = 600,
    now: int | None = None,
    typ: str = ACCESS_TYP,
    alg: str = "RS256",
    **extra: Any,
) -> str:
    claims = access_token_claims(
        issuer=issuer,
        subject=subject,
        audience=audience or f"{issuer}/api",
        client_id="console",
        scope=scopes,
        now=now if now is not None else int(time.time()),
        jti=uuid.uuid4().hex,
        ttl=ttl,
    )
    claims.update(extra)
    return sign_jwt(claims, load_key_set(key_dir), typ=typ, alg=alg)
