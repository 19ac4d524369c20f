"""TOTP (RFC 6238) as this provider uses it, and one-time recovery codes. Pure.

- Codes: 30-second steps, 6 digits, SHA-1 (what authenticator apps expect), the step before
  and after accepted for clock drift (§5.2), and a step never accepted twice (§5.2: "the
  verifier MUST NOT accept the second attempt of the OTP after the successful
  validation"): the caller passes the last accepted step and stores the step
  :func:`match_totp_step` returns, atomically, before trusting it.
- Secrets: 160 random bits in base32 (RFC 4226 §4 recommends 160).
- Recovery codes: 10 base32 characters (50 bits), shown as ``xxxxx-xxxxx``, stored only as
  the SHA-256 of the lower-case characters without separators (:func:`recovery_code_digest`),
  so what a person types is found whatever its case, spaces or hyphens.

Made at enrolment by the self-service API and checked at sign-in by the sign-in API.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Final

import pyotp

STEP_SECONDS: Final = 30
DIGITS: Final = 6
DRIFT_STEPS: Final = 1
SECRET_BYTES: Final = 20
RECOVERY_CODE_COUNT: Final = 10
RECOVERY_CODE_LENGTH: Final = 10
_RECOVERY_ALPHABET: Final = "abcdefghijklmnopqrstuvwxyz234567"


def time_step(now: float) -> int:
    return int(now // STEP_SECONDS)


def new_secret() -> str:
    return pyotp.random_base32(length=SECRET_BYTES * 8 // 5)


def provisioning_uri(secret: str, *, account: str, issuer: str) -> str:
    """The ``otpauth://totp/...`` URI authenticator apps read (Key Uri Format)."""
    return pyotp.TOTP(secret, digits=DIGITS, interval=STEP_SECONDS).provisioning_uri(
        name=account, issuer_name=issuer
    )


def match_totp_step(
    secret_b32: str, code: str, *, now: float, last_used_step: int | None = None
) -> int | None:
    """The step ``code`` belongs to, within ±1 step of ``now`` and after
    ``last_used_step``; None when it matches none. ValueError when the secret is not
    base32 of at least 112 bits (a stored value this provider did not make)."""
    code = code.replace(" ", "")
    if len(code) != DIGITS or not code.isascii() or not code.isdigit():
        return None
    generator = pyotp.TOTP(secret_b32, digits=DIGITS, interval=STEP_SECONDS)
    current = time_step(now)
    found: int | None = None
    for step in range(current - DRIFT_STEPS, current + DRIFT_STEPS + 1):
        matches = hmac.compare_digest(str(generator.generate_otp(step)), code)
        unused = last_used_step is None or step > last_used_step
        if matches and unused and found is None:  # every step compared: constant work
            found = step
    return found


def new_recovery_codes(count: int = RECOVERY_CODE_COUNT) -> list[str]:
    codes = set[str]()
    half = RECOVERY_CODE_LENGTH // 2
    while len(codes) < count:
        raw = "".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(RECOVERY_CODE_LENGTH))
        codes.add(f"{raw[:half]}-{raw[half:]}")
    return sorted(codes)


def recovery_code_digest(code: str) -> bytes | None:
    """SHA-256 of ``code`` as recovery codes are stored; None when ``code`` cannot be a
    recovery code (a six-digit code, for one)."""
    normalised = "".join(code.split()).replace("-", "").lower()
    if len(normalised) != RECOVERY_CODE_LENGTH or not set(normalised) <= set(_RECOVERY_ALPHABET):
        return None
    return hashlib.sha256(normalised.encode()).digest()
