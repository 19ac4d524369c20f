"""Wiring of the logout dispatcher (``create_app`` is Granian's factory).

It runs two loops for its whole life, besides the health routes:

- the outbox relay (:class:`idp_common.events.OutboxRelay`): ``event_outbox`` → JetStream;
- the consumer (:class:`SessionEndedConsumer`): JetStream → back-channel logout tokens;
- the webhook fan-out (:class:`WebhookFanOut`): JetStream ``{prefix}.webhook.>`` → delivery
  rows, and the webhook delivery worker (:class:`WebhookWorker`): due rows → signed POSTs
  (docs/webhooks.md).

Every replica runs both; the relay's row locks and the durable consumer share the work.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from litestar import Litestar, Request

from idp_common.config import Settings, load_settings
from idp_common.events import OutboxRelay
from idp_common.events.nats_link import NatsLink
from idp_common.web.app_factory import ServiceApp, create_service_app
from idp_common.web.health import OK, UNREACHABLE
from idp_common.web.resources import open_resources
from logout_dispatcher.consumer import SessionEndedConsumer
from logout_dispatcher.delivery import new_http_client
from logout_dispatcher.fanout import FanOut
from logout_dispatcher.outbox_metrics import outbox_source
from logout_dispatcher.webhook_delivery import WebhookWorker, new_webhook_client
from logout_dispatcher.webhook_fanout import WebhookFanOut


def create_app(settings: Settings | None = None) -> ServiceApp:
    settings = settings or load_settings()
    resources = open_resources(settings)
    link = NatsLink(settings.nats_url, name="logout-dispatcher")
    relay = OutboxRelay(settings, resources.sessions, link)

    @asynccontextmanager
    async def nats_connection(_: Litestar) -> AsyncIterator[None]:
        link.start()
        try:
            yield
        finally:
            await link.close()

    def relaying(_: Litestar) -> AbstractAsyncContextManager[None]:
        return relay.running()

    @asynccontextmanager
    async def dispatching(_: Litestar) -> AsyncIterator[None]:
        async with new_http_client(allow_private=settings.backchannel_allow_private) as http:
            fan_out = FanOut(
                issuer=settings.issuer,
                keys=resources.key_ring.current,
                sessions=resources.sessions,
                http=http,
            )
            async with SessionEndedConsumer(settings, link, fan_out).running():
                yield

    @asynccontextmanager
    async def webhooks(_: Litestar) -> AsyncIterator[None]:
        async with new_webhook_client(allow_private=settings.webhook_allow_private) as http:
            worker = WebhookWorker(settings, resources.sessions, http)
            fan_out = WebhookFanOut(settings, link, resources.sessions, worker.wake)
            async with worker.running(), fan_out.running():
                yield

    async def check_nats(_: Request[Any, Any, Any]) -> str:
        return OK if link.is_connected else UNREACHABLE

    return create_service_app(
        settings,
        name="logout-dispatcher",
        route_handlers=[],
        health_checks={"nats": check_nats},
        lifespans=[nats_connection, relaying, dispatching, webhooks],
        resources=resources,
        metric_sources=[outbox_source(resources.sessions, settings.dependency_timeout)],
    )
