"""OAuth 2.0 Demonstrating Proof of Possession (DPoP, RFC 9449): the proof's rules.

A DPoP proof is a JWT the client signs with a key of its own for one HTTP request
(§4.2). :func:`verify_proof` checks it as §4.3 lists, in that order:

1. exactly one ``DPoP`` header (:func:`single_proof`), a well-formed compact JWS;
2. header ``typ`` ``dpop+jwt``, ``alg`` one of :data:`DPOP_ALGORITHMS` (asymmetric only:
   never ``none`` nor the HMAC family), ``jwk`` a public key of the algorithm's type
   without any private member;
3. the signature, with that ``jwk`` and only that ``alg``;
4. claims ``jti`` (a string of at most :data:`MAX_JTI_LENGTH`), ``htm`` equal to the
   request's method, ``htu`` equal to the request's URL once both are normalised
   (:func:`normalize_htu`: RFC 3986 §6.2.2 and §6.2.3, query and fragment ignored);
5. ``nonce`` equal to one of the server's current nonces, when it gives nonces (§8);
6. ``iat`` within :data:`IAT_WINDOW_SECONDS` of now, either way (§4.3 point 11 leaves the
   window to the server; docs/oauth/dpop.md "Decisions");
7. ``ath`` equal to base64url(SHA-256(access token)) when the proof comes with an access
   token (§4.3 point 12, §7.1), and absent otherwise is not required.

The answer is a :class:`DpopProof` with the key's RFC 7638 thumbprint (``jkt``, §6.1),
which an access token's ``cnf`` carries. The ``jti`` single use (§11.1) needs storage and
is the caller's (``idp_common.state.dpop_replay``), for :data:`REPLAY_TTL_SECONDS`.

Server nonces (§8, §9) are stateless here: :func:`dpop_nonce` is an HMAC of the current
:data:`NONCE_PERIOD_SECONDS` window under a server key; the current and the previous
window's nonces are accepted (:func:`acceptable_nonces`).

Errors: :class:`InvalidDpopProof` (``invalid_dpop_proof``, §5.1 and §7.1) and
:class:`UseDpopNonce` (``use_dpop_nonce`` with a ``DPoP-Nonce`` header, §8), both 400 as
the token endpoint answers them; a resource answers :class:`DpopRefusedAtResource`, 401
with a ``DPoP`` challenge (:func:`dpop_challenge`, §7.1).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from joserfc import jws
from joserfc.errors import JoseError, UnsupportedAlgorithmError
from joserfc.jwk import Key, import_key
from joserfc.jws import JWSRegistry

from idp_common.protocol.rfc4648_base64url import base64url_decode, base64url_encode
from idp_common.protocol.rfc6749_errors import InvalidRequest, OAuth2Error, safe_description
from idp_common.protocol.rfc7517_jwk import rfc7638_thumbprint

__all__ = [
    "DPOP_ALGORITHMS",
    "DPOP_HEADER",
    "DPOP_NONCE_HEADER",
    "IAT_WINDOW_SECONDS",
    "REPLAY_TTL_SECONDS",
    "DpopProof",
    "DpopRefusedAtResource",
    "InvalidDpopProof",
    "UseDpopNonce",
    "acceptable_nonces",
    "access_token_hash",
    "bound_jkt",
    "dpop_challenge",
    "dpop_nonce",
    "normalize_htu",
    "parse_dpop_jkt",
    "single_proof",
    "verify_proof",
]

#: §5.1, §7.1: the request header carrying the proof; §8: the header carrying a nonce.
DPOP_HEADER: Final = "DPoP"
DPOP_NONCE_HEADER: Final = "DPoP-Nonce"
PROOF_TYP: Final = "dpop+jwt"
#: Asymmetric algorithms accepted in a proof (the provider's own four; RFC 9449 §4.2).
DPOP_ALGORITHMS: Final = ("RS256", "PS256", "ES256", "EdDSA")
#: How far ``iat`` may be from now, before or after (§4.3 point 11, §11.1).
IAT_WINDOW_SECONDS: Final = 60
#: How long a ``jti`` is remembered: a proof stays acceptable for twice the window.
REPLAY_TTL_SECONDS: Final = 2 * IAT_WINDOW_SECONDS + 5
#: A server nonce's window, and how many windows are accepted (this one and the last).
NONCE_PERIOD_SECONDS: Final = 300
MAX_PROOF_LENGTH: Final = 8 * 1024
MAX_JTI_LENGTH: Final = 256
MIN_RSA_BITS: Final = 2048

_KEY_TYPES: Final = {
    "RS256": ("RSA", None),
    "PS256": ("RSA", None),
    "ES256": ("EC", "P-256"),
    "EdDSA": ("OKP", "Ed25519"),
}
_PRIVATE_MEMBERS: Final = frozenset({"d", "p", "q", "dp", "dq", "qi", "oth", "k"})
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
_PERCENT: Final = re.compile(r"%[0-9A-Fa-f]{2}")
_JKT: Final = re.compile(r"[A-Za-z0-9_-]{43}")
_UNRESERVED: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


class _OneAlgorithm(JWSRegistry):
    """A registry allowing exactly one algorithm (the proof's ``alg`` once checked); the
    header holds the public key, so it may be longer than joserfc's default 512 bytes
    (the whole proof is bounded by :data:`MAX_PROOF_LENGTH`)."""

    max_header_length = MAX_PROOF_LENGTH
    max_payload_length = MAX_PROOF_LENGTH

    def get_alg(self, name: str) -> Any:
        if not self.allowed or name not in self.allowed or name not in self.algorithms:
            raise UnsupportedAlgorithmError(f"Algorithm of '{name}' is not allowed")
        return self.algorithms[name]


_REGISTRIES: Final = {alg: _OneAlgorithm(algorithms=[alg]) for alg in DPOP_ALGORITHMS}


class InvalidDpopProof(OAuth2Error):
    """§5.1, §7.1: the proof is missing where required, malformed, or does not hold."""

    error = "invalid_dpop_proof"


class UseDpopNonce(OAuth2Error):
    """§8: the server requires a nonce in the proof; ``DPoP-Nonce`` carries the one to use."""

    error = "use_dpop_nonce"

    def __init__(self, nonce: str, description: str | None = None) -> None:
        super().__init__(description or "the DPoP proof must carry the server's nonce")
        self.nonce = nonce
        self.headers[DPOP_NONCE_HEADER] = nonce


class DpopRefusedAtResource(OAuth2Error):
    """§7.1: a resource's refusal, 401 with a ``DPoP`` challenge naming ``code``
    (``invalid_token``, ``invalid_dpop_proof`` or ``use_dpop_nonce`` with ``DPoP-Nonce``)."""

    status_code = 401

    def __init__(self, code: str, description: str | None, nonce: str | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.headers["WWW-Authenticate"] = dpop_challenge(code, self.description)
        if nonce is not None:
            self.headers[DPOP_NONCE_HEADER] = nonce

    @classmethod
    def of(cls, exc: InvalidDpopProof | UseDpopNonce) -> DpopRefusedAtResource:
        nonce = exc.nonce if isinstance(exc, UseDpopNonce) else None
        return cls(exc.error, exc.description, nonce)

    def to_body(self) -> dict[str, str]:
        body = super().to_body()
        body["error"] = self.code
        return body


@dataclass(frozen=True)
class DpopProof:
    """A proof that holds: its key's thumbprint (``jkt``), its ``jti`` and ``iat``."""

    jkt: str
    jti: str
    iat: int
    htm: str
    htu: str


def single_proof(values: Sequence[str]) -> str | None:
    """The one ``DPoP`` header value (None when absent); two or more, or an empty one, is
    ``invalid_dpop_proof`` (§4.3 point 1)."""
    if not values:
        return None
    if len(values) != 1 or not values[0].strip():
        raise InvalidDpopProof("exactly one DPoP header is required")
    return values[0].strip()


def access_token_hash(access_token: str) -> str:
    """§4.2 ``ath``: base64url(SHA-256(the ASCII access token))."""
    return base64url_encode(hashlib.sha256(access_token.encode("ascii")).digest())


def _normalize_path(path: str) -> str:
    """RFC 3986 §6.2.2.1/§6.2.2.2: hex digits upper case, unreserved octets decoded."""

    def fix(match: re.Match[str]) -> str:
        char = chr(int(match.group(0)[1:], 16))
        return char if char in _UNRESERVED else match.group(0).upper()

    return _PERCENT.sub(fix, path) or "/"


def normalize_htu(url: str) -> str | None:
    """``url`` without query and fragment, normalised (RFC 3986 §6.2.2, §6.2.3: scheme
    and host lower case, default port dropped, empty path ``/``); None when not an
    absolute http(s) URL."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in _DEFAULT_PORTS or not host or parts.username or parts.password:
        return None
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None or port == _DEFAULT_PORTS[scheme] else f"{host}:{port}"
    return f"{scheme}://{netloc}{_normalize_path(parts.path)}"


def _segment_json(segment: str) -> Any:
    try:
        return json.loads(base64url_decode(segment, strict=True))
    except (ValueError, UnicodeError, RecursionError) as exc:
        raise InvalidDpopProof("the DPoP proof is malformed") from exc


def _check_header(header: Any) -> tuple[str, dict[str, Any]]:
    """(alg, jwk) of a header that §4.3 points 3-5 and 7 accept."""
    if not isinstance(header, dict):
        raise InvalidDpopProof("the DPoP proof is malformed")
    if header.get("typ") != PROOF_TYP:
        raise InvalidDpopProof("the DPoP proof's typ must be dpop+jwt")
    alg = header.get("alg")
    if alg not in _KEY_TYPES:
        raise InvalidDpopProof("the DPoP proof's alg is not supported")
    jwk = header.get("jwk")
    if not isinstance(jwk, dict):
        raise InvalidDpopProof("the DPoP proof carries no jwk")
    if _PRIVATE_MEMBERS & jwk.keys():
        raise InvalidDpopProof("the DPoP proof's jwk holds a private key")
    kty, crv = _KEY_TYPES[alg]
    if jwk.get("kty") != kty or (crv is not None and jwk.get("crv") != crv):
        raise InvalidDpopProof("the DPoP proof's jwk does not fit its alg")
    if {"crit", "b64"} & header.keys():
        raise InvalidDpopProof("the DPoP proof has an unsupported header")
    return alg, jwk


@functools.lru_cache(maxsize=4096)
def _imported(jwk_json: str) -> Key:
    """The key of a header ``jwk`` (canonical JSON). Importing checks the EC point or the
    RSA numbers, which costs more than the signature check itself: a client sends the same
    key with every proof, so the imported key is kept (at most 4,096, least recent out)."""
    return import_key(json.loads(jwk_json))


def _signed_claims(proof: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(jwk, claims) of a proof whose header and signature hold."""
    if len(proof) > MAX_PROOF_LENGTH:
        raise InvalidDpopProof("the DPoP proof is too long")
    parts = proof.split(".")
    if len(parts) != 3 or not all(parts):
        raise InvalidDpopProof("the DPoP proof is not a signed JWT")
    alg, jwk = _check_header(_segment_json(parts[0]))
    try:
        key = _imported(json.dumps(jwk, sort_keys=True, separators=(",", ":")))
        if alg in ("RS256", "PS256") and key.raw_value.key_size < MIN_RSA_BITS:  # type: ignore[union-attr]
            raise InvalidDpopProof("the DPoP proof's RSA key is too short")
        verified = jws.deserialize_compact(proof, key, registry=_REGISTRIES[alg])
    except JoseError as exc:
        raise InvalidDpopProof("the DPoP proof's signature does not verify") from exc
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise InvalidDpopProof("the DPoP proof's jwk is not a valid key") from exc
    try:
        claims = json.loads(verified.payload)
    except (ValueError, UnicodeError, RecursionError) as exc:
        raise InvalidDpopProof("the DPoP proof is malformed") from exc
    if not isinstance(claims, dict):
        raise InvalidDpopProof("the DPoP proof is malformed")
    return jwk, claims


def _string_claim(claims: Mapping[str, Any], name: str) -> str:
    value = claims.get(name)
    if not isinstance(value, str) or not value:
        raise InvalidDpopProof(f"the DPoP proof has no {name}")
    return value


def _check_nonce(claims: Mapping[str, Any], nonces: Sequence[str]) -> None:
    """§8: the proof must carry one of ``nonces`` (the first is the one to use now)."""
    given = claims.get("nonce")
    if not isinstance(given, str) or not any(
        hmac.compare_digest(given.encode(), nonce.encode()) for nonce in nonces
    ):
        raise UseDpopNonce(nonces[0])


def verify_proof(
    proof: str,
    *,
    method: str,
    url: str,
    now: int,
    access_token: str | None = None,
    nonces: Sequence[str] | None = None,
    window: int = IAT_WINDOW_SECONDS,
) -> DpopProof:
    """Check ``proof`` for the request ``method`` ``url`` at ``now`` (see the module);
    ``access_token``: the token it comes with (``ath`` then required); ``nonces``: the
    server's acceptable nonces, None when the server gives none. Raises
    :class:`InvalidDpopProof` or :class:`UseDpopNonce`."""
    jwk, claims = _signed_claims(proof)
    jti = _string_claim(claims, "jti")
    if len(jti) > MAX_JTI_LENGTH:
        raise InvalidDpopProof("the DPoP proof's jti is too long")
    htm = _string_claim(claims, "htm")
    if htm != method.upper():
        raise InvalidDpopProof("the DPoP proof's htm is not the request's method")
    htu = _string_claim(claims, "htu")
    expected = normalize_htu(url)
    if expected is None or normalize_htu(htu) != expected:
        raise InvalidDpopProof("the DPoP proof's htu is not the request's URL")
    if nonces is not None:
        _check_nonce(claims, nonces)
    iat = claims.get("iat")
    if isinstance(iat, bool) or not isinstance(iat, int | float) or not math.isfinite(iat):
        raise InvalidDpopProof("the DPoP proof has no valid iat")
    if abs(iat - now) > window:
        raise InvalidDpopProof("the DPoP proof's iat is outside the accepted window")
    if access_token is not None:
        ath = claims.get("ath")
        if not isinstance(ath, str) or not hmac.compare_digest(
            ath.encode(), access_token_hash(access_token).encode()
        ):
            raise InvalidDpopProof("the DPoP proof's ath does not match the access token")
    return DpopProof(jkt=rfc7638_thumbprint(jwk), jti=jti, iat=int(iat), htm=htm, htu=htu)


def parse_dpop_jkt(raw: str | None) -> str | None:
    """§10 ``dpop_jkt`` of an authorization request: a SHA-256 JWK thumbprint, 43
    base64url characters; anything else is ``invalid_request``."""
    if raw is None:
        return None
    if not _JKT.fullmatch(raw):
        raise InvalidRequest("dpop_jkt must be a base64url SHA-256 JWK thumbprint")
    return raw


def bound_jkt(claims: Mapping[str, Any]) -> str | None:
    """The ``cnf.jkt`` an access token is bound to (§6.1), None when it is not bound."""
    cnf = claims.get("cnf")
    if not isinstance(cnf, Mapping):
        return None
    jkt = cnf.get("jkt")
    return jkt if isinstance(jkt, str) and jkt else None


def dpop_nonce(key: bytes, now: int, *, back: int = 0) -> str:
    """§8 a server nonce: HMAC-SHA256 of the ``NONCE_PERIOD_SECONDS`` window ``back``
    windows before the one of ``now``; the same on every process holding ``key``."""
    window = now // NONCE_PERIOD_SECONDS - back
    mac = hmac.new(key, f"dpop-nonce:{window}".encode(), hashlib.sha256).digest()
    return base64url_encode(mac[:24])


def acceptable_nonces(key: bytes, now: int) -> tuple[str, str]:
    """The nonce to hand out now, then the previous window's (still accepted)."""
    return dpop_nonce(key, now), dpop_nonce(key, now, back=1)


def dpop_challenge(
    error: str | None = None,
    description: str | None = None,
    algs: Collection[str] = DPOP_ALGORITHMS,
) -> str:
    """§7.1 a resource server's ``WWW-Authenticate: DPoP`` challenge."""
    parts = [f'algs="{" ".join(algs)}"']
    if error:
        parts.append(f'error="{error}"')
    if description:
        parts.append(f'error_description="{safe_description(description)}"')
    return "DPoP " + ", ".join(parts)
