"""Wiring of the logout dispatcher (``create_app`` is Granian's factory)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from litestar import Litestar, Request

from idp_common.config import Settings, load_settings
from idp_common.nats_link import NatsLink
from idp_common.web.app_factory import ServiceApp, create_service_app
from idp_common.web.health import OK, UNREACHABLE


def create_app(settings: Settings | None = None) -> ServiceApp:
    settings = settings or load_settings()
    link = NatsLink(settings.nats_url, name="logout-dispatcher")

    @asynccontextmanager
    async def nats_connection(_: Litestar) -> AsyncIterator[None]:
        link.start()
        try:
            yield
        finally:
            await link.close()

    async def check_nats(_: Request[Any, Any, Any]) -> str:
        return OK if link.is_connected else UNREACHABLE

    return create_service_app(
        settings,
        name="logout-dispatcher",
        route_handlers=[],
        health_checks={"nats": check_nats},
        lifespans=[nats_connection],
    )
