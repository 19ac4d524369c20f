"""Wiring of the token service (``create_app`` is Granian's factory)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from litestar import Litestar

from idp_common.config import Settings, load_settings
from idp_common.operations.cleanup import periodic_cleanup
from idp_common.web.app_factory import ServiceApp, create_service_app
from idp_common.web.resources import open_resources
from token_service import cors, lean
from token_service.context import ISSUED_COUNTS_KEY
from token_service.controllers.authorize import AuthorizeController
from token_service.controllers.device_authorization import DeviceAuthorizationController
from token_service.controllers.discovery import discovery_router
from token_service.controllers.introspect import IntrospectionController
from token_service.controllers.logout import LogoutController
from token_service.controllers.par import PushedAuthorizationController
from token_service.controllers.revoke import RevocationController
from token_service.controllers.token import TokenController
from token_service.controllers.userinfo import UserinfoController
from token_service.issued_counts import IssuedCounts, flushing


def create_app(settings: Settings | None = None) -> ServiceApp:
    settings = settings or load_settings()
    resources = open_resources(settings)

    def cleanup(_: Litestar) -> AbstractAsyncContextManager[None]:
        return periodic_cleanup(
            resources.engine,
            interval=settings.cleanup_interval,
            batch_size=settings.cleanup_batch_size,
            pause=settings.cleanup_batch_pause,
        )

    # Tokens issued, counted in memory and written as audit summaries (docs/activity-dashboard.md).
    issued = IssuedCounts()

    def write_counts(_: Litestar) -> AbstractAsyncContextManager[None]:
        return flushing(issued, resources.sessions, settings.activity_flush_seconds)

    service = create_service_app(
        settings,
        name="token",
        lifespans=[cleanup, write_counts],
        resources=resources,
        route_handlers=[
            discovery_router(settings),
            AuthorizeController,
            LogoutController,
            TokenController,
            PushedAuthorizationController,
            DeviceAuthorizationController,
            IntrospectionController,
            RevocationController,
            UserinfoController,
        ],
    )
    service.app.state[ISSUED_COUNTS_KEY] = issued
    # Under the lean routes, which pass every request with an Origin (a browser's) to it.
    cors.install(service.app)
    if settings.lean_routes:
        lean.install(service.app)
    return service
