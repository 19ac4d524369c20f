"""Wiring of the token service (``create_app`` is Granian's factory)."""

from __future__ import annotations

from idp_common.config import Settings, load_settings
from idp_common.web.app_factory import ServiceApp, create_service_app
from token_service.controllers.authorize import AuthorizeController
from token_service.controllers.discovery import DiscoveryController


def create_app(settings: Settings | None = None) -> ServiceApp:
    return create_service_app(
        settings or load_settings(),
        name="token",
        route_handlers=[DiscoveryController, AuthorizeController],
    )
