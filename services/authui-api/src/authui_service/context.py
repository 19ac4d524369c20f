"""What the sign-in handlers share: settings, resources, the session store, the key
that opens TOTP secrets, the two throttles, the face engine. Built once in
``create_app``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from litestar.connection import ASGIConnection

from authui_service.throttle import Throttle
from idp_common.avatars.store import AvatarStore
from idp_common.config import Settings
from idp_common.errors import RateLimited
from idp_common.face import FaceEngine
from idp_common.state.address_limits import FACE, RESET, SIGNIN, AddressLimit
from idp_common.state.sessions import SessionStore
from idp_common.web.dependency_errors import is_dependency_failure
from idp_common.web.resources import Resources

STATE_KEY = "signin"
log = logging.getLogger("idp.signin")


@dataclass
class SigninContext:
    settings: Settings
    resources: Resources
    store: SessionStore
    first_factor: Throttle
    second_factor: Throttle
    secrets_key: bytes | None
    face: FaceEngine
    # The photo store: a current photo without a fingerprint is read from it at face
    # sign-in (idp_common.usecases.published_photos). None: no photos in this deployment.
    avatars: AvatarStore | None = None
    allowed_origins: frozenset[str] = field(default_factory=frozenset)
    _background: set[asyncio.Task[None]] = field(default_factory=set)

    def in_background(self, work: Coroutine[Any, Any, None], what: str) -> None:
        """Run ``work`` after the answer (a notice mail); a failure is logged by ``what``,
        never raised. The task is kept until it ends so that it is not collected."""

        async def guarded() -> None:
            try:
                await work
            except Exception as exc:
                level = logging.WARNING if is_dependency_failure(exc) else logging.ERROR
                log.log(level, "%s failed (%s)", what, type(exc).__name__)

        task = asyncio.get_running_loop().create_task(guarded())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def limit_biometric(self, ip: str) -> None:
        """``SVC_FACE_PER_IP`` face sign-in attempts a minute per address, on top of
        ``TOKEN_PER_IP``: each costs a decode and an embedding in a model process."""
        await self._limit(FACE, ip)

    async def limit_signin(self, ip: str) -> None:
        """Spec §8 ``TOKEN_PER_IP`` on the password routes: 429 past it."""
        await self._limit(SIGNIN, ip)

    async def limit_reset(self, ip: str) -> None:
        """Spec §8 ``RESET_PER_IP``: reset requests per hour per caller address."""
        await self._limit(RESET, ip)

    async def _limit(self, row: AddressLimit, ip: str) -> None:
        result = await row.hit(self.resources.limiter, self.settings, ip)
        if not result.allowed:
            raise RateLimited("too many requests from this address", retry_after=result.retry_after)


def context_of(connection: ASGIConnection[Any, Any, Any, Any]) -> SigninContext:
    ctx: SigninContext = connection.app.state[STATE_KEY]
    return ctx
