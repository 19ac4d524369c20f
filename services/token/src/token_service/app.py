"""Wiring of the token service (``create_app`` is Granian's factory)."""

from __future__ import annotations

from idp_common.config import Settings, load_settings
from idp_common.web.app_factory import ServiceApp, create_service_app
from token_service.controllers.discovery import DiscoveryController
from token_service.controllers.introspect import IntrospectionController
from token_service.controllers.revoke import RevocationController
from token_service.controllers.token import TokenController
from token_service.controllers.userinfo import UserinfoController


def create_app(settings: Settings | None = None) -> ServiceApp:
    return create_service_app(
        settings or load_settings(),
        name="token",
        route_handlers=[
            DiscoveryController,
            TokenController,
            IntrospectionController,
            RevocationController,
            UserinfoController,
        ],
    )
