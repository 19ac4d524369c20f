"""What the sign-in handlers share: settings, resources, the session store, the key
that opens TOTP secrets, the account throttle. Built once in ``create_app``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from litestar.connection import ASGIConnection

from authui_service.throttle import AccountThrottle
from idp_common.config import Settings
from idp_common.errors import RateLimited
from idp_common.face import FaceEngine
from idp_common.protocol.constants import (
    RESET_PER_IP_WINDOW_SECONDS,
    TOKEN_PER_IP_WINDOW_SECONDS,
)
from idp_common.sessions import SessionStore
from idp_common.web.resources import Resources

STATE_KEY = "signin"


@dataclass
class SigninContext:
    settings: Settings
    resources: Resources
    store: SessionStore
    throttle: AccountThrottle
    secrets_key: bytes | None
    face: FaceEngine
    allowed_origins: frozenset[str] = field(default_factory=frozenset)

    async def limit_signin(self, ip: str) -> None:
        """Spec §8 ``TOKEN_PER_IP`` on the password routes: 429 past it."""
        await self._limit("signin_ip", ip, self.settings.token_per_ip, TOKEN_PER_IP_WINDOW_SECONDS)

    async def limit_reset(self, ip: str) -> None:
        """Spec §8 ``RESET_PER_IP``: reset requests per hour per caller address."""
        await self._limit("reset_ip", ip, self.settings.reset_per_ip, RESET_PER_IP_WINDOW_SECONDS)

    async def _limit(self, bucket: str, ip: str, limit: int, window: int) -> None:
        result = await self.resources.limiter.hit(bucket, ip, limit=limit, window_seconds=window)
        if not result.allowed:
            raise RateLimited("too many requests from this address", retry_after=result.retry_after)


def context_of(connection: ASGIConnection[Any, Any, Any, Any]) -> SigninContext:
    ctx: SigninContext = connection.app.state[STATE_KEY]
    return ctx
