"""A value the database cannot store, found in the request that sent it.

PostgreSQL ``text`` and ``jsonb`` cannot hold U+0000, and asyncpg cannot send an integer
outside its column's type (``smallint``, ``integer``, ``bigint``) or a moment whose UTC
time falls outside years 1-9999. A request carrying one of these in a JSON body member, a
query parameter or a path parameter used to reach a query and answer 500. The one error
mapping of each app (:mod:`idp_common.web.problems`, the SCIM mapping) asks
:func:`unstorable_fields` instead: when the driver refused a value and the request holds
such a value, the answer is 422 naming every place that holds one, and nothing is
written (the refused statement rolls its transaction back). A refusal with no such value
in the request is a bug of ours and stays a 500.

This is the one place for the whole class of input, whatever the route: a route need not
check each member it stores. Values the request does not hold as they are (a list's
cursor, a SCIM filter's literal) are checked where they are decoded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, Literal

import asyncpg.exceptions as pg
import msgspec
import sqlalchemy.exc as sa
from litestar import Request
from litestar.utils.empty import value_or_default
from litestar.utils.scope.state import ScopeState

from idp_common.errors import FieldError

__all__ = ["NUL", "Refusal", "refusal_of", "unstorable_fields", "unstorable_members"]

NUL: Final = "\x00"
_RANGE: Final = re.compile(r"out of int(16|32|64) range")
_INTEGER: Final = re.compile(r"[+-]?\d{1,4300}")

Kind = Literal["text", "integer", "moment"]


@dataclass(frozen=True)
class Refusal:
    """What the database refused: text holding NUL, an integer outside ``bits`` bits, or a
    moment outside the years it can hold."""

    kind: Kind
    bits: int = 64

    def holds(self, value: Any) -> bool:
        """Whether ``value`` (a decoded JSON value or a parameter's text) is of this kind."""
        if self.kind == "text":
            return isinstance(value, str) and NUL in value
        if self.kind == "integer":
            number = _integer(value)
            limit = 1 << (self.bits - 1)
            return number is not None and not -limit <= number < limit
        return isinstance(value, str) and _moment_overflows(value)

    @property
    def message(self) -> str:
        if self.kind == "text":
            return "must not contain the NUL character (U+0000)"
        if self.kind == "integer":
            limit = 1 << (self.bits - 1)
            return f"must be an integer from {-limit} to {limit - 1}"
        return "must be a moment between the years 1 and 9999 in UTC"


def _integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value)
    return None


def _moment_overflows(text: str) -> bool:
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return False
    try:
        moment.astimezone(UTC)  # what asyncpg does before it sends a timestamptz
    except (OverflowError, ValueError, OSError):
        return True
    return False


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        if isinstance(current, sa.DBAPIError) and current.orig is not None:
            yield current.orig
        current = current.__cause__ or current.__context__


def refusal_of(exc: BaseException) -> Refusal | None:
    """What the database refused when ``exc`` (or one of its causes) says it refused a
    value; None for any other failure."""
    for cause in _causes(exc):
        # 22021: text holding NUL; 22P05: a jsonb string holding \u0000
        if isinstance(cause, pg.CharacterNotInRepertoireError | pg.UntranslatableCharacterError):
            return Refusal("text")
        if isinstance(cause, pg.DataError) and isinstance(cause.__cause__, OverflowError):
            # asyncpg could not encode an argument: "value out of int32 range",
            # "date value out of range"
            reason = str(cause.__cause__)
            if "date" in reason:
                return Refusal("moment")
            found = _RANGE.search(reason)
            return Refusal("integer", int(found[1]) if found else 64)
    return None


def _shown(key: str) -> str:
    return key.replace(NUL, "\ufffd")


def unstorable_members(value: Any, refusal: Refusal, path: str = "") -> list[str]:
    """Where ``value`` (decoded JSON) holds what ``refusal`` names: ``name``,
    ``members[0].value``; a member whose name holds NUL is named too."""
    if isinstance(value, dict):
        found = []
        for key, member in value.items():
            inner = f"{path}.{_shown(str(key))}" if path else _shown(str(key))
            if refusal.holds(key):
                found.append(inner)
            found.extend(unstorable_members(member, refusal, inner))
        return found
    if isinstance(value, list):
        return [
            hit
            for index, item in enumerate(value)
            for hit in unstorable_members(item, refusal, f"{path}[{index}]")
        ]
    return [path or "body"] if refusal.holds(value) else []


def _body_of(request: Request[Any, Any, Any]) -> Any:
    """The request's JSON body when it was read (decoded or not), else None."""
    state = ScopeState.from_scope(request.scope)
    decoded = value_or_default(state.json, None)
    if decoded is not None:
        return decoded
    raw = value_or_default(state.body, None)
    if not raw:
        return None
    try:
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):
        return None


def _parameters(request: Request[Any, Any, Any]) -> Iterator[tuple[str, Any]]:
    path_params: Mapping[str, Any] = request.scope.get("path_params") or {}
    yield from path_params.items()
    yield from request.query_params.multi_items()


def unstorable_fields(request: Request[Any, Any, Any], exc: BaseException) -> list[FieldError]:
    """The places of ``request`` holding a value the database refused (see the module),
    or ``[]`` when ``exc`` is no such refusal or the request holds no such value."""
    refusal = refusal_of(exc)
    if refusal is None:
        return []
    names = [_shown(name) for name, value in _parameters(request) if refusal.holds(value)]
    names += unstorable_members(_body_of(request), refusal)
    return [FieldError(name, refusal.message) for name in dict.fromkeys(names)]
