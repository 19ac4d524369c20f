"""OpenTelemetry traces, on only when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) is set (docs/operations.md "Traces and logs").

Off, nothing but :func:`enabled` runs and the SDK is never imported: no middleware, no
instrumented library, no exporter thread. On, :mod:`.tracing_sdk` is loaded, and each
Granian worker, once started (the app's first lifespan), makes its own tracer provider
with a batch span processor exporting over OTLP/HTTP protobuf (the standard ``OTEL_*``
variables: endpoint, headers, timeout, sampler, ``OTEL_BSP_*``; service name
``idp-<service>`` unless ``OTEL_SERVICE_NAME``), instruments asyncpg, redis and httpx, and
flushes what is left when it stops.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from litestar.middleware.base import DefineMiddleware

ENDPOINT_VARIABLES: Final = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def enabled(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether this process exports traces."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return any(environ.get(name, "").strip() for name in ENDPOINT_VARIABLES)


def service_name(service: str, environ: Mapping[str, str] = os.environ) -> str:
    """``OTEL_SERVICE_NAME``, else ``idp-<service>``."""
    return environ.get("OTEL_SERVICE_NAME", "").strip() or f"idp-{service}"


def server_middleware() -> list[DefineMiddleware]:
    """Litestar's OpenTelemetry middleware when tracing is on (Litestar runs it outermost,
    before routing); nothing otherwise."""
    if not enabled():
        return []
    from idp_common.observability import tracing_sdk  # noqa: PLC0415 - only when on

    return [tracing_sdk.server_middleware()]


def lifespan(service: str) -> Callable[[Any], Any]:
    """The app's first lifespan: traces from this worker's start to its end, flushed
    last (after the other lifespans have finished their work)."""

    @asynccontextmanager
    async def traced(_: Any) -> AsyncIterator[None]:
        if not enabled():
            yield
            return
        from idp_common.observability import tracing_sdk  # noqa: PLC0415 - only when on

        provider = tracing_sdk.start(service_name(service))
        try:
            yield
        finally:
            await asyncio.to_thread(provider.shutdown)  # exports what is left

    return traced
