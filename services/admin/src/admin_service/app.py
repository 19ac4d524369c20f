"""Wiring of the administration API (``create_app`` is Granian's factory).

One controller module per resource of contract §4 "Admin: ...", each exporting
``ROUTES``; every route declares its one permission with ``requires``.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from litestar import Litestar
from litestar.types import ControllerRouterHandler

from admin_service.activity_rollup import rolling_up
from admin_service.controllers import (
    activity,
    apis,
    audit,
    branding,
    clients,
    groups,
    mail_templates,
    profile_fields,
    roles,
    user_passkeys,
    user_profile,
    users,
    webhooks,
)
from admin_service.scim.controllers import ROUTER as SCIM_ROUTER
from admin_service.scim.http import audit_refused_scim_write
from idp_common.config import Settings, load_settings
from idp_common.web.app_factory import ServiceApp, create_service_app
from idp_common.web.audit_trail import audit_refused_write
from idp_common.web.resources import open_resources

ROUTES: list[ControllerRouterHandler] = [
    *activity.ROUTES,
    *apis.ROUTES,
    *audit.ROUTES,
    *branding.ROUTES,
    *clients.ROUTES,
    *groups.ROUTES,
    *mail_templates.ROUTES,
    *profile_fields.ROUTES,
    *roles.ROUTES,
    *user_passkeys.ROUTES,
    *user_profile.ROUTES,
    *users.ROUTES,
    *webhooks.ROUTES,
    SCIM_ROUTER,  # /scim/v2 (docs/scim.md)
]


def create_app(settings: Settings | None = None) -> ServiceApp:
    settings = settings or load_settings()
    resources = open_resources(settings)

    def activity_rollup(_: Litestar) -> AbstractAsyncContextManager[None]:
        return rolling_up(resources.sessions)  # docs/activity-dashboard.md

    return create_service_app(
        settings,
        name="admin",
        route_handlers=ROUTES,
        after_exception=[audit_refused_write, audit_refused_scim_write],
        lifespans=[activity_rollup],
        resources=resources,
    )
