"""Signing keys: read from a directory, each signing from the time its file name states.

Spec part 5 "Signing keys" (rotation ordered by file name; the old key kept at least a
JWKS cache lifetime longer), extended for rotation without restarts and for a key per
algorithm:

- A key directory holds private keys as PEM files named ``*.pem`` (PKCS#8
  ``BEGIN PRIVATE KEY``, or the traditional ``BEGIN RSA/EC PRIVATE KEY``, unencrypted).
  The files at its top level are the **RS256** keys (where a single-algorithm deployment
  keeps them: an existing deployment changes nothing). The keys of the other algorithms
  live in sub-directories named by the algorithm (:data:`ALGORITHM_DIRECTORIES`):
  ``PS256/`` (RSA of at least 2048 bits), ``ES256/`` (EC on P-256 only), ``EdDSA/``
  (Ed25519 only). A key of the wrong type for its place is a :class:`KeySetError` naming
  the file. Other files, other sub-directories and hidden files (``.foo.pem``) are ignored
  (:mod:`idp_common.crypto.key_files`).
- Within one algorithm, files are sorted by name; a name is the key's UTC activation time
  (``20261126T100000Z.pem``). The signing key of an algorithm is its last key whose time
  has passed (:mod:`idp_common.crypto.key_schedule`: next / current / retired; a
  hand-named file is active since always). Each algorithm has its own schedule. Every key
  of every algorithm is published in the JWKS, each JWK with its ``alg``.
- ``kid`` is the RFC 7638 JWK thumbprint (SHA-256, base64url without padding) of the public
  key (:mod:`idp_common.protocol.rfc7517_jwk`), so every replica derives the same ``kid``
  from the same file, whatever its name.
- The provider *holds* an algorithm when it has a current key for it, that is any key in
  its place (:attr:`KeySet.algorithms`). RS256 is always held: without an RS256 key the
  set is refused (the provider's own API and every default use it).

Every process re-reads the directory while it runs (:mod:`idp_common.web.key_ring`).
:func:`generate_key_file` writes a new key named by the time it may start signing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Final

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from joserfc.jwk import ECKey, KeyParameters, OKPKey, RSAKey
from joserfc.jwk import KeySet as JoseKeySet

from idp_common.crypto.key_files import (
    KEY_FILE_SUFFIX,
    KeySetError,
    ensure_directory,
    free_name,
    key_files,
    write_new_file,
)
from idp_common.crypto.key_schedule import activation_of, key_file_stem, signer_window
from idp_common.protocol.constants import (
    ALG_EDDSA,
    ALG_ES256,
    ALG_PS256,
    ALG_RS256,
    SIGNING_ALGORITHM,
    SIGNING_ALGORITHMS,
)
from idp_common.protocol.rfc7517_jwk import (
    ec_public_jwk,
    okp_public_jwk,
    rfc7638_thumbprint,
    rsa_public_jwk,
)

__all__ = [
    "ALGORITHM_DIRECTORIES",
    "JWS_ALGORITHM",
    "KEY_FILE_SUFFIX",
    "MIN_RSA_BITS",
    "SIGNING_ALGORITHMS",
    "JoseKey",
    "KeySet",
    "KeySetError",
    "SigningKey",
    "algorithm_directory",
    "generate_key_file",
    "key_locations",
    "load_key_set",
    "load_signing_key",
    "new_private_key_pem",
    "write_key_file",
]

#: The default signature algorithm (contract §5 "Access tokens"), the provider's own API's.
JWS_ALGORITHM: Final = SIGNING_ALGORITHM
#: Where each algorithm's keys live under the key directory: RS256 at the top level (where
#: a single-algorithm deployment keeps them), the others in a sub-directory named by the
#: algorithm.
ALGORITHM_DIRECTORIES: Final[dict[str, str]] = {
    ALG_RS256: "",
    ALG_PS256: ALG_PS256,
    ALG_ES256: ALG_ES256,
    ALG_EDDSA: ALG_EDDSA,
}
#: NIST SP 800-131A: RSA keys shorter than this are refused.
MIN_RSA_BITS = 2048
#: Default size of generated keys: RSA-2048 signs about 4x faster than RSA-3072, and RS256
#: signing is the token endpoint's main cost; NIST SP 800-57 accepts 2048 through 2030.
#: Larger keys stay available (``idp keys generate --bits 3072``).
DEFAULT_RSA_BITS = 2048
#: RFC 7518 §6.2.1.2: a P-256 coordinate is 32 octets.
_P256_SIZE: Final = 32
_KEY_KINDS: Final = {
    ALG_RS256: "an RSA private key",
    ALG_PS256: "an RSA private key",
    ALG_ES256: "an EC P-256 private key",
    ALG_EDDSA: "an Ed25519 private key",
}

JoseKey = RSAKey | ECKey | OKPKey


def algorithm_directory(directory: str | Path, alg: str) -> Path:
    """Where the keys of ``alg`` live under the key directory ``directory``."""
    if alg not in ALGORITHM_DIRECTORIES:
        raise ValueError(f"unsupported signing algorithm {alg!r}")
    sub = ALGORITHM_DIRECTORIES[alg]
    return Path(directory) / sub if sub else Path(directory)


def key_locations(directory: str | Path) -> Iterator[tuple[str, Path]]:
    """(algorithm, its directory) for RS256 and every algorithm whose sub-directory
    exists, in :data:`SIGNING_ALGORITHMS` order."""
    for alg in SIGNING_ALGORITHMS:
        path = algorithm_directory(directory, alg)
        if alg == ALG_RS256 or path.is_dir():
            yield alg, path


def _check_type(file_name: str, alg: str, private_key: PrivateKeyTypes) -> None:
    """:class:`KeySetError` naming the file unless ``private_key`` suits ``alg``."""
    if alg in (ALG_RS256, ALG_PS256) and isinstance(private_key, rsa.RSAPrivateKey):
        if private_key.key_size < MIN_RSA_BITS:
            raise KeySetError(
                f"{file_name}: RSA key of {private_key.key_size} bits is too small "
                f"(at least {MIN_RSA_BITS} bits required)"
            )
        return
    if alg == ALG_ES256 and isinstance(private_key, ec.EllipticCurvePrivateKey):
        if isinstance(private_key.curve, ec.SECP256R1):
            return
        raise KeySetError(
            f"{file_name}: EC key on {private_key.curve.name} is not {_KEY_KINDS[alg]} "
            f"(a key for {alg} must be)"
        )
    if alg == ALG_EDDSA and isinstance(private_key, ed25519.Ed25519PrivateKey):
        return
    if alg not in _KEY_KINDS:
        raise KeySetError(f"{file_name}: unsupported signing algorithm {alg!r}")
    kind = type(private_key).__name__.lstrip("_")
    raise KeySetError(f"{file_name}: {kind} is not {_KEY_KINDS[alg]} (a key for {alg} must be)")


def _public_jwk(private_key: PrivateKeyTypes, alg: str, kid: str) -> dict[str, str]:
    if isinstance(private_key, rsa.RSAPrivateKey):
        numbers = private_key.public_key().public_numbers()
        return rsa_public_jwk(numbers.n, numbers.e, kid=kid, alg=alg)
    if isinstance(private_key, ec.EllipticCurvePrivateKey):
        point = private_key.public_key().public_numbers()
        return ec_public_jwk("P-256", point.x, point.y, _P256_SIZE, kid=kid, alg=alg)
    if isinstance(private_key, ed25519.Ed25519PrivateKey):
        raw = private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        return okp_public_jwk("Ed25519", raw, kid=kid, alg=alg)
    raise KeySetError(f"unsupported key type {type(private_key).__name__}")  # pragma: no cover


def _import(private_key: PrivateKeyTypes, parameters: KeyParameters) -> JoseKey:
    if isinstance(private_key, rsa.RSAPrivateKey):
        return RSAKey.import_key(private_key, parameters)
    if isinstance(private_key, ec.EllipticCurvePrivateKey):
        return ECKey.import_key(private_key, parameters)
    if isinstance(private_key, ed25519.Ed25519PrivateKey):
        return OKPKey.import_key(private_key, parameters)
    raise KeySetError(f"unsupported key type {type(private_key).__name__}")  # pragma: no cover


def _import_public(jwk: dict[str, str]) -> JoseKey:
    members: dict[str, str | list[str]] = dict(jwk)
    kty = jwk["kty"]
    if kty == "RSA":
        return RSAKey.import_key(members)
    if kty == "EC":
        return ECKey.import_key(members)
    return OKPKey.import_key(members)


@dataclass(frozen=True)
class SigningKey:
    """One private key from the key directory, for one algorithm.

    ``key`` is the joserfc private key, carrying ``kid``, ``use=sig`` and ``alg``.
    """

    kid: str
    file_name: str
    key: JoseKey
    alg: str = JWS_ALGORITHM

    @classmethod
    def from_private_key(
        cls, file_name: str, private_key: PrivateKeyTypes, alg: str = JWS_ALGORITHM
    ) -> SigningKey:
        """Wrap a ``cryptography`` private key for ``alg``; checks its type and size;
        derives ``kid``."""
        _check_type(file_name, alg, private_key)
        kid = rfc7638_thumbprint(_public_jwk(private_key, alg, kid=""))
        key = _import(private_key, KeyParameters(kid=kid, use="sig", alg=alg))
        return cls(kid=kid, file_name=file_name, key=key, alg=alg)

    @cached_property
    def public_jwk(self) -> dict[str, str]:
        """The public JWK published in the JWKS: kty, use, alg, kid and the public members
        of its type. No private member."""
        private = self.key.private_key
        if private is None:  # pragma: no cover - SigningKey always holds a private key
            raise KeySetError(f"{self.file_name}: not a private key")
        return _public_jwk(private, self.alg, self.kid)

    @cached_property
    def public_key(self) -> JoseKey:
        """The joserfc public key (for verification); no private material."""
        return _import_public(dict(self.public_jwk))


@dataclass(frozen=True)
class KeySet:
    """The provider's keys: per algorithm, ordered oldest to newest by file name. Each
    algorithm's current key signs (:mod:`idp_common.crypto.key_schedule`); every key is
    published."""

    keys: tuple[SigningKey, ...]
    # Per algorithm, the signer and the interval in which it stays the signer: signing is
    # the token endpoint's hot path, so the schedule is consulted once per interval, not
    # per token, and choosing the algorithm costs one dict lookup.
    _windows: dict[str, tuple[float, float, SigningKey]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if not self.keys:
            raise KeySetError("the key set is empty: at least one signing key is required")
        seen: dict[str, str] = {}
        for signing_key in self.keys:
            if signing_key.kid in seen:
                raise KeySetError(
                    f"{signing_key.file_name}: holds the same key as {seen[signing_key.kid]}"
                )
            seen[signing_key.kid] = signing_key.file_name
        if not any(k.alg == JWS_ALGORITHM for k in self.keys):
            raise KeySetError(
                f"no {JWS_ALGORITHM} signing key: the provider's own API and every default "
                "sign with it; generate one first"
            )

    @cached_property
    def by_algorithm(self) -> dict[str, tuple[SigningKey, ...]]:
        """The keys of each held algorithm, oldest first (in :data:`SIGNING_ALGORITHMS`
        order)."""
        grouped: dict[str, list[SigningKey]] = {}
        for signing_key in self.keys:
            grouped.setdefault(signing_key.alg, []).append(signing_key)
        return {alg: tuple(grouped[alg]) for alg in SIGNING_ALGORITHMS if alg in grouped}

    @cached_property
    def algorithms(self) -> frozenset[str]:
        """The algorithms the provider holds: those it has a current key for."""
        return frozenset(self.by_algorithm)

    @cached_property
    def _by_kid(self) -> dict[str, SigningKey]:
        return {k.kid: k for k in self.keys}

    @cached_property
    def _activations(self) -> dict[str, tuple[float | None, ...]]:
        def seconds(file_name: str) -> float | None:
            moment = activation_of(file_name)
            return None if moment is None else moment.timestamp()

        return {
            alg: tuple(seconds(k.file_name) for k in keys)
            for alg, keys in self.by_algorithm.items()
        }

    def signing_key_at(self, now: float, alg: str = JWS_ALGORITHM) -> SigningKey:
        """The key of ``alg`` that signs a token issued at ``now`` (POSIX seconds).
        ``KeySetError`` when the provider holds no key of ``alg``."""
        window = self._windows.get(alg)
        if window is not None and window[0] <= now < window[1]:
            return window[2]
        keys = self.by_algorithm.get(alg)
        if keys is None:
            raise KeySetError(f"no {alg} signing key")
        index, since, until = signer_window(self._activations[alg], now)
        signer = keys[index]
        self._windows[alg] = (since, until, signer)
        return signer

    @property
    def signing_key(self) -> SigningKey:
        """The RS256 key that signs now (by the wall clock)."""
        return self.signing_key_at(time.time())

    def find(self, kid: str) -> SigningKey | None:
        """The key whose ``kid`` is ``kid``, or None."""
        return self._by_kid.get(kid)

    def jwks(self) -> dict[str, list[dict[str, str]]]:
        """The JWKS document (RFC 7517 §5): every public key, per algorithm (RS256 first)
        newest first."""
        return {
            "keys": [
                dict(k.public_jwk) for keys in self.by_algorithm.values() for k in reversed(keys)
            ]
        }

    def public_key_set(self) -> JoseKeySet:
        """A joserfc key set of the public keys, for verification with joserfc directly."""
        return JoseKeySet(
            [k.public_key for keys in self.by_algorithm.values() for k in reversed(keys)]
        )


def load_signing_key(file_name: str, pem: bytes, alg: str = JWS_ALGORITHM) -> SigningKey:
    """Parse one unencrypted PEM private key for ``alg`` (PKCS#8 or the traditional form)."""
    try:
        private_key = serialization.load_pem_private_key(pem, password=None)
    except TypeError as exc:
        raise KeySetError(f"{file_name}: encrypted keys are not supported") from exc
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise KeySetError(f"{file_name}: not a readable PEM private key") from exc
    return SigningKey.from_private_key(file_name, private_key, alg)


def load_key_set(directory: str | Path) -> KeySet:
    """Read every ``*.pem`` key of ``directory`` (RS256) and of its algorithm
    sub-directories, each ordered by file name (oldest first).

    Raises :class:`KeySetError` when the directory is missing, holds no RS256 key, or when
    a file is unreadable, encrypted, of the wrong type for its place or too small; the
    message names the file.
    """
    path = Path(directory)
    if not key_files(path):
        raise KeySetError(f"{path}: no signing key (*{KEY_FILE_SUFFIX}) found; generate one first")
    keys: list[SigningKey] = []
    for alg, location in key_locations(path):
        for file in key_files(location):
            try:
                pem = file.read_bytes()
            except OSError as exc:
                raise KeySetError(f"{file}: cannot read key file ({exc.strerror})") from exc
            keys.append(load_signing_key(str(file), pem, alg))
    return KeySet(tuple(keys))


def new_private_key_pem(bits: int = DEFAULT_RSA_BITS, alg: str = JWS_ALGORITHM) -> bytes:
    """A new private key for ``alg`` as unencrypted PKCS#8 PEM (``bits``: RSA only)."""
    private_key: PrivateKeyTypes
    if alg in (ALG_RS256, ALG_PS256):
        if bits < MIN_RSA_BITS or bits % 8:
            raise ValueError(f"bits must be a multiple of 8 and at least {MIN_RSA_BITS}")
        private_key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    elif alg == ALG_ES256:
        private_key = ec.generate_private_key(ec.SECP256R1())
    elif alg == ALG_EDDSA:
        private_key = ed25519.Ed25519PrivateKey.generate()
    else:
        raise ValueError(f"unsupported signing algorithm {alg!r}")
    return private_key.private_bytes(
        encoding=serialization.Encoding.PEM,
        format=serialization.PrivateFormat.PKCS8,
        encryption_algorithm=serialization.NoEncryption(),
    )


def write_key_file(directory: str | Path, pem: bytes, *, activation: datetime) -> Path:
    """Write ``pem`` (mode 0600) into ``directory`` (one algorithm's place) named by
    ``activation``, the UTC time from which it signs.

    Creates ``directory`` (mode 0700) when missing. Refuses with :class:`KeySetError`
    naming the file when an existing key would keep the new one from ever signing: one that
    sorts after it and is active by then (a hand-named file, which is active always).
    A key still waiting to sign after it (a next key written with a longer lead) is no
    obstacle: the new key signs until that one's time.
    """
    path = Path(directory)
    ensure_directory(path)
    target = free_name(path, key_file_stem(activation))
    for existing in key_files(path):
        moment = activation_of(existing.name)
        if existing.name > target.name and (moment is None or moment <= activation):
            raise KeySetError(
                f"{existing}: sorts after the new key {target.name}; "
                "the new key would not sign (check the clock or rename the file)"
            )
    write_new_file(target, pem)
    return target


def generate_key_file(
    directory: str | Path,
    *,
    now: datetime,
    bits: int = DEFAULT_RSA_BITS,
    alg: str = JWS_ALGORITHM,
) -> Path:
    """Write a new private key for ``alg`` into its place under the key directory
    ``directory``, active from ``now`` (``idp keys generate``: it signs as soon as the
    processes have re-read the directory). Returns the new file's path."""
    place = algorithm_directory(directory, alg)
    if place != Path(directory):
        ensure_directory(Path(directory))
    return write_key_file(place, new_private_key_pem(bits, alg), activation=now)
