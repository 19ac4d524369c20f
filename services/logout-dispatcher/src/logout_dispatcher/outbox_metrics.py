"""The outbox backlog, read at every scrape of the dispatcher's ``/metrics``.

``idp_outbox_pending_events``: rows not yet published to NATS; ``idp_outbox_lag_seconds``:
how long the oldest of them has waited (0 when none), by the database's clock. Both are
the same for every replica (one table), so they are read by the worker that answers the
scrape, not counted by each worker. The read is bounded by ``SVC_DEPENDENCY_TIMEOUT``: a
database that is down or slow gives ``idp_outbox_readable 0`` and no backlog figures, never
a failed scrape.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Final

from prometheus_client.core import GaugeMetricFamily, Metric
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.storage.repos.outbox import backlog
from idp_common.web.dependency_errors import is_dependency_failure
from idp_common.web.metrics_sources import ScrapeSource

log = logging.getLogger("idp.metrics")

OUTBOX_FAMILIES: Final = (
    "idp_outbox_readable",
    "idp_outbox_pending_events",
    "idp_outbox_lag_seconds",
)


def outbox_source(sessions: async_sessionmaker[AsyncSession], timeout: float) -> ScrapeSource:
    async def read() -> Sequence[Metric]:
        readable = GaugeMetricFamily(
            OUTBOX_FAMILIES[0], "1 when this scrape could read the event outbox, else 0."
        )
        try:
            async with asyncio.timeout(timeout), sessions() as db:
                found = await backlog(db)
        except Exception as exc:  # a scrape never fails for it
            if not isinstance(exc, TimeoutError) and not is_dependency_failure(exc):
                log.exception("outbox backlog not read")
            readable.add_metric([], 0)
            return [readable]
        readable.add_metric([], 1)
        pending = GaugeMetricFamily(
            OUTBOX_FAMILIES[1], "Events in the outbox not yet published to NATS.", found.pending
        )
        lag = GaugeMetricFamily(
            OUTBOX_FAMILIES[2],
            "Seconds the oldest unpublished outbox event has waited (0 when none waits).",
            found.oldest_age_seconds,
        )
        return [readable, pending, lag]

    return read
