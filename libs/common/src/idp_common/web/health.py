"""``/health``, ``/health/live`` and ``/health/ready`` (contract §4 "Service health").

``/health`` always answers 200 and names each dependency ``ok`` or ``unreachable``
(``database`` is ``outdated`` when its schema is below this release's migrations' head,
``ahead`` when a later release has already migrated it: ready, since a rollout migrates
before the new replicas start and the old ones must keep serving meanwhile).
``/health/ready`` answers 503 when any dependency is not ``ok``, and ``{"status":
"draining"}`` while the replica shuts down: stop sending traffic, do not restart.
``/health/live`` touches nothing: restart only when it fails.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from litestar import Request, Response, get
from litestar.handlers import HTTPRouteHandler
from sqlalchemy import text

from idp_common.storage.db.migrate import current_revision
from idp_common.web.caller import resources_of
from idp_common.web.resources import Resources
from idp_common.web.shutdown import is_draining

log = logging.getLogger("idp.health")

OK, UNREACHABLE, OUTDATED, AHEAD = "ok", "unreachable", "outdated", "ahead"
#: What a replica can serve with. A schema ahead of the release is additive (migrations add;
#: what a release stops using is dropped one release later: docs/operations.md).
SERVING = frozenset({OK, AHEAD})
Check = Callable[[Request[Any, Any, Any]], Awaitable[str]]


async def check_database(resources: Resources) -> str:
    async with resources.engine.connect() as conn:
        await conn.execute(text("SELECT 1"))
    revision = await current_revision(resources.engine)
    if revision == resources.head_revision:
        return OK
    if revision is None or revision in resources.older_revisions:
        return OUTDATED
    return AHEAD


async def check_redis(resources: Resources) -> str:
    await resources.redis.ping()
    return OK


async def _guarded(name: str, probe: Awaitable[str], seconds: float) -> str:
    try:
        return await asyncio.wait_for(probe, seconds)
    except Exception as exc:  # any failure of a dependency means "unreachable"
        log.warning("health: %s unreachable (%s)", name, type(exc).__name__)
        return UNREACHABLE


async def _report(request: Request[Any, Any, Any], extra: Mapping[str, Check]) -> dict[str, str]:
    resources = resources_of(request)
    timeout = resources.settings.dependency_timeout * 2
    names = ["database", "redis", *extra]
    probes = [
        check_database(resources),
        check_redis(resources),
        *(c(request) for c in extra.values()),
    ]
    results = await asyncio.gather(
        *(_guarded(n, p, timeout) for n, p in zip(names, probes, strict=True))
    )
    report = dict(zip(names, results, strict=True))
    status = "ok" if all(v in SERVING for v in results) else "degraded"
    return {"status": status, **report}


def health_handlers(extra: Mapping[str, Check] | None = None) -> list[HTTPRouteHandler]:
    """The three health routes; ``extra`` adds dependencies (e.g. NATS for the dispatcher)."""
    checks = dict(extra or {})

    @get(
        "/health", operation_id="health", tags=["health"], summary="Dependency report (always 200)"
    )
    async def health(request: Request[Any, Any, Any]) -> dict[str, str]:
        return await _report(request, checks)

    @get("/health/live", operation_id="healthLive", tags=["health"], summary="Liveness")
    async def live() -> dict[str, str]:
        return {"status": "ok"}

    @get("/health/ready", operation_id="healthReady", tags=["health"], summary="Readiness")
    async def ready(request: Request[Any, Any, Any]) -> Response[dict[str, str]]:
        if is_draining(request):  # shutting down: take this replica out (web/shutdown.py)
            return Response({"status": "draining"}, status_code=503)
        report = await _report(request, checks)
        return Response(report, status_code=200 if report["status"] == "ok" else 503)

    return [health, live, ready]
