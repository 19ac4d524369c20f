"""Keyset paging for the admin and entity lists (docs/design.md "Lists").

``?limit=`` (default 50, at most 200) and ``?cursor=``; the answer is ``{items,
nextCursor}``. A cursor is the sort key of the last row of the page (base64url JSON),
so a page is one index range scan, whatever its depth, and rows inserted meanwhile are
neither skipped nor repeated. A cursor the list did not make is a 422 naming ``cursor``:
one whose values are not of its columns' types, and one holding a value no row can hold
(text with NUL, an integer past its column's type, a moment past year 9999 in UTC), which
PostgreSQL (or asyncpg, before it) would refuse.
"""

from __future__ import annotations

import binascii
import json
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Final, Generic, TypeVar

import msgspec
from sqlalchemy import BigInteger, Integer, Select, SmallInteger, bindparam, tuple_
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.elements import ColumnElement

from idp_common.errors import FieldError, InvalidArgument
from idp_common.protocol.rfc4648_base64url import base64url_decode, base64url_encode

DEFAULT_LIMIT: Final = 50
MAX_LIMIT: Final = 200

T = TypeVar("T")
Row = TypeVar("Row")


class Page(msgspec.Struct, Generic[T], frozen=True, rename="camel"):
    items: list[T]
    next_cursor: str | None


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


def encode_cursor(values: Sequence[Any]) -> str:
    raw = json.dumps([_plain(v) for v in values], separators=(",", ":")).encode()
    return base64url_encode(raw)


def bad_cursor() -> InvalidArgument:
    return InvalidArgument(
        "cursor is not valid", errors=[FieldError("cursor", "not a cursor from this list")]
    )


def fits_integer(value: int, bits: int = 64) -> bool:
    """Whether a signed integer column of ``bits`` bits can hold ``value``."""
    limit = 1 << (bits - 1)
    return -limit <= value < limit


def storable_moment(moment: datetime) -> bool:
    """Whether ``moment`` is still a moment in UTC (asyncpg converts a ``timestamptz``
    argument to UTC first: year 1 east of Greenwich or year 9999 west of it overflows)."""
    try:
        moment.astimezone(UTC)
    except (OverflowError, ValueError, OSError):
        return False
    return True


def _bits(column: ColumnElement[Any]) -> int:
    if isinstance(column.type, SmallInteger):
        return 16
    if isinstance(column.type, BigInteger):
        return 64
    return 32


def _typed(column: ColumnElement[Any], value: Any) -> Any:
    """``value`` as ``column`` holds it; ValueError or TypeError when it cannot be one."""
    python_type = column.type.python_type
    if python_type is datetime:
        moment = datetime.fromisoformat(value)
        if not storable_moment(moment):
            raise ValueError("cursor moment out of range")
        return moment
    if python_type is uuid.UUID:
        return uuid.UUID(value)
    if not isinstance(value, python_type) or isinstance(value, bool) != (python_type is bool):
        raise TypeError("cursor value of the wrong type")
    if isinstance(value, str) and "\x00" in value:
        raise ValueError("cursor text holding NUL")
    if isinstance(column.type, Integer) and not fits_integer(value, _bits(column)):
        raise ValueError("cursor integer out of its column's range")
    return value


def decode_cursor(cursor: str, columns: Sequence[ColumnElement[Any]]) -> list[Any]:
    """The sort-key values of ``cursor``, typed as ``columns``; 422 for a foreign cursor."""
    try:
        raw = base64url_decode(cursor)
        values = json.loads(raw)
        if not isinstance(values, list) or len(values) != len(columns):
            raise bad_cursor()
        return [_typed(col, v) for col, v in zip(columns, values, strict=True)]
    # RecursionError: JSON nested deeper than the decoder's limit (``[[[[...``).
    except (
        ValueError,
        TypeError,
        binascii.Error,
        UnicodeDecodeError,
        NotImplementedError,
        RecursionError,
    ) as exc:
        raise bad_cursor() from exc


async def keyset_page(
    session: AsyncSession,
    query: Select[Any],
    *,
    order_by: Sequence[ColumnElement[Any]],
    key_of: Callable[[Row], Sequence[Any]],
    limit: int,
    cursor: str | None,
) -> tuple[list[Row], str | None]:
    """One page of ``query`` in ascending ``order_by`` (which must end in a unique column).

    ``key_of`` gives a row's values of ``order_by``, for the next cursor.
    """
    if cursor:
        values = decode_cursor(cursor, order_by)
        bound = [
            bindparam(None, v, type_=col.type) for col, v in zip(order_by, values, strict=True)
        ]
        query = query.where(tuple_(*order_by) > tuple_(*bound))
    result = await session.scalars(query.order_by(*order_by).limit(limit + 1))
    rows: list[Row] = list(result.all())
    page = rows[:limit]
    more = len(rows) > limit and bool(page)
    return page, encode_cursor(key_of(page[-1])) if more else None


async def keyset_items(
    session: AsyncSession,
    query: Select[Any],
    *,
    order_by: Sequence[InstrumentedAttribute[Any]],
    read: Callable[[Row], T],
    limit: int,
    cursor: str | None,
) -> Page[T]:
    """One page of ``query``'s rows shown by ``read``, in ascending ``order_by`` (mapped
    attributes, the last one unique), as :func:`keyset_page`."""
    rows: list[Row]
    rows, next_cursor = await keyset_page(
        session,
        query,
        order_by=[attribute.expression for attribute in order_by],
        key_of=lambda row: [getattr(row, attribute.key) for attribute in order_by],
        limit=limit,
        cursor=cursor,
    )
    return Page(items=[read(row) for row in rows], next_cursor=next_cursor)
