"""Signing keys: loaded once from a directory, rotated by file name.

Spec part 5 "Signing keys":

1. Keys are read once at start-up. Rotation is ordered by file name.
2. After rotation the old key is kept at least five more minutes, because resource servers
   cache the key set for five minutes.

How this module reads that:

- A key directory holds RSA private keys as PEM files named ``*.pem`` (PKCS#8
  ``BEGIN PRIVATE KEY`` or PKCS#1 ``BEGIN RSA PRIVATE KEY``, unencrypted). Other files,
  sub-directories and hidden files (``.foo.pem``) are ignored.
- Files are sorted by name. The last one (the newest) signs; every one is published in the
  JWKS so that tokens signed by an older key still verify until the operator removes it.
- ``kid`` is the RFC 7638 JWK thumbprint (SHA-256, base64url without padding) of the public
  key (:mod:`idp_common.protocol.rfc7517_jwk`), so every replica derives the same ``kid``
  from the same file, whatever its name.
- Only RSA keys of at least 2048 bits are accepted (spec part 1: tokens are signed with
  RS256). Problems are reported as :class:`KeySetError` naming the file.

:func:`generate_key_file` writes a new key whose name is its UTC creation time
(``20261121T063500Z.pem``), so name order is creation order and the new key signs after the
next restart.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from joserfc.jwk import KeySet as JoseKeySet
from joserfc.jwk import RSAKey

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
]

#: The only signature algorithm the provider uses (spec part 1, part 5 "Access tokens").
JWS_ALGORITHM = "RS256"
#: NIST SP 800-131A: RSA keys shorter than this are refused.
MIN_RSA_BITS = 2048
#: Files in the key directory that are read as keys.
KEY_FILE_SUFFIX = ".pem"
#: Default size of generated keys: RSA-2048 signs about 4x faster than RSA-3072, and RS256
#: signing is the token endpoint's main cost; NIST SP 800-57 accepts 2048 through 2030.
#: Larger keys stay available (``idp keys generate --bits 3072``).
DEFAULT_RSA_BITS = 2048


class KeySetError(Exception):
    """The key directory or one of its files cannot be used. The message names the file."""


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
    """The provider's keys, ordered oldest to newest by file name. The newest signs."""

    keys: tuple[SigningKey, ...]

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

    @property
    def signing_key(self) -> SigningKey:
        """The newest key (last by file name); every new token is signed with it."""
        return self.keys[-1]

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


def _key_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        raise KeySetError(f"{directory}: key directory does not exist or is not a directory")
    try:
        entries = list(directory.iterdir())
    except OSError as exc:
        raise KeySetError(f"{directory}: cannot list key directory ({exc.strerror})") from exc
    files = [
        path
        for path in entries
        if path.name.endswith(KEY_FILE_SUFFIX) and not path.name.startswith(".") and path.is_file()
    ]
    return sorted(files, key=lambda path: path.name)


def load_key_set(directory: str | Path) -> KeySet:
    """Read every ``*.pem`` key in ``directory``, ordered by file name (oldest first).

    Raises :class:`KeySetError` when the directory is missing, holds no key, or when a file
    is unreadable, encrypted, not RSA, or smaller than 2048 bits; the message names the file.
    """
    path = Path(directory)
    files = _key_files(path)
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


def _utc_stem(now: datetime) -> str:
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware")
    return now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _ensure_directory(directory: Path) -> None:
    if directory.exists():
        if not directory.is_dir():
            raise KeySetError(f"{directory}: exists and is not a directory")
        return
    directory.mkdir(mode=0o700, parents=True)
    directory.chmod(0o700)  # mkdir's mode is masked by the umask


def _free_name(directory: Path, stem: str) -> Path:
    """``{stem}.pem``, else ``{stem}_001.pem`` … (``_`` sorts after ``.``, so order holds)."""
    candidate = directory / f"{stem}{KEY_FILE_SUFFIX}"
    counter = 0
    while candidate.exists():
        counter += 1
        candidate = directory / f"{stem}_{counter:03d}{KEY_FILE_SUFFIX}"
    return candidate


def generate_key_file(
    directory: str | Path, *, now: datetime, bits: int = DEFAULT_RSA_BITS
) -> Path:
    """Write a new RSA private key (PKCS#8 PEM, mode 0600) named from ``now`` in UTC.

    Creates ``directory`` (mode 0700) when missing. The name sorts after every key already
    there, so the new key is the signing key after the next start; if an existing file
    would sort after it (a clock set back, a hand-named file) :class:`KeySetError` is raised
    rather than writing a key that would never sign. Returns the new file's path.
    """
    if bits < MIN_RSA_BITS or bits % 8:
        raise ValueError(f"bits must be a multiple of 8 and at least {MIN_RSA_BITS}")
    path = Path(directory)
    _ensure_directory(path)
    target = _free_name(path, _utc_stem(now))
    existing = _key_files(path)
    if existing and existing[-1].name > target.name:
        raise KeySetError(
            f"{existing[-1]}: sorts after the new key {target.name}; "
            "the new key would not sign (check the clock or rename the file)"
        )
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    pem = private_key.private_bytes(
        encoding=serialization.Encoding.PEM,
        format=serialization.PrivateFormat.PKCS8,
        encryption_algorithm=serialization.NoEncryption(),
    )
    _write_new_file(target, pem)
    return target


def _write_new_file(target: Path, data: bytes) -> None:
    """Write ``data`` to a hidden temporary file, then link it to ``target`` atomically.

    ``os.link`` refuses to replace an existing file, so a concurrent writer cannot be
    overwritten and a reader never sees a half-written key.
    """
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), 0o600)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, target)
        except FileExistsError as exc:
            raise KeySetError(f"{target}: already exists") from exc
    finally:
        temporary.unlink(missing_ok=True)
