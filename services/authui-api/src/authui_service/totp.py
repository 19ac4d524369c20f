"""TOTP codes (RFC 6238): 30-second steps, 6 digits, SHA-1, the step before and after
accepted for clock drift (RFC 6238 §5.2), and a step never accepted twice (§5.2: "the
verifier MUST NOT accept the second attempt of the OTP after the successful validation").

Pure: the caller passes ``now`` and the last accepted step, and stores the step this
returns (``totp_credentials.last_used_step``) atomically before trusting it.
"""

from __future__ import annotations

import hmac
from typing import Final

import pyotp

STEP_SECONDS: Final = 30
DIGITS: Final = 6
DRIFT_STEPS: Final = 1


def time_step(now: float) -> int:
    return int(now // STEP_SECONDS)


def match_totp_step(
    secret_b32: str, code: str, *, now: float, last_used_step: int | None
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
        if matches and unused and found is None:
            found = step
    return found
