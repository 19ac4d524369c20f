"""The activity dashboard's figures (``GET /admin/activity``, docs/activity-dashboard.md):
the audit log counted per UTC hour, by series.

Closed hours are counted once into ``activity_hours`` (:func:`roll_up`, incremental, under
an advisory lock so that parallel admin replicas never count an hour twice); the hours not
yet closed are counted live from ``audit_events`` (a range scan of the partial index
``ix_audit_events_activity``). Both count rows per ``(hour, action, variant)`` in SQL, where
``variant`` is the one detail field that tells series apart; :func:`series_of`, a pure
function, says which series a ``(action, variant)`` counts in.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Final

import msgspec
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.constants import (
    AMR_FACE,
    AMR_HARDWARE_KEY,
    AMR_OTP,
    AMR_PASSWORD,
    AMR_SOFTWARE_KEY,
    AUDIT_ACTION_BACKCHANNEL_LOGOUT,
    GRANT_TYPE_DEVICE_CODE,
    GRANT_TYPE_TOKEN_EXCHANGE,
)
from idp_common.storage.db.models import ACTIVITY_ACTIONS
from idp_common.storage.db.models._activity import ACTIVITY_INDEX_WHERE

#: The ranges the endpoint offers, in hours.
RANGES: Final = {"24h": 24, "7d": 168}
HOUR: Final = timedelta(hours=1)
#: An hour is rolled up only this long after it ended: an audit row is stamped with its
#: transaction's start (``now()``), so a transaction open across the hour's end may still
#: commit a row into it (audit rows are written in short transactions). Until then the
#: previous hour is counted live too, the costliest moment of a request: kept short.
CLOSED_AFTER: Final = timedelta(minutes=2)
#: Rolled hours older than this are deleted by the roll-up (no range reaches them).
KEEP_HOURS: Final = 168 + 24

#: The summary row the token service writes per (grant, client) and flush interval.
ACTION_TOKENS_ISSUED: Final = "tokens.issued"

# Series kinds.
SIGNINS: Final = "signins"
THROTTLED: Final = "throttled"
TOKENS: Final = "tokens"
BACKCHANNEL: Final = "backchannel"

SeriesKey = tuple[str, ...]
"""``("signins", method, outcome)``, ``("throttled",)``, ``("tokens", grant)`` or
``("backchannel", status)``."""

_AMR_METHODS: Final = {
    AMR_PASSWORD: "password",
    AMR_OTP: "totp",
    AMR_FACE: "face",
    AMR_HARDWARE_KEY: "passkey",
    AMR_SOFTWARE_KEY: "passkey",
}
_REFUSED_METHODS: Final = {"": "password", "face": "face", "passkey": "passkey"}
_FACTOR_METHODS: Final = {"code": "totp", "face": "face", "passkey": "passkey"}
_GRANT_NAMES: Final = {
    GRANT_TYPE_DEVICE_CODE: "device_code",
    GRANT_TYPE_TOKEN_EXCHANGE: "token_exchange",
}


def _signin_methods(amr_json: str) -> list[str]:
    try:
        amr = json.loads(amr_json) if amr_json else []
    except ValueError:
        amr = []
    methods: list[str] = []
    for value in amr if isinstance(amr, list) else []:
        method = _AMR_METHODS.get(value) if isinstance(value, str) else None
        if method is not None and method not in methods:
            methods.append(method)
    return methods or ["other"]


#: Refusals: the action's variant → method (missing: the variant itself, or the default
#: when empty), and the outcome.
_REFUSALS: Final[dict[str, tuple[dict[str, str], str, str]]] = {
    "login.failed": (_REFUSED_METHODS, "password", "failed"),
    "totp.failed": ({}, "totp", "failed"),
    "login.throttled": (_REFUSED_METHODS, "password", "throttled"),
    "second_factor.throttled": (_FACTOR_METHODS, "totp", "throttled"),
}


@functools.lru_cache(maxsize=4096)
def series_of(action: str, variant: str) -> tuple[SeriesKey, ...]:
    """The series one audit row of ``action`` with ``variant`` counts in (none: not one
    the dashboard shows). Cached: a range has a few dozen distinct pairs.

    A sign-in counts once per step it passed (``amr`` ``["pwd", "otp", "mfa"]``: password
    and totp succeeded), as a refusal counts at the step refused; a throttled attempt
    counts as its method's ``throttled`` outcome and in the throttled series.
    """
    if action == "login.succeeded":
        return tuple((SIGNINS, method, "succeeded") for method in _signin_methods(variant))
    refusal = _REFUSALS.get(action)
    if refusal is not None:
        methods, default, outcome = refusal
        key: SeriesKey = (SIGNINS, methods.get(variant, variant or default), outcome)
        return (key, (THROTTLED,)) if outcome == "throttled" else (key,)
    if action == AUDIT_ACTION_BACKCHANNEL_LOGOUT:
        return ((BACKCHANNEL, "delivered" if variant == "true" else "failed"),)
    if action == ACTION_TOKENS_ISSUED and variant:
        return ((TOKENS, _GRANT_NAMES.get(variant, variant)),)
    return ()


def hour_starts(now: datetime, hours: int) -> list[datetime]:
    """``hours`` UTC hour starts, oldest first, the last the hour ``now`` is in."""
    current = now.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    return [current - HOUR * (hours - 1 - i) for i in range(hours)]


def closed_until(now: datetime) -> datetime:
    """The start of the oldest hour not yet closed at ``now`` (every earlier hour ended at
    least :data:`CLOSED_AFTER` ago)."""
    return (now - CLOSED_AFTER).astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def missing_runs(
    wanted: Sequence[datetime], rolled: Iterable[datetime]
) -> list[tuple[datetime, datetime]]:
    """The hours of ``wanted`` (ascending) not in ``rolled``, as ``[start, end)`` runs of
    consecutive hours."""
    done = set(rolled)
    runs: list[tuple[datetime, datetime]] = []
    for hour in wanted:
        if hour in done:
            continue
        if runs and runs[-1][1] == hour:
            runs[-1] = (runs[-1][0], hour + HOUR)
        else:
            runs.append((hour, hour + HOUR))
    return runs


# The variant: the detail field that tells series apart, as text (``amr`` as its JSON).
_VARIANT: Final = f"""CASE action
  WHEN 'login.succeeded' THEN coalesce(detail->>'amr', '')
  WHEN 'login.failed' THEN coalesce(detail->>'method', '')
  WHEN 'login.throttled' THEN coalesce(detail->>'method', '')
  WHEN 'second_factor.throttled' THEN coalesce(detail->>'factor', '')
  WHEN '{AUDIT_ACTION_BACKCHANNEL_LOGOUT}' THEN coalesce(detail->>'delivered', '')
  WHEN '{ACTION_TOKENS_ISSUED}' THEN coalesce(detail->>'grant', '')
  ELSE '' END"""
# A token summary row stands for ``detail.count`` tokens; every other row for one event.
_WEIGHT: Final = f"""CASE WHEN action = '{ACTION_TOKENS_ISSUED}'
  THEN CASE WHEN jsonb_typeof(detail->'count') = 'number'
    THEN (detail->>'count')::numeric::bigint ELSE 0 END
  ELSE 1 END"""
# The predicate is spelled as the partial index's, so that the planner uses the index.
# (S608: every piece is a constant of this module; the values are bound parameters.)
_COUNTED: Final = f"""SELECT date_trunc('hour', occurred_at, 'UTC') AS hour, action,
  {_VARIANT} AS variant, sum({_WEIGHT})::bigint AS count
