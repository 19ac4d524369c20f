"""Wiring of the self-service API (``create_app`` is Granian's factory).

Routes of contract §4 "Entity (self-service)" and "Media", one controller module per
resource, each exporting ``ROUTES``; every ``/entity/*`` route declares its one permission
with ``requires`` (``idp:account|sessions|connections:read|write``, which every person
holds) and acts on the caller (the token's ``sub``) only.
"""

from __future__ import annotations

from entity_service.controllers import (
    connections,
    credentials,
    face,
    media,
    passkeys,
    permissions,
    photo,
    preferences,
    profile,
    sessions,
    totp,
)
from idp_common.config import Settings, load_settings
from idp_common.face import FaceEngine
from idp_common.web.app_factory import ServiceApp, create_service_app
from idp_common.web.audit_trail import audit_refused_write
from idp_common.web.face import face_lifespan

ROUTES = [
    *connections.ROUTES,
    *credentials.ROUTES,
    *face.ROUTES,
    *media.ROUTES,
    *passkeys.ROUTES,
    *permissions.ROUTES,
    *photo.ROUTES,
    *preferences.ROUTES,
    *profile.ROUTES,
    *sessions.ROUTES,
    *totp.ROUTES,
]


def create_app(settings: Settings | None = None) -> ServiceApp:
    settings = settings or load_settings()
    return create_service_app(
        settings,
        name="entity",
        route_handlers=ROUTES,
        lifespans=[face_lifespan(FaceEngine(settings))],
        after_exception=[audit_refused_write],
    )
