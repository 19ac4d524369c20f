"""Every per-address limit, in one table (contract §8 "Limits"; docs/security.md
"Throttling").

A row names the limiter bucket, the setting that holds the limit (its ``SVC_``
variable) and the fixed window; :meth:`AddressLimit.hit` counts one request of an
address in it (:class:`idp_common.state.ratelimit.RateLimiter`: an IPv6 address counts
for its /64). Whether a Redis failure fails open or closed is the caller's choice.

============ ==================== ======== ========================================================
bucket       setting              window   what is counted
============ ==================== ======== ========================================================
token        SVC_TOKEN_PER_IP     60 s     ``/oauth2/token`` requests (contract §8)
introspect   SVC_TOKEN_PER_IP     60 s     ``/oauth2/introspect`` requests (security.md, attack 11)
revoke       SVC_TOKEN_PER_IP     60 s     ``/oauth2/revoke`` requests (security.md, attack 11)
par          SVC_TOKEN_PER_IP     60 s     ``/oauth2/par`` requests (RFC 9126, pushed requests)
device       SVC_TOKEN_PER_IP     60 s     ``/oauth2/device_authorization`` requests, and the device
                                           page's user-code requests (RFC 8628 §5.1, §5.2)
challenge    SVC_CHALLENGE_PER_IP 60 s     sign-in challenges stored by ``/oauth2/authorize``
signin_ip    SVC_TOKEN_PER_IP     60 s     password and TOTP steps of the sign-in API
face_ip      SVC_FACE_PER_IP      60 s     face sign-in attempts (each a decode and an embedding)
reset_ip     SVC_RESET_PER_IP     3600 s   password-reset requests (contract §8)
auth_fail    SVC_AUTH_FAIL_PER_IP 60 s     failed bearer authentications at the APIs
============ ==================== ======== ========================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from idp_common.config import Settings
from idp_common.state.ratelimit import RateLimiter, RateLimitResult

__all__ = [
    "ADDRESS_LIMITS",
    "AUTH_FAIL",
    "CHALLENGE",
    "DEVICE",
    "FACE",
    "INTROSPECT",
    "PAR",
    "RESET",
    "REVOKE",
    "SIGNIN",
    "TOKEN",
    "AddressLimit",
]


@dataclass(frozen=True)
class AddressLimit:
    """One row: ``limit_setting`` names the :class:`Settings` field of the limit."""

    bucket: str
    limit_setting: str
    window_seconds: int

    def limit(self, settings: Settings) -> int:
        limit: int = getattr(settings, self.limit_setting)
        return limit

    async def hit(self, limiter: RateLimiter, settings: Settings, address: str) -> RateLimitResult:
        """Count one request of ``address``; Redis errors propagate."""
        return await limiter.hit(
            self.bucket,
            address,
            limit=self.limit(settings),
            window_seconds=self.window_seconds,
        )


MINUTE: Final = 60
HOUR: Final = 3600

TOKEN: Final = AddressLimit("token", "token_per_ip", MINUTE)
INTROSPECT: Final = AddressLimit("introspect", "token_per_ip", MINUTE)
REVOKE: Final = AddressLimit("revoke", "token_per_ip", MINUTE)
PAR: Final = AddressLimit("par", "token_per_ip", MINUTE)
DEVICE: Final = AddressLimit("device", "token_per_ip", MINUTE)
CHALLENGE: Final = AddressLimit("challenge", "challenge_per_ip", MINUTE)
SIGNIN: Final = AddressLimit("signin_ip", "token_per_ip", MINUTE)
FACE: Final = AddressLimit("face_ip", "face_per_ip", MINUTE)
RESET: Final = AddressLimit("reset_ip", "reset_per_ip", HOUR)
AUTH_FAIL: Final = AddressLimit("auth_fail", "auth_fail_per_ip", MINUTE)

#: The table, by bucket name.
ADDRESS_LIMITS: Final[Mapping[str, AddressLimit]] = MappingProxyType(
    {
        row.bucket: row
        for row in (
            TOKEN,
            INTROSPECT,
            REVOKE,
            PAR,
            DEVICE,
            CHALLENGE,
            SIGNIN,
            FACE,
            RESET,
            AUTH_FAIL,
        )
    }
)
