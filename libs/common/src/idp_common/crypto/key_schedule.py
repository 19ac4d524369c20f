"""When each signing key signs: the rules of zero-downtime key rotation.

A key file's name is its activation time in UTC, to the second: ``20261126T100000Z.pem``
(a second key of the same second: ``20261126T100000Z_001.pem``). Keys are ordered by file
name, which for such names is the order of their activation times (contract §5: rotation
is ordered by file name). At a moment ``now``:

- **current**: the last key whose activation time has passed; it signs every new token.
  When no key's time has passed (a fresh install whose only key lies ahead, a clock set
  back), the first key is current: a service never refuses to start for that.
- **next**: the keys after the current one, whose time is still ahead. They are
  published in the JWKS so that resource servers know them before they sign.
- **retired**: the keys before the current one. They are published until every token
  they signed has expired, then may be pruned.

A key whose name is not such a time (a file named by hand, ``a.pem``) keeps the rule of
contract §5: ordered by name, active since always. A retired key whose successor is named
by hand has no known retirement time and is never pruned by the tool.

A retired key may be pruned from ``successor's activation + retention`` on, where
``retention`` (:class:`RotationTimings`) is the reload interval (a process that has not
yet re-read the directory keeps signing with the old key that long, when the successor was
written to sign at once) + the longest lifetime of any token the provider signs + the JWKS
cache lifetime (contract §5: the old key is kept at least one cache lifetime longer).

Pure: names, times and durations in, answers out. Times are aware ``datetime`` values,
or POSIX seconds on the signing path.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import PurePath

__all__ = [
    "KEY_NAME_TIME_FORMAT",
    "KeyState",
    "KeyStatus",
    "RotationTimings",
    "activation_of",
    "key_file_stem",
    "key_statuses",
    "prunable",
    "rotation_activation",
    "signer_index",
    "signer_window",
]

#: ``strftime`` format of a key file's stem: UTC, seconds, no separators.
KEY_NAME_TIME_FORMAT = "%Y%m%dT%H%M%SZ"
_TIMED_NAME = re.compile(r"(\d{8}T\d{6}Z)(?:_\d+)?\.pem")


class KeyState(StrEnum):
    NEXT = "next"
    CURRENT = "current"
    RETIRED = "retired"


def activation_of(file_name: str) -> datetime | None:
    """The activation time a key file's name states, or None when it states none."""
    match = _TIMED_NAME.fullmatch(PurePath(file_name).name)
    if match is None:
        return None
    try:
        return datetime.strptime(match[1], KEY_NAME_TIME_FORMAT).replace(tzinfo=UTC)
    except ValueError:  # digits that are no date (month 13)
        return None


def key_file_stem(activation: datetime) -> str:
    """The file stem naming ``activation`` (UTC, to the second, rounded down)."""
    if activation.tzinfo is None or activation.utcoffset() is None:
        raise ValueError("now must be timezone-aware")
    return activation.astimezone(UTC).strftime(KEY_NAME_TIME_FORMAT)


def signer_index(activations: Sequence[float | None], now: float) -> int:
    """Which key signs at ``now``: ``activations`` are the keys' activation times (POSIX
    seconds; None: active since always) in file-name order."""
    if not activations:
        raise ValueError("no key")
    for index in range(len(activations) - 1, -1, -1):
        moment = activations[index]
        if moment is None or moment <= now:
            return index
    return 0


def signer_window(activations: Sequence[float | None], now: float) -> tuple[int, float, float]:
    """The signer at ``now`` and the interval ``[since, until)`` around ``now`` in which no
    activation time falls, so the signer stays the same: a caller may keep the answer for
    any moment in it (the signing path asks once per interval, not once per token)."""
    timed = [moment for moment in activations if moment is not None]
    since = max((moment for moment in timed if moment <= now), default=-math.inf)
    until = min((moment for moment in timed if moment > now), default=math.inf)
    return signer_index(activations, now), since, until


@dataclass(frozen=True)
class RotationTimings:
    """The durations rotation depends on, all in seconds.

    ``longest_token_seconds``: the longest time a token the provider signed is accepted
    (:func:`idp_common.operations.key_retention.longest_token_lifetime`).
    """

    jwks_cache_seconds: int
    reload_seconds: int
    longest_token_seconds: int

    @property
    def lead(self) -> timedelta:
        """How long before it signs a new key must be in the directory: every process has
        re-read it (one reload interval), then every JWKS cached before that has expired."""
        return timedelta(seconds=self.jwks_cache_seconds + self.reload_seconds)

    @property
    def retention(self) -> timedelta:
        """How long after its successor's activation a retired key stays published."""
        seconds = self.reload_seconds + self.longest_token_seconds + self.jwks_cache_seconds
        return timedelta(seconds=seconds)


def rotation_activation(
    now: datetime, timings: RotationTimings, lead: timedelta | None = None
) -> datetime:
    """When a key written at ``now`` may start signing: ``now + lead`` (default and
    minimum: ``timings.lead``), rounded up to the whole second (names hold seconds;
    rounding down would start it early). ValueError when ``lead`` is shorter."""
    wanted = timings.lead if lead is None else lead
    if wanted < timings.lead:
        raise ValueError(
            f"the lead must be at least {int(timings.lead.total_seconds())} s "
            "(JWKS cache lifetime + reload interval)"
        )
    moment = now + wanted
    rounded = moment.replace(microsecond=0)
    return rounded if rounded == moment else rounded + timedelta(seconds=1)


@dataclass(frozen=True)
class KeyStatus:
    """One key file at a moment: its state, and for a retired key since when and from
    when it may be pruned (None: its successor is named by hand; prune it by hand)."""

    name: str
    activation: datetime | None
    state: KeyState
    retired_since: datetime | None = None
    prunable_from: datetime | None = None


def key_statuses(names: Sequence[str], now: datetime, timings: RotationTimings) -> list[KeyStatus]:
    """The state of every key at ``now``; ``names`` in file-name order (oldest first)."""
    activations = [activation_of(name) for name in names]
    if not names:
        return []
    current = signer_index([_seconds(moment) for moment in activations], now.timestamp())
    statuses: list[KeyStatus] = []
    for index, (name, activation) in enumerate(zip(names, activations, strict=True)):
        if index == current:
            statuses.append(KeyStatus(name, activation, KeyState.CURRENT))
        elif index > current:
            statuses.append(KeyStatus(name, activation, KeyState.NEXT))
        else:
            since = activations[index + 1]
            prunable_from = None if since is None else since + timings.retention
            statuses.append(KeyStatus(name, activation, KeyState.RETIRED, since, prunable_from))
    return statuses


def prunable(statuses: Sequence[KeyStatus], now: datetime) -> list[KeyStatus]:
    """The retired keys whose horizon has passed at ``now``."""
    return [
        status
        for status in statuses
        if status.state is KeyState.RETIRED
        and status.prunable_from is not None
        and status.prunable_from <= now
    ]


def _seconds(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()
