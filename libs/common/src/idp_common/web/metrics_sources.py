"""What ``/metrics`` reads besides the workers' counters.

- At scrape time, by the worker that answers (values that are the same in every worker,
  so summing them would be wrong): the signing keys' age and count
  (:func:`signing_key_families`, read through ``Resources.keys`` at every scrape, so a key
  set that reloads is seen as it is now). A service adds sources of its own
  (``create_service_app(metric_sources=...)``; the dispatcher's outbox backlog).
- Sampled by every worker, every second (:func:`sampling_pools`): its two PostgreSQL
  pools, as live gauges (a worker that dies leaves no value behind).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import mark_process_dead
from sqlalchemy.pool import QueuePool

from idp_common.observability.metrics import set_pool_usage
from idp_common.observability.multiprocess import MULTIPROC_ENV, prune_dead_workers
from idp_common.web.resources import Resources

#: A scrape-time source: the families it read now (it never raises).
ScrapeSource = Callable[[], Awaitable[Sequence[Metric]]]

POOL_SAMPLE_SECONDS: Final = 1.0
#: ``idp keys generate`` names a key file by its UTC time: ``20261126T100000Z[_001].pem``.
_KEY_TIME: Final = re.compile(r"(\d{8}T\d{6}Z)(?:_\d+)?\.pem")
KEY_FAMILIES: Final = ("idp_signing_key_age_seconds", "idp_signing_keys_published")


def key_file_time(file_name: str) -> float | None:
    """The UTC time a key file's name states (its activation time), as a Unix time; None
    when the name is not a time (a hand-named file)."""
    match = _KEY_TIME.fullmatch(Path(file_name).name)
    if match is None:
        return None
    return datetime.strptime(match.group(1), "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).timestamp()


def _key_time(file_name: str) -> float | None:
    named = key_file_time(file_name)
    if named is not None:
        return named
    try:
        return os.stat(file_name).st_mtime
    except OSError:
        return None


def signing_key_families(resources: Resources, service: str, now: float) -> list[Metric]:
    keys = resources.keys
    age = GaugeMetricFamily(
        KEY_FAMILIES[0],
        "Seconds since the signing key's file time (the UTC time in its name, else its mtime).",
        labels=["service"],
    )
    since = _key_time(keys.signing_key.file_name)
    if since is not None:
        age.add_metric([service], max(0.0, now - since))
    published = GaugeMetricFamily(
        KEY_FAMILIES[1], "Keys published in the JWKS.", labels=["service"]
    )
    published.add_metric([service], len(keys.keys))
    return [age, published]


def signing_key_source(resources: Resources, service: str) -> ScrapeSource:
    async def read() -> Sequence[Metric]:
        return signing_key_families(resources, service, time.time())

    return read


def _sample(resources: Resources) -> None:
    pool: Any = resources.engine.pool
    if isinstance(pool, QueuePool):
        in_use, idle = pool.checkedout(), pool.checkedin()
        most = pool.size() + max(0, getattr(pool, "_max_overflow", 0))
        set_pool_usage("orm", in_use=in_use, idle=idle, most=most)
    hot = resources.hot.usage()
    set_pool_usage("hot", in_use=hot.in_use, idle=hot.idle, most=hot.most)


def sampling_pools(resources: Resources) -> Callable[[Any], Any]:
    """A lifespan: each worker samples its pools every second; a worker that starts first
    clears what dead workers left, and one that stops clears its own."""

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        directory = os.environ.get(MULTIPROC_ENV)
        if directory:
            prune_dead_workers(Path(directory))

        async def loop() -> None:
            while True:
                _sample(resources)
                await asyncio.sleep(POOL_SAMPLE_SECONDS)

        task = asyncio.get_running_loop().create_task(loop(), name="metrics-pool-sampler")
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            if directory:
                mark_process_dead(os.getpid(), directory)  # type: ignore[no-untyped-call]

    return lifespan
