"""Building DPoP proofs (RFC 9449 §4.2) as a client does, with joserfc, not with the
provider's code: the tests' and the bench's one way to make them.

    key = DpopKey.generate()                        # ES256 (P-256) by default
    proof = key.proof("POST", f"{issuer}/oauth2/token")
    proof = key.proof("GET", f"{issuer}/oauth2/userinfo", access_token=token)

:meth:`DpopKey.proof` takes overrides for the negative cases (``iat``, ``jti``, ``nonce``,
``ath``, header members); :attr:`DpopKey.jkt` is the RFC 7638 thumbprint an access token
bound to the key carries in ``cnf.jkt``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from joserfc import jws
from joserfc.jwk import ECKey, OKPKey, RSAKey
from joserfc.jws import JWSRegistry

Key = ECKey | RSAKey | OKPKey


class _Quiet(JWSRegistry):
    """joserfc warns on every EdDSA use (RFC 9864); a proof with EdDSA is meant here."""

    def get_alg(self, name: str) -> Any:
        return self.algorithms[name]


_UNSET: Any = object()


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def ath_of(access_token: str) -> str:
    """RFC 9449 §4.2: base64url(SHA-256(access token))."""
    return b64url(hashlib.sha256(access_token.encode("ascii")).digest())


def _thumbprint(public: dict[str, Any]) -> str:
    members = {
        "RSA": ("e", "kty", "n"),
        "EC": ("crv", "kty", "x", "y"),
        "OKP": ("crv", "kty", "x"),
    }[public["kty"]]
    canonical = json.dumps({m: public[m] for m in members}, separators=(",", ":"), sort_keys=True)
    return b64url(hashlib.sha256(canonical.encode()).digest())


@dataclass(frozen=True)
class DpopKey:
    key: Key
    alg: str = "ES256"

    @classmethod
    def generate(cls, alg: str = "ES256") -> DpopKey:
        key: Key
        if alg == "ES256":
            key = ECKey.generate_key("P-256", private=True)
        elif alg in ("RS256", "PS256"):
            key = RSAKey.generate_key(2048, private=True)
        elif alg == "EdDSA":
            key = OKPKey.generate_key("Ed25519", private=True)
        else:
            raise ValueError(alg)
        return cls(key, alg)

    @property
    def public_jwk(self) -> dict[str, Any]:
        jwk = dict(self.key.as_dict(private=False))
        jwk.pop("kid", None)
        return jwk

    @property
    def jkt(self) -> str:
        return _thumbprint(self.public_jwk)

    def proof(
        self,
        method: str,
        url: str,
        *,
        access_token: str | None = None,
        nonce: str | None = None,
        iat: int | None = None,
        jti: str | None = None,
        ath: Any = _UNSET,
        header: dict[str, Any] | None = None,
        claims: dict[str, Any] | None = None,
    ) -> str:
        """A proof for ``method`` ``url`` (``ath`` of ``access_token`` when given);
        ``header`` and ``claims`` are merged last (a value None removes the member)."""
        head: dict[str, Any] = {"typ": "dpop+jwt", "alg": self.alg, "jwk": self.public_jwk}
        body: dict[str, Any] = {
            "jti": jti or secrets.token_urlsafe(16),
            "htm": method,
            "htu": url,
            "iat": int(time.time()) if iat is None else iat,
        }
        if nonce is not None:
            body["nonce"] = nonce
        if ath is not _UNSET:
            body["ath"] = ath
        elif access_token is not None:
            body["ath"] = ath_of(access_token)
        for target, extra in ((head, header), (body, claims)):
            for name, value in (extra or {}).items():
                if value is None:
                    target.pop(name, None)
                else:
                    target[name] = value
        payload = json.dumps(body, separators=(",", ":")).encode()
        registry = _Quiet(algorithms=[head["alg"]])
        return jws.serialize_compact(head, payload, self.key, registry=registry)