FROM audit_events
WHERE {ACTIVITY_INDEX_WHERE} AND occurred_at >= :start AND occurred_at < :end
GROUP BY 1, 2, 3"""  # noqa: S608

_ROLL: Final = text(
    f"""INSERT INTO activity_hours (hour, action, variant, count)
{_COUNTED}
UNION ALL
SELECT h, '', '', 0 FROM generate_series(:start, :end - interval '1 hour', interval '1 hour') AS h
ON CONFLICT DO NOTHING"""  # noqa: S608
)
# Grouped per (action, variant) with the hours as indexes into the range (from :origin):
# a few dozen rows of arrays instead of thousands of rows.
_LIVE: Final = text(
    f"""SELECT action, variant,
  array_agg((extract(epoch FROM hour - :origin) / 3600)::int), array_agg(count)
FROM ({_COUNTED}) AS counted GROUP BY action, variant"""  # noqa: S608
)
_ROLLED_HOURS: Final = text(
    "SELECT hour FROM activity_hours WHERE action = '' AND hour >= :start AND hour < :end"
)
# Counts and markers at once (one statement on the warm path), grouped as _LIVE.
_ROLLED: Final = text(
    """SELECT action, variant,
  array_agg((extract(epoch FROM hour - :start) / 3600)::int), array_agg(count)
