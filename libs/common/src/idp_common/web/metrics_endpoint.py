"""``GET /metrics`` (Prometheus text format 0.0.4) and how a service is wired for metrics.

:func:`service_metrics` is what ``create_service_app`` asks for: with
``SVC_METRICS_ENABLED`` on, the route, the per-worker tick (request tallies written, pools
sampled), the scrape-time sources and the request-counting wrapper; off, none of them (the
route is Litestar's 404, nothing counts).

A scrape answers from whichever worker the connection reached. Under ``idp serve``
(``PROMETHEUS_MULTIPROC_DIR`` set) it sums every worker's files, after marking dead the
workers Granian replaced (``observability.multiprocess.prune_dead_workers``); otherwise it
reads this process's registry. Scrape-time sources (the signing keys, the dispatcher's
outbox) are read by the answering worker and appended once.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from litestar import Response, get
from litestar.handlers import HTTPRouteHandler
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import Metric
from prometheus_client.multiprocess import MultiProcessCollector

from idp_common.config import Settings
from idp_common.observability.metrics import REGISTRY, configure, flush
from idp_common.observability.multiprocess import MULTIPROC_ENV, prune_dead_workers
from idp_common.web.drain import DrainRequestBody
from idp_common.web.metrics_http import RequestMetrics
from idp_common.web.metrics_sources import (
    ScrapeSource,
    signing_key_source,
    worker_metrics,
)
from idp_common.web.resources import Resources

METRICS_PATH: Final = "/metrics"
#: Prometheus's text format 0.0.4, which every scraper reads (Litestar adds the charset).
TEXT_FORMAT: Final = "text/plain; version=0.0.4"


class _Fixed:
    """A collector of families already read (the scrape-time sources' answers)."""

    def __init__(self, families: Sequence[Metric]) -> None:
        self._families = families

    def collect(self) -> Sequence[Metric]:
        return self._families


def exposition(families: Sequence[Metric]) -> bytes:
    """The whole text: the workers' values (summed over the replica's files in
    multiprocess mode) and then ``families``."""
    flush()  # this worker's last counts; the others' are at most a second old
    directory = os.environ.get(MULTIPROC_ENV)
    if directory:
        prune_dead_workers(Path(directory))
        workers = CollectorRegistry(auto_describe=False)
        MultiProcessCollector(workers, directory)  # type: ignore[no-untyped-call]
        text = generate_latest(workers)
    else:
        text = generate_latest(REGISTRY)
    scraped = CollectorRegistry(auto_describe=False)
    scraped.register(_Fixed(families))
    return text + generate_latest(scraped)


def metrics_route(sources: Sequence[ScrapeSource]) -> HTTPRouteHandler:
    @get(METRICS_PATH, include_in_schema=False, sync_to_thread=False)
    async def metrics() -> Response[bytes]:
        families: list[Metric] = []
        for source in sources:
            families.extend(await source())
        return Response(exposition(families), media_type=TEXT_FORMAT)

    return metrics


@dataclass
class ServiceMetrics:
    """What a service adds for its metrics (nothing when they are off)."""

    enabled: bool
    handlers: list[Any] = field(default_factory=list)
    lifespans: list[Callable[[Any], Any]] = field(default_factory=list)

    def wrap(self, asgi: DrainRequestBody) -> DrainRequestBody | RequestMetrics:
        """The service's outermost ASGI app: ``asgi`` counted, or ``asgi`` itself."""
        return RequestMetrics(asgi) if self.enabled else asgi


def service_metrics(
    settings: Settings, name: str, resources: Resources, sources: Sequence[ScrapeSource]
) -> ServiceMetrics:
    configure(enabled=settings.metrics_enabled, service=name)
    if not settings.metrics_enabled:
        return ServiceMetrics(enabled=False)
    every = [signing_key_source(resources, name), *sources]
    return ServiceMetrics(
        enabled=True, handlers=[metrics_route(every)], lifespans=[worker_metrics(resources)]
    )
