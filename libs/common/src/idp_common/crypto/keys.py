"""Signing keys: read from a directory, each signing from the time its file name states.

Spec part 5 "Signing keys" (rotation ordered by file name; the old key kept at least a
JWKS cache lifetime longer), extended by issue #22 for rotation without restarts:

- A key directory holds RSA private keys as PEM files named ``*.pem`` (PKCS#8
  ``BEGIN PRIVATE KEY`` or PKCS#1 ``BEGIN RSA PRIVATE KEY``, unencrypted). Other files,
  sub-directories and hidden files (``.foo.pem``) are ignored
  (:mod:`idp_common.crypto.key_files`).
- Files are sorted by name; a name is the key's UTC activation time
  (``20261126T100000Z.pem``). The signing key is the last one whose time has passed
  (:mod:`idp_common.crypto.key_schedule`: next / current / retired; a hand-named file is
  active since always, so a directory of hand-named files keeps "the last by name
  signs"). Every key is published in the JWKS, the next ones before they sign and the
  retired ones until the tokens they signed have expired.
- ``kid`` is the RFC 7638 JWK thumbprint (SHA-256, base64url without padding) of the public
  key (:mod:`idp_common.protocol.rfc7517_jwk`), so every replica derives the same ``kid``
  from the same file, whatever its name.
- Only RSA keys of at least 2048 bits are accepted (spec part 1: tokens are signed with
  RS256). Problems are reported as :class:`KeySetError` naming the file.

Every process re-reads the directory while it runs (:mod:`idp_common.web.key_ring`).
:func:`generate_key_file` writes a new key named by the time it may start signing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from joserfc.jwk import KeySet as JoseKeySet
from joserfc.jwk import RSAKey

from idp_common.crypto.key_files import (
    KEY_FILE_SUFFIX,
    KeySetError,
    ensure_directory,
    free_name,
    key_files,
    write_new_file,
)
from idp_common.crypto.key_schedule import activation_of, key_file_stem, signer_window
from idp_common.protocol.rfc7517_jwk import rfc7638_thumbprint, rsa_public_jwk

__all__ = [
    "JWS_ALGORITHM",
    "KEY_FILE_SUFFIX",
    "MIN_RSA_BITS",
    "KeySet",
    "KeySetError",
    "SigningKey",
    "generate_key_file",
    "load_key_set",
    "load_signing_key",
    "new_private_key_pem",
    "write_key_file",
]

#: The only signature algorithm the provider uses (spec part 1, part 5 "Access tokens").
JWS_ALGORITHM = "RS256"
#: NIST SP 800-131A: RSA keys shorter than this are refused.
MIN_RSA_BITS = 2048
#: Default size of generated keys: RSA-2048 signs about 4x faster than RSA-3072, and RS256
#: signing is the token endpoint's main cost; NIST SP 800-57 accepts 2048 through 2030.
#: Larger keys stay available (``idp keys generate --bits 3072``).
DEFAULT_RSA_BITS = 2048


def _public_jwk(public_key: rsa.RSAPublicKey, kid: str) -> dict[str, str]:
    numbers = public_key.public_numbers()
    return rsa_public_jwk(numbers.n, numbers.e, kid=kid, alg=JWS_ALGORITHM)


@dataclass(frozen=True)
class SigningKey:
    """One RSA private key from the key directory.

    ``key`` is the joserfc private key, carrying ``kid``, ``use=sig`` and ``alg=RS256``.
    """

    kid: str
    file_name: str
    key: RSAKey

    @classmethod
    def from_private_key(cls, file_name: str, private_key: rsa.RSAPrivateKey) -> SigningKey:
        """Wrap a ``cryptography`` RSA private key; checks its size; derives ``kid``."""
        if not isinstance(private_key, rsa.RSAPrivateKey):
            raise KeySetError(f"{file_name}: not an RSA private key (only RSA is supported)")
        if private_key.key_size < MIN_RSA_BITS:
            raise KeySetError(
                f"{file_name}: RSA key of {private_key.key_size} bits is too small "
                f"(at least {MIN_RSA_BITS} bits required)"
            )
        public = _public_jwk(private_key.public_key(), kid="")
        kid = rfc7638_thumbprint(public)
        key = RSAKey.import_key(private_key, {"kid": kid, "use": "sig", "alg": JWS_ALGORITHM})
        return cls(kid=kid, file_name=file_name, key=key)

    @cached_property
    def public_jwk(self) -> dict[str, str]:
        """The public JWK published in the JWKS: kty, use, alg, kid, n, e. No private member."""
        private = self.key.private_key
        if private is None:  # pragma: no cover - SigningKey always holds a private key
            raise KeySetError(f"{self.file_name}: not a private key")
        return _public_jwk(private.public_key(), self.kid)

    @cached_property
    def public_key(self) -> RSAKey:
        """The joserfc public key (for verification); no private material."""
        return RSAKey.import_key(dict(self.public_jwk))


@dataclass(frozen=True)
class KeySet:
    """The provider's keys, ordered oldest to newest by file name. The current key signs
    (:mod:`idp_common.crypto.key_schedule`); every key is published."""

    keys: tuple[SigningKey, ...]
    # The signer and the interval in which it stays the signer: signing is the token
    # endpoint's hot path, so the schedule is consulted once per interval, not per token.
    _window: list[tuple[float, float, SigningKey]] = field(
        default_factory=list, init=False, repr=False, compare=False
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

    @cached_property
    def _activations(self) -> tuple[float | None, ...]:
        moments = (activation_of(k.file_name) for k in self.keys)
        return tuple(None if moment is None else moment.timestamp() for moment in moments)

    def signing_key_at(self, now: float) -> SigningKey:
        """The key that signs a token issued at ``now`` (POSIX seconds)."""
        if self._window:
            since, until, signer = self._window[0]
            if since <= now < until:
                return signer
        index, since, until = signer_window(self._activations, now)
        signer = self.keys[index]
        self._window[:] = [(since, until, signer)]
        return signer

    @property
    def signing_key(self) -> SigningKey:
        """The key that signs now (by the wall clock)."""
        return self.signing_key_at(time.time())

    def find(self, kid: str) -> SigningKey | None:
        """The key whose ``kid`` is ``kid``, or None."""
        for signing_key in self.keys:
            if signing_key.kid == kid:
                return signing_key
        return None

    def jwks(self) -> dict[str, list[dict[str, str]]]:
        """The JWKS document (RFC 7517 §5): every public key, newest first."""
        return {"keys": [dict(k.public_jwk) for k in reversed(self.keys)]}

    def public_key_set(self) -> JoseKeySet:
        """A joserfc key set of the public keys, for verification with joserfc directly."""
        return JoseKeySet([k.public_key for k in reversed(self.keys)])


def load_signing_key(file_name: str, pem: bytes) -> SigningKey:
    """Parse one unencrypted PEM RSA private key (PKCS#8 or PKCS#1)."""
    try:
        private_key = serialization.load_pem_private_key(pem, password=None)
    except TypeError as exc:
        raise KeySetError(f"{file_name}: encrypted keys are not supported") from exc
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise KeySetError(f"{file_name}: not a readable PEM private key") from exc
    if not isinstance(private_key, rsa.RSAPrivateKey):
        kind = type(private_key).__name__
        raise KeySetError(f"{file_name}: {kind} is not an RSA private key (only RSA is supported)")
    return SigningKey.from_private_key(file_name, private_key)


def load_key_set(directory: str | Path) -> KeySet:
    """Read every ``*.pem`` key in ``directory``, ordered by file name (oldest first).

    Raises :class:`KeySetError` when the directory is missing, holds no key, or when a file
    is unreadable, encrypted, not RSA, or smaller than 2048 bits; the message names the file.
    """
    path = Path(directory)
    files = key_files(path)
    if not files:
        raise KeySetError(f"{path}: no signing key (*{KEY_FILE_SUFFIX}) found; generate one first")
    keys: list[SigningKey] = []
    for file in files:
        try:
            pem = file.read_bytes()
        except OSError as exc:
            raise KeySetError(f"{file}: cannot read key file ({exc.strerror})") from exc
        keys.append(load_signing_key(str(file), pem))
    return KeySet(tuple(keys))


def new_private_key_pem(bits: int = DEFAULT_RSA_BITS) -> bytes:
    """A new RSA private key as unencrypted PKCS#8 PEM."""
    if bits < MIN_RSA_BITS or bits % 8:
        raise ValueError(f"bits must be a multiple of 8 and at least {MIN_RSA_BITS}")
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    return private_key.private_bytes(
        encoding=serialization.Encoding.PEM,
        format=serialization.PrivateFormat.PKCS8,
        encryption_algorithm=serialization.NoEncryption(),
    )


def write_key_file(directory: str | Path, pem: bytes, *, activation: datetime) -> Path:
    """Write ``pem`` (mode 0600) named by ``activation``, the UTC time from which it signs.

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
    directory: str | Path, *, now: datetime, bits: int = DEFAULT_RSA_BITS
) -> Path:
    """Write a new RSA private key active from ``now`` (``idp keys generate``: it signs as
    soon as the processes have re-read the directory). Returns the new file's path."""
    return write_key_file(directory, new_private_key_pem(bits), activation=now)
