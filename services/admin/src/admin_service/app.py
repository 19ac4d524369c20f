"""Wiring of the administration API (``create_app`` is Granian's factory)."""

from __future__ import annotations

from admin_service.controllers.audit import AuditController
from idp_common.config import Settings, load_settings
from idp_common.web.app_factory import ServiceApp, create_service_app


def create_app(settings: Settings | None = None) -> ServiceApp:
    return create_service_app(
        settings or load_settings(), name="admin", route_handlers=[AuditController]
    )
