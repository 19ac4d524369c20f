"""Wiring of the authui-api service (``create_app`` is Granian's factory)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import cast

from litestar import Litestar, Router

from authui_service.context import STATE_KEY, SigninContext
from authui_service.controllers.branding import BrandingController
from authui_service.controllers.device import DeviceController
from authui_service.controllers.face import FaceSigninController
from authui_service.controllers.passkey import PasskeySigninController
from authui_service.controllers.reset import PasswordResetController
from authui_service.controllers.signin import SigninController
from authui_service.csrf import allowed_origins, same_site_json
from authui_service.throttle import FIRST_FACTOR, SECOND_FACTOR, Throttle
from idp_common.avatars.store import open_store
from idp_common.config import Settings, load_settings
from idp_common.face import FaceEngine
from idp_common.web.app_factory import ServiceApp, create_service_app
from idp_common.web.face import face_lifespan
from idp_common.web.resources import open_resources


def create_app(settings: Settings | None = None) -> ServiceApp:
    settings = settings or load_settings()
    resources = open_resources(settings)
    context = SigninContext(
        settings=settings,
        resources=resources,
        store=resources.browser_sessions,
        first_factor=Throttle(resources.redis, settings.redis_prefix, FIRST_FACTOR),
        second_factor=Throttle(resources.redis, settings.redis_prefix, SECOND_FACTOR),
        secrets_key=settings.secrets_key_bytes,
        face=FaceEngine(settings),
        avatars=open_store(settings.s3_endpoint_url, settings.s3_bucket),
        allowed_origins=allowed_origins(settings),
    )

    @asynccontextmanager
    async def close_avatars(_: Litestar) -> AsyncIterator[None]:
        try:
            yield
        finally:
            if context.avatars is not None:
                await context.avatars.aclose()

    api = Router(
        path="/",
        route_handlers=[
            SigninController,
            FaceSigninController,
            PasskeySigninController,
            PasswordResetController,
            DeviceController,
            BrandingController,
        ],
        guards=[same_site_json],
    )
    service = create_service_app(
        settings,
        name="authui-api",
        route_handlers=[api],
        resources=resources,
        lifespans=[face_lifespan(context.face), close_avatars],
    )
    cast(Litestar, service.app).state[STATE_KEY] = context
    return service
