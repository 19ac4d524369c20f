"""What ``/metrics`` reads besides the workers' counters.

- At scrape time, by the worker that answers (values that are the same in every worker,
  so summing them would be wrong): the signing keys' age and count
  (:func:`signing_key_families`, read through ``Resources.keys`` at every scrape, so a key
  set that reloads is seen as it is now). A service adds sources of its own
  (``create_service_app(metric_sources=...)``; the dispatcher's outbox backlog).
- Every second, in every worker (:func:`worker_metrics`): its counts written out
  (``observability.metrics.flush``) and its two PostgreSQL pools sampled, as live
  gauges (a worker that dies leaves no value behind).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence, Sized
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final, Protocol

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import mark_process_dead
from sqlalchemy.pool import QueuePool

from idp_common.background import in_background
from idp_common.crypto.key_schedule import activation_of
from idp_common.observability.metrics import flush, set_pool_usage
from idp_common.observability.multiprocess import MULTIPROC_ENV, prune_dead_workers
from idp_common.web.resources import Resources

#: A scrape-time source: the families it read now (it never raises).
ScrapeSource = Callable[[], Awaitable[Sequence[Metric]]]

WORKER_TICK_SECONDS: Final = 1.0
KEY_FAMILIES: Final = ("idp_signing_key_age_seconds", "idp_signing_keys_published")


def key_time(file_name: str) -> float | None:
    """A key file's time as a Unix time: the UTC activation time its name states
    (``crypto.key_schedule.activation_of``), else its modification time (a hand-named
    file); None when neither can be read."""
    activation = activation_of(file_name)
    if activation is not None:
        return activation.timestamp()
    try:
        return os.stat(file_name).st_mtime
    except OSError:
        return None


class _KeyFile(Protocol):
    @property
    def file_name(self) -> str: ...


class PublishedKeys(Protocol):
    """What the key metrics read of ``Resources.keys`` (today a ``KeySet``): the key that
    signs and the keys published."""

    @property
    def signing_key(self) -> _KeyFile: ...

    @property
    def keys(self) -> Sized: ...


def signing_key_families(keys: PublishedKeys, service: str, now: float) -> list[Metric]:
    """The signing key's age and the number of published keys, for ``service``."""
    age = GaugeMetricFamily(
        KEY_FAMILIES[0],
        "Seconds since the signing key's file time (the UTC time in its name, else its mtime).",
        labels=["service"],
    )
    since = key_time(keys.signing_key.file_name)
    if since is not None:
        age.add_metric([service], max(0.0, now - since))
    published = GaugeMetricFamily(
        KEY_FAMILIES[1], "Keys published in the JWKS.", labels=["service"]
    )
    published.add_metric([service], len(keys.keys))
    return [age, published]


def signing_key_source(resources: Resources, service: str) -> ScrapeSource:
    async def read() -> Sequence[Metric]:
        return signing_key_families(resources.keys, service, time.time())

    return read


def _sample(resources: Resources) -> None:
    pool: Any = resources.engine.pool
    if isinstance(pool, QueuePool):
        in_use, idle = pool.checkedout(), pool.checkedin()
        most = pool.size() + max(0, getattr(pool, "_max_overflow", 0))
        set_pool_usage("orm", in_use=in_use, idle=idle, most=most)
    hot = resources.hot.usage()
    set_pool_usage("hot", in_use=hot.in_use, idle=hot.idle, most=hot.most)


def worker_metrics(resources: Resources) -> Callable[[Any], Any]:
    """A lifespan: each worker writes its counts and samples its pools every second; a
    worker that starts first clears what dead workers left, and one that stops writes its
    last counts and clears its live gauges."""

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        directory = os.environ.get(MULTIPROC_ENV)
        if directory:
            prune_dead_workers(Path(directory))

        async def loop() -> None:
            while True:
                flush()
                _sample(resources)
                await asyncio.sleep(WORKER_TICK_SECONDS)

        try:
            async with in_background(loop(), name="worker-metrics"):
                yield
        finally:
            flush()
            if directory:
                mark_process_dead(os.getpid(), directory)  # type: ignore[no-untyped-call]

    return lifespan
