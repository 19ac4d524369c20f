"""OAuth 2.0 Device Authorization Grant (RFC 8628): the pure rules.

- **User code** (§6.1): "the base-20 letter-only character set" ``BCDFGHJKLMNPQRSTVWXZ``
  (no vowels, so no words; no digits, so nothing reads as another character), 8
  characters (20^8 ≈ 2^34.6, enough with the per-address and per-code limits), shown as
  ``XXXX-XXXX``. What a person types is normalised (§6.1: "case-insensitive", "ignore any
  punctuation"): upper case, dashes and whitespace dropped; anything else is no code.
- **Device code** (§3.2, §5.2): 256 random bits, base64url; stored as its SHA-256 only.
- **Polling** (§3.5): a pending code answers ``authorization_pending``; a poll sooner than
  ``interval`` seconds after the previous one answers ``slow_down`` and the interval grows
  by 5 s for every later poll; ``access_denied`` once the person said no; ``expired_token``
  once the code's lifetime is over; an approved code is redeemed once (the caller deletes
  it in the same atomic step and issues tokens).

Time and randomness are passed in (docs/style.md §2).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

import msgspec

from idp_common.protocol.rfc4648_base64url import base64url_encode
from idp_common.protocol.rfc6749_errors import InvalidGrant, OAuth2Error

__all__ = [
    "DEVICE_AUTHORIZATION_PATH",
    "DEVICE_CODE_BYTES",
    "SLOW_DOWN_SECONDS",
    "USER_CODE_ALPHABET",
    "USER_CODE_LENGTH",
    "VERIFICATION_PAGE",
    "AccessDenied",
    "AuthorizationPending",
    "DeviceApproval",
    "DeviceState",
    "ExpiredToken",
    "PollOutcome",
    "SlowDown",
    "decide",
    "device_code_digest",
    "format_user_code",
    "new_device_code",
    "new_user_code",
    "normalise_user_code",
    "poll",
]

#: RFC 8628 §3.1: the device authorization endpoint, on the issuer.
DEVICE_AUTHORIZATION_PATH: Final = "/oauth2/device_authorization"
#: §3.2 ``verification_uri``: the hosted sign-in app's page, below its base URL.
VERIFICATION_PAGE: Final = "/device"
#: RFC 8628 §6.1, "the base-20 letter-only character set".
USER_CODE_ALPHABET: Final = "BCDFGHJKLMNPQRSTVWXZ"
USER_CODE_LENGTH: Final = 8
#: §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests".
SLOW_DOWN_SECONDS: Final = 5
#: §5.2: the device code must be infeasible to guess: 256 bits.
DEVICE_CODE_BYTES: Final = 32
#: A poll this many milliseconds early still counts as on time (network jitter).
POLL_SLACK_MS: Final = 250
_IGNORED: Final = frozenset("- \t\r\n")

Status = Literal["pending", "approved", "denied"]


# --- errors: RFC 8628 §3.5 ------------------------------------------------------------------
class AuthorizationPending(OAuth2Error):
    error = "authorization_pending"


class SlowDown(OAuth2Error):
    error = "slow_down"


class AccessDenied(OAuth2Error):
    error = "access_denied"


class ExpiredToken(OAuth2Error):
    error = "expired_token"


# --- codes -----------------------------------------------------------------------------------
def new_user_code(randbelow: Callable[[int], int] = secrets.randbelow) -> str:
    """A normalised user code: 8 characters of :data:`USER_CODE_ALPHABET`."""
    size = len(USER_CODE_ALPHABET)
    return "".join(USER_CODE_ALPHABET[randbelow(size)] for _ in range(USER_CODE_LENGTH))


def format_user_code(code: str) -> str:
    """``BCDFGHJK`` → ``BCDF-GHJK`` (what the person sees)."""
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}"


def normalise_user_code(typed: str | None) -> str | None:
    """What a person typed as a normalised code, or None when it cannot be one."""
    if typed is None or len(typed) > 4 * USER_CODE_LENGTH:
        return None
    code = "".join(ch for ch in typed.upper() if ch not in _IGNORED)
    if len(code) != USER_CODE_LENGTH or any(ch not in USER_CODE_ALPHABET for ch in code):
        return None
    return code


def new_device_code(token_bytes: Callable[[int], bytes] = secrets.token_bytes) -> str:
    return base64url_encode(token_bytes(DEVICE_CODE_BYTES))


def device_code_digest(device_code: str) -> str:
    """The stored form of a device code (hex SHA-256): a Redis dump reveals no code."""
    return hashlib.sha256(device_code.encode("utf-8", "surrogatepass")).hexdigest()


# --- state -----------------------------------------------------------------------------------
class DeviceApproval(msgspec.Struct, frozen=True, kw_only=True):
    """Who approved and how they had signed in (the browser session's facts)."""

    user_id: str
    scopes: list[str]
    auth_time: int
    acr: str
    amr: list[str]
    sid: str


class DeviceState(msgspec.Struct, frozen=True, kw_only=True):
    """One device authorization: the client, the scopes asked for, its user code, when it
    expires (epoch seconds), the current polling interval and the last poll (ms)."""

    client_id: str
    scopes: list[str]
    user_code: str
    expires_at: int
    interval: int
    status: Status = "pending"
    last_poll_ms: int | None = None
    approval: DeviceApproval | None = None


@dataclass(frozen=True)
class PollOutcome:
    """What one poll does: ``redeem`` the approval (the caller deletes the state and issues
    tokens), or answer ``error``, writing ``state`` back when it is not None."""

    error: OAuth2Error | None = None
    state: DeviceState | None = None
    approval: DeviceApproval | None = None

    @property
    def redeem(self) -> bool:
        return self.approval is not None


def _final(state: DeviceState | None, client_id: str, now_ms: int) -> OAuth2Error | None:
    """The answer that no poll can change, if any."""
    if state is None:
        return InvalidGrant("the device code is invalid or was already used")
    if state.client_id != client_id:
        return InvalidGrant("the device code was issued to another client")
    if state.expires_at * 1000 <= now_ms:
        return ExpiredToken("the device code has expired; start again")
    if state.status == "denied":
        return AccessDenied("the person denied the request")
    return None


def poll(state: DeviceState | None, client_id: str, now_ms: int) -> PollOutcome:
    """RFC 8628 §3.4, §3.5: the answer to a token request for ``state``'s device code."""
    final = _final(state, client_id, now_ms)
    if final is not None or state is None:
        return PollOutcome(final)
    if state.status == "approved" and state.approval is not None:
        return PollOutcome(approval=state.approval)
    last = state.last_poll_ms
    if last is not None and now_ms - last < state.interval * 1000 - POLL_SLACK_MS:
        slower = msgspec.structs.replace(
            state, interval=state.interval + SLOW_DOWN_SECONDS, last_poll_ms=now_ms
        )
        return PollOutcome(SlowDown(f"poll at most every {slower.interval} seconds"), slower)
    waiting = msgspec.structs.replace(state, last_poll_ms=now_ms)
    return PollOutcome(AuthorizationPending("the person has not decided yet"), waiting)


def decide(
    state: DeviceState | None, now: int, approval: DeviceApproval | None
) -> DeviceState | None:
    """The state after the person's decision (``approval`` None: denied), or None when the
    code is unknown, expired or already decided (a decision is final)."""
    if state is None or state.expires_at <= now or state.status != "pending":
        return None
    if approval is None:
        return msgspec.structs.replace(state, status="denied")
    return msgspec.structs.replace(state, status="approved", approval=approval)
