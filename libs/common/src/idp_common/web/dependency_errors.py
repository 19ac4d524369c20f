"""Telling a failed dependency from a bug (DEVELOPERS.md "Standards": a dependency that
fails gets a clean 503 with ``Retry-After``, never a 500).

PostgreSQL, Redis or the network between them failing surfaces as an exception of the
driver: a refused or reset connection, a timeout, a server shutting down or loading, a
Redis that refuses writes because it reached ``maxmemory`` (``noeviction``, the policy
the security state runs with: docs/security.md). Each app's one error mapping asks
:func:`is_dependency_failure` and answers 503 with :data:`RETRY_AFTER_SECONDS` instead of
a 500; nothing about the failure reaches the body.

SQLAlchemy wraps driver errors, and code may re-raise with ``from``: the whole chain of
causes is examined.
"""

from __future__ import annotations

import logging
from typing import Final

import asyncpg.exceptions as pg
import redis.exceptions as redis_errors
import sqlalchemy.exc as sa

__all__ = ["RETRY_AFTER_SECONDS", "is_dependency_failure", "log_failure"]

#: What a client is told to wait: about the time a restarted server needs to accept again.
RETRY_AFTER_SECONDS: Final = 5

_FAILURES: Final[tuple[type[BaseException], ...]] = (
    # the network and the OS (a refused connection is an OSError, a timeout a TimeoutError)
    ConnectionError,
    TimeoutError,
    # Redis: unreachable, slow, loading its data set, full, a read-only replica
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.OutOfMemoryError,
    redis_errors.ReadOnlyError,
    redis_errors.MasterDownError,
    redis_errors.TryAgainError,
    # PostgreSQL through asyncpg: the connection broke, the server is starting or
    # stopping, or has no connection left
    pg.PostgresConnectionError,
    pg.OperatorInterventionError,
    pg.InsufficientResourcesError,
    # SQLAlchemy: its pool timed out, or a connection was found dead
    sa.TimeoutError,
    sa.DisconnectionError,
)


def is_dependency_failure(exc: BaseException) -> bool:
    """True when ``exc``, or an exception it was raised from, says a dependency failed."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, _FAILURES) or _closed_connection(current):
            return True
        if isinstance(current, sa.DBAPIError) and (
            current.connection_invalidated
            or isinstance(current.orig, _FAILURES)
            or _closed_connection(current.orig)
        ):
            return True
        current = current.__cause__ or current.__context__
    return False


def _closed_connection(exc: BaseException | None) -> bool:
    """asyncpg's ``InterfaceError: connection is closed`` (other interface errors are
    bugs: an operation already in progress, a bad argument)."""
    return isinstance(exc, pg.InterfaceError) and "closed" in str(exc)


def log_failure(log: logging.Logger, method: str, path: str, exc: BaseException) -> None:
    """One line for a request that failed unexpectedly: a failed dependency as a warning
    naming its kind (no stack: it is not a bug), anything else as an error with its stack."""
    if is_dependency_failure(exc):
        log.warning("dependency unavailable on %s %s (%s)", method, path, type(exc).__name__)
    else:
        log.error("unhandled error on %s %s", method, path, exc_info=exc)
