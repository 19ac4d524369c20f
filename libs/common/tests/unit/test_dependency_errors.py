"""Which exceptions are a failed dependency (503) and which are bugs (500)."""

from __future__ import annotations

import asyncpg.exceptions as pg
import pytest
import redis.exceptions as redis_errors
import sqlalchemy.exc as sa

from idp_common.web.dependency_errors import is_dependency_failure


def _wrapped(orig: Exception) -> sa.DBAPIError:
    return sa.DBAPIError("SELECT 1", None, orig)


@pytest.mark.parametrize(
    "exc",
    [
        ConnectionRefusedError(111, "refused"),
        TimeoutError(),
        redis_errors.ConnectionError("down"),
        redis_errors.TimeoutError("slow"),
        redis_errors.BusyLoadingError("loading"),
        redis_errors.OutOfMemoryError("OOM command not allowed"),
        redis_errors.ReadOnlyError("replica"),
        pg.CannotConnectNowError("starting up"),
        pg.TooManyConnectionsError("too many"),
        pg.ConnectionDoesNotExistError("closed mid-operation"),
        pg.InterfaceError("connection is closed"),
        sa.TimeoutError("QueuePool limit"),
        _wrapped(pg.AdminShutdownError("terminating")),
    ],
    ids=lambda exc: type(exc).__name__,
)
def test_a_failed_dependency_is_recognised(exc: Exception) -> None:
    assert is_dependency_failure(exc)


def test_a_cause_counts_too() -> None:
    try:
        try:
            raise redis_errors.ConnectionError("down")
        except redis_errors.ConnectionError as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        assert is_dependency_failure(outer)


@pytest.mark.parametrize(
    "exc",
    [
        ValueError("bug"),
        KeyError("bug"),
        pg.InterfaceError("cannot perform operation: another operation is in progress"),
        redis_errors.ResponseError("WRONGTYPE"),
        _wrapped(pg.UniqueViolationError("duplicate key")),
    ],
    ids=lambda exc: type(exc).__name__,
)
def test_a_bug_is_not(exc: Exception) -> None:
    assert not is_dependency_failure(exc)
