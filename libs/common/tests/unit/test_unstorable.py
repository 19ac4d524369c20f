"""Which driver errors are the database refusing a value, and where a request holds one."""

from __future__ import annotations

from typing import Any

import asyncpg.exceptions as pg
import pytest
import sqlalchemy.exc as sa

from idp_common.web.unstorable import Refusal, refusal_of, unstorable_members

TEXT = Refusal("text")
MOMENT = Refusal("moment")


def _encoding(reason: str) -> sa.DBAPIError:
    """What SQLAlchemy raises when asyncpg cannot encode an argument (its cause chain)."""
    driver = pg.DataError(f"invalid input for query argument $1: x ({reason})")
    driver.__cause__ = OverflowError(reason)
    return sa.DBAPIError("SELECT 1", None, driver)


@pytest.mark.parametrize(
    ("exc", "refusal"),
    [
        (sa.DBAPIError("SELECT 1", None, pg.CharacterNotInRepertoireError("0x00")), TEXT),
        (sa.DBAPIError("SELECT 1", None, pg.UntranslatableCharacterError("\\u0000")), TEXT),
        (_encoding("value out of int32 range"), Refusal("integer", 32)),
        (_encoding("value out of int64 range"), Refusal("integer", 64)),
        (_encoding("date value out of range"), MOMENT),
    ],
    ids=["nul-text", "nul-jsonb", "int32", "int64", "moment"],
)
def test_a_refused_value_is_recognised(exc: Exception, refusal: Refusal) -> None:
    assert refusal_of(exc) == refusal


@pytest.mark.parametrize(
    "exc",
    [
        RuntimeError("a bug"),
        sa.DBAPIError("SELECT 1", None, pg.UndefinedColumnError("no such column")),
        sa.DBAPIError("SELECT 1", None, pg.DataError("expected str, got int")),
        pg.UniqueViolationError("taken"),
    ],
    ids=lambda exc: type(exc).__name__,
)
def test_other_failures_are_not_a_refused_value(exc: Exception) -> None:
    assert refusal_of(exc) is None


@pytest.mark.parametrize(
    ("body", "refusal", "where"),
    [
        ({"name": "a\x00b", "ok": "x"}, TEXT, ["name"]),
        ({"validators": {"pattern": "\x00"}}, TEXT, ["validators.pattern"]),
        ({"scopes": ["a", "b\x00"]}, TEXT, ["scopes[1]"]),
        ({"k\x00": 1}, TEXT, ["k\ufffd"]),
        ({"displayOrder": 2**31, "n": 2**31 - 1}, Refusal("integer", 32), ["displayOrder"]),
        ({"n": 2**31, "flag": True}, Refusal("integer", 64), []),
        ({"since": "9999-12-31T23:59:59-14:00"}, MOMENT, ["since"]),
        ({"since": "2024-01-01T00:00:00Z"}, MOMENT, []),
        ("\x00", TEXT, ["body"]),
    ],
)
def test_the_members_holding_it_are_named(body: Any, refusal: Refusal, where: list[str]) -> None:
    assert unstorable_members(body, refusal) == where
