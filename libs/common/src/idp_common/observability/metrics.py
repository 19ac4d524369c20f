"""Every metric the services count, its labels, and the one switch (``SVC_METRICS_ENABLED``).

Names start with ``idp_``. Labels take values from closed sets only (route templates,
grant types, limit names, outcome names, a status class): never a client id, a person, a
token or an address, so the number of series stays bounded whatever callers send.

Each service calls :func:`configure` once per worker (``create_service_app``). Until then,
and when it is called with ``enabled=False``, every ``count_*`` function returns at once:
the operator tool and the tests that import these modules count nothing.

Under ``idp serve`` each worker writes its values to files of its own in the replica's
``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's multiprocess mode; set before any worker
imports this module) and ``/metrics`` sums them (``idp_common.web.metrics_endpoint``).
Without that variable the values live in the process and :data:`REGISTRY` exposes them.

Counts are tallied in the worker first and written out by :func:`flush` every second
(``idp_common.web.metrics_sources``), before each scrape and when the worker stops: in
multiprocess mode ``Counter.labels`` costs about 2 µs, a child's ``inc`` 1 µs and a
histogram's ``observe`` 2 µs (a lock, a ``getpid``, writes to the mapped file), where adding
to the worker's own integers costs a tenth of that. An HTTP request goes to a
:class:`RouteTally` (about 1 µs with the request wrapper, against 4.5 µs written through),
any other count to a pending total per label values. A scrape therefore sees another
worker's last second late, and a worker killed with SIGKILL loses at most its last second
of counts. The tallies are bounded because the label values are.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

__all__ = [
    "HTTP_METHODS",
    "REGISTRY",
    "UNMATCHED_ROUTE",
    "configure",
    "count_backchannel_delivery",
    "count_limit_refusal",
    "count_signin",
    "count_token_issued",
    "enabled",
    "flush",
    "http_tally",
    "set_pool_usage",
    "status_class",
]

#: The registry of the single-process case; in multiprocess mode the files are read instead.
REGISTRY: Final = CollectorRegistry(auto_describe=True)

#: Seconds: from a cached discovery document (well under 1 ms) to a password sign-in on a
#: busy machine (argon2id, hundreds of ms) and a back-channel wait (5 s).
LATENCY_BUCKETS: Final = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)
#: Methods counted by name; any other token a client sends is ``other``.
HTTP_METHODS: Final = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
#: The route of a request no route matched (404, 405): never the raw path.
UNMATCHED_ROUTE: Final = "unmatched"

HTTP_REQUESTS: Final = Counter(
    "idp_http_requests",
    "HTTP requests answered, by route template, method and status code.",
    ["service", "route", "method", "status"],
    registry=REGISTRY,
)
HTTP_DURATION: Final = Histogram(
    "idp_http_request_duration_seconds",
    "Time from a request's arrival to the last byte of its answer, by route template and method.",
    ["service", "route", "method"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
TOKENS_ISSUED: Final = Counter(
    "idp_tokens_issued",
    "Token responses issued at /oauth2/token, by grant type and client type.",
    ["service", "grant_type", "client_type"],
    registry=REGISTRY,
)
SIGNIN_ATTEMPTS: Final = Counter(
    "idp_signin_attempts",
    "Sign-in steps decided by the sign-in API, by method and outcome (success or why not).",
    ["service", "method", "reason"],
    registry=REGISTRY,
)
LIMIT_REFUSALS: Final = Counter(
    "idp_rate_limit_refusals",
    "Requests refused by a rate limit or a per-account throttle, by limit name.",
    ["service", "limit"],
    registry=REGISTRY,
)
BACKCHANNEL_DELIVERIES: Final = Counter(
    "idp_backchannel_deliveries",
    "Back-channel logout POSTs, by outcome: the answer's status class, timeout or error.",
    ["service", "status_class"],
    registry=REGISTRY,
)
WEBHOOK_DELIVERIES: Final = Counter(
    "idp_webhook_deliveries",
    "Webhook delivery attempts, by outcome: the answer's status class, timeout or error.",
    ["service", "status_class"],
    registry=REGISTRY,
)
POOL_CONNECTIONS: Final = Gauge(
    "idp_db_pool_connections",
    "Open PostgreSQL connections of a worker's pool, in use or idle (sampled every second).",
    ["service", "pool", "state"],
    registry=REGISTRY,
    multiprocess_mode="liveall",
)
POOL_MAX: Final = Gauge(
    "idp_db_pool_max_connections",
    "The most connections a worker's pool opens.",
    ["service", "pool"],
    registry=REGISTRY,
    multiprocess_mode="liveall",
)

#: Every family counted by the workers (the scrape-time ones are in ``web.metrics_sources``).
WORKER_FAMILIES: Final = (
    HTTP_REQUESTS,
    HTTP_DURATION,
    TOKENS_ISSUED,
    SIGNIN_ATTEMPTS,
    LIMIT_REFUSALS,
    BACKCHANNEL_DELIVERIES,
    WEBHOOK_DELIVERIES,
    POOL_CONNECTIONS,
    POOL_MAX,
)


class _State:
    on = False
    service = ""


class RouteTally:
    """Requests of one (route, method, status) not yet written: their number, their
    seconds, and how many fell in each latency bucket (the last one is ``+Inf``)."""

    __slots__ = ("buckets", "count", "seconds")

    def __init__(self) -> None:
        self.count = 0
        self.seconds = 0.0
        self.buckets = [0] * (len(LATENCY_BUCKETS) + 1)

    def add(self, seconds: float) -> None:
        self.count += 1
        self.seconds += seconds
        self.buckets[bisect_left(LATENCY_BUCKETS, seconds)] += 1  # le: upper bound included


_state = _State()
_pending: dict[tuple[Counter, tuple[str, ...]], int] = {}
_tallies: dict[tuple[str, str, int], RouteTally] = {}


def configure(*, enabled: bool, service: str) -> None:
    """Switch counting on or off for this process; ``service`` labels every value."""
    _state.on = enabled
    _state.service = service
    _pending.clear()
    _tallies.clear()


def enabled() -> bool:
    return _state.on


def _inc(counter: Counter, *labels: str) -> None:
    if not _state.on:
        return
    key = (counter, labels)
    _pending[key] = _pending.get(key, 0) + 1


def http_tally(route: str, method: str, status: int) -> RouteTally:
    """The tally of one (route template, method, status); ``method`` must already be one
    of :data:`HTTP_METHODS` or ``other``."""
    key = (route, method, status)
    tally = _tallies.get(key)
    if tally is None:
        tally = _tallies[key] = RouteTally()
    return tally


def flush() -> None:
    """Write what was counted since the last call and zero it: the pending counts, and
    every HTTP tally to ``idp_http_requests_total`` and the latency histogram. Histogram
    buckets are written one by one (a child's ``_buckets`` and ``_sum``, what its
    ``observe`` writes, non-cumulative as prometheus-client keeps them)."""
    service = _state.service
    for (counter, labels), count in _pending.items():
        if count:
            counter.labels(service, *labels).inc(count)
            _pending[(counter, labels)] = 0
    for (route, method, status), tally in _tallies.items():
        if not tally.count:
            continue
        HTTP_REQUESTS.labels(service, route, method, str(status)).inc(tally.count)
        histogram = HTTP_DURATION.labels(service, route, method)
        histogram._sum.inc(tally.seconds)  # private: see the docstring
        for index, count in enumerate(tally.buckets):
            if count:
                histogram._buckets[index].inc(count)
        tally.count, tally.seconds = 0, 0.0
        tally.buckets = [0] * len(tally.buckets)


def count_token_issued(grant_type: str, *, confidential: bool) -> None:
    """One token response of ``grant_type`` (a registered grant's name) to a client."""
    _inc(TOKENS_ISSUED, grant_type, "confidential" if confidential else "public")


def count_signin(method: str, reason: str) -> None:
    """One sign-in step decided: ``method`` (password, totp, recovery_code, face) and
    ``reason`` (success, or a refusal's fixed name)."""
    _inc(SIGNIN_ATTEMPTS, method, reason)


def count_limit_refusal(limit: str) -> None:
    """One request refused by the limit or throttle named ``limit`` (a code constant)."""
    _inc(LIMIT_REFUSALS, limit)


def status_class(status_code: int, error: str | None) -> str:
    """``2xx`` … ``5xx`` for an answer; ``timeout`` or ``error`` when none arrived."""
    if status_code:
        return f"{min(max(status_code // 100, 1), 5)}xx"
    return "timeout" if error == "timeout" else "error"


def count_backchannel_delivery(status_code: int, error: str | None) -> None:
    """One back-channel POST's outcome (``status_code`` 0: no answer, see ``error``)."""
    _inc(BACKCHANNEL_DELIVERIES, status_class(status_code, error))


def count_webhook_delivery(status_code: int | None, error: str | None) -> None:
    """One webhook attempt's outcome (``status_code`` None: no answer, see ``error``)."""
    _inc(WEBHOOK_DELIVERIES, status_class(status_code or 0, error))


def set_pool_usage(pool: str, *, in_use: int, idle: int, most: int) -> None:
    """This worker's ``pool`` now (the sampler in ``idp_common.web.metrics_sources``)."""
    if not _state.on:
        return
    service = _state.service
    POOL_CONNECTIONS.labels(service, pool, "in_use").set(in_use)
    POOL_CONNECTIONS.labels(service, pool, "idle").set(idle)
    POOL_MAX.labels(service, pool).set(most)