FROM activity_hours WHERE hour >= :start AND hour < :end GROUP BY action, variant"""
)
_PRUNE: Final = text("DELETE FROM activity_hours WHERE hour < :before")
# One lock for every replica (hashtextextended as idp_common.storage.repos.face does).
_LOCK: Final = text("SELECT pg_advisory_xact_lock(hashtextextended('activity_hours', 0))")
_TRY_LOCK: Final = text("SELECT pg_try_advisory_xact_lock(hashtextextended('activity_hours', 0))")

Counted = tuple[str, str, list[int], list[int]]
"""``(action, variant, hours, counts)``: ``hours`` are indexes into the range's hours, each
with its count. ``action`` ``''``: the markers of rolled hours."""


def _closed_hours(now: datetime, hours: int) -> list[datetime]:
    end = closed_until(now)
    return [hour for hour in hour_starts(now, hours) if hour < end]


async def _rolled(session: AsyncSession, wanted: list[datetime]) -> list[Counted]:
    result = await session.execute(_ROLLED, {"start": wanted[0], "end": wanted[-1] + HOUR})
    return [(r[0], r[1], list(r[2]), list(r[3])) for r in result]


def _markers(groups: Iterable[Counted], wanted: list[datetime]) -> set[datetime]:
    return {wanted[i] for action, _, at, _ in groups if not action for i in at}


async def _roll(session: AsyncSession, closed: list[datetime], *, wait: bool = True) -> int:
    """Under the advisory lock, look again (a replica that waited for another's roll-up
    finds its hours done: each statement of a READ COMMITTED transaction sees what was
    committed before it) and roll what is still missing. ``wait`` False: when another
    holds the lock, do nothing (it is rolling)."""
    if not wait:
        if not (await session.execute(_TRY_LOCK)).scalar_one():
            return 0
    else:
        await session.execute(_LOCK)
    result = await session.execute(_ROLLED_HOURS, {"start": closed[0], "end": closed[-1] + HOUR})
    runs = missing_runs(closed, (row[0] for row in result))
    for start, stop in runs:
        await session.execute(_ROLL, {"start": start, "end": stop})
    await session.execute(_PRUNE, {"before": closed[-1] - HOUR * KEEP_HOURS})
    return sum((stop - start) // HOUR for start, stop in runs)


async def roll_up(session: AsyncSession, now: datetime, hours: int, *, wait: bool = True) -> int:
    """Count the closed hours of the last ``hours`` that are not rolled yet into
    ``activity_hours``; how many hours were rolled. ``session`` is in a transaction the
    caller commits. The check runs first without the lock (the usual case: nothing to do),
    then :func:`_roll` looks again under a transaction-scoped advisory lock, so that
    parallel admin replicas never count an hour twice (``wait`` False: skip when another
    is rolling, as the background roll-up does)."""
    closed = _closed_hours(now, hours)
    if not closed or not missing_runs(closed, _markers(await _rolled(session, closed), closed)):
        return 0
    return await _roll(session, closed, wait=wait)


async def activity_rows(session: AsyncSession, now: datetime, hours: int) -> list[Counted]:
    """The counts of the last ``hours`` (rolling up closed hours first where needed):
    closed hours from ``activity_hours``, the rest live from the audit log. ``session`` is
    in a transaction the caller commits. Warm: two statements."""
    wanted = hour_starts(now, hours)
    closed = _closed_hours(now, hours)
    groups = await _rolled(session, wanted)
    if closed and missing_runs(closed, _markers(groups, wanted)):
        await _roll(session, closed)
        groups = await _rolled(session, wanted)
    rolled = _markers(groups, wanted)
    live_at = 0  # the rolled hours are those before the first hour not rolled
    while live_at < len(wanted) and wanted[live_at] in rolled:
        live_at += 1
    found: list[Counted] = []
    for action, variant, at, counts in groups:
        kept = [(i, c) for i, c in zip(at, counts, strict=True) if i < live_at]
        if action and kept:
            found.append((action, variant, [i for i, _ in kept], [c for _, c in kept]))
    if live_at < len(wanted):
        params = {"origin": wanted[0], "start": wanted[live_at], "end": wanted[-1] + HOUR}
        result = await session.execute(_LIVE, params)
        found += [(r[0], r[1], list(r[2]), list(r[3])) for r in result]
    return found


class CountSeries(msgspec.Struct, frozen=True):
    counts: list[int]
    total: int


class SigninSeries(msgspec.Struct, frozen=True):
    method: str
    outcome: str
    counts: list[int]
    total: int


class TokenSeries(msgspec.Struct, frozen=True):
    grant: str
    counts: list[int]
    total: int


class BackchannelSeries(msgspec.Struct, frozen=True):
    status: str
    counts: list[int]
    total: int


class Activity(msgspec.Struct, frozen=True, rename="camel"):
    """The answer of ``GET /admin/activity`` (its contract: docs/activity-dashboard.md)."""

    range: str
    hours: list[str]
    signins: list[SigninSeries]
    throttled: CountSeries
    tokens: list[TokenSeries]
    backchannel: list[BackchannelSeries]
    active_sessions: int
    generated_at: str


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def assemble(
    range_name: str,
    hours: list[datetime],
    groups: Iterable[Counted],
    *,
    active_sessions: int,
    now: datetime,
) -> Activity:
    """The answer from counted groups (pure): each count goes to every series
    :func:`series_of` names for its group, at its hour's index (outside the range: left
    out)."""
    size = len(hours)
    series: dict[SeriesKey, list[int]] = {(THROTTLED,): [0] * size}
    for action, variant, at, counts in groups:
        for key in series_of(action, variant):
            target = series.setdefault(key, [0] * size)
            for i, count in zip(at, counts, strict=True):
                if 0 <= i < size:
                    target[i] += int(count)
    # A series without an event in the range is left out (throttled always stays).
    ordered = sorted((k, c) for k, c in series.items() if any(c))
    return Activity(
        range=range_name,
        hours=[_iso(hour) for hour in hours],
        signins=[
            SigninSeries(method=k[1], outcome=k[2], counts=c, total=sum(c))
            for k, c in ordered
            if k[0] == SIGNINS
        ],
        throttled=CountSeries(counts=series[(THROTTLED,)], total=sum(series[(THROTTLED,)])),
        tokens=[
            TokenSeries(grant=k[1], counts=c, total=sum(c)) for k, c in ordered if k[0] == TOKENS
        ],
        backchannel=[
            BackchannelSeries(status=k[1], counts=c, total=sum(c))
            for k, c in ordered
            if k[0] == BACKCHANNEL
        ],
        active_sessions=active_sessions,
        generated_at=_iso(now),
    )


__all__ = [
    "ACTIVITY_ACTIONS",
    "RANGES",
    "Activity",
    "activity_rows",
    "assemble",
    "closed_until",
    "hour_starts",
    "missing_runs",
    "roll_up",
    "series_of",
]
