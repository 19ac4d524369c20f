"""What the load saw, turned into one row per fault, and the table (pure functions).

An :class:`Outcome` is one iteration of one load kind: when it started, whether it was
answered normally, and what the client saw when it was not (``seen``: ``"503 json
retry-after"``, ``"500 json"``, ``"502 html"``, ``"no answer"``...). An answer is *bad*
when it breaks the contract whatever the fault: a 500, a 503 without ``Retry-After``, any
other 5xx but the proxy's JSON 502/504, or an error body that is not JSON. The proxy's
JSON 502 (``proxy.upstream_unavailable``) is what a request gets whose worker died under
it: its outcome is unknown, so it must not be a 503, which promises nothing happened.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

RECOVERY_BOUND_S = 15.0
NO_ANSWER = "no answer"


@dataclass(frozen=True)
class Outcome:
    kind: str
    started: float  # time.monotonic() when the iteration began
    ok: bool
    seen: str = "ok"
    bad: bool = False
    ended: float = 0.0  # time.monotonic() when it ended (0: not recorded)


def describe_answer(status: int, content_type: str, retry_after: str | None) -> tuple[str, bool]:
    """``(what the client saw, whether it breaks the contract)`` for an unexpected answer."""
    kind = content_type.split(";", 1)[0].strip().lower()
    is_json = kind.endswith("json")
    body = "json" if is_json else (kind.rsplit("/", 1)[-1] if kind else "empty")
    seen = f"{status} {body}"
    if status == 503 and retry_after:
        seen += " retry-after"
    acceptable = (status == 503 and retry_after) or status in (502, 504)
    bad = status >= 500 and not (acceptable and is_json)
    bad = bad or (status >= 400 and not is_json)
    return seen, bad


def recovery_seconds(outcomes: Sequence[Outcome], back_at: float, until: float) -> float | None:
    """Seconds from ``back_at`` (the dependency is back) until every kind answered normally
    and kept doing so: per kind, the start of its first normal iteration after its last
    failed one; 0 when a kind did not fail after ``back_at``. None when a kind was still
    failing at ``until`` (no normal iteration after its last failure)."""
    worst = 0.0
    kinds = {o.kind for o in outcomes}
    for kind in kinds:
        mine = sorted((o for o in outcomes if o.kind == kind and o.started <= until),
                      key=lambda o: o.started)  # fmt: skip
        failed = [o.started for o in mine if not o.ok]
        if not failed or failed[-1] < back_at:
            continue
        after = [o.started for o in mine if o.ok and o.started > failed[-1]]
        if not after:
            return None
        worst = max(worst, after[0] - back_at)
    return worst


@dataclass
class Row:
    fault: str
    sent: int = 0
    failed: int = 0
    bad: int = 0
    seen: dict[str, int] = field(default_factory=dict)
    by_kind: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind: (sent, failed)
    recovery: float | None = 0.0  # None: not recovered
    health_during: str = "-"
    health_after: str = "-"
    events_lost: int = 0
    wrongly_revoked: int = 0
    half_ended: int = 0
    note: str = ""
    broken: str = ""  # a fault-specific expectation that failed ("needed a restart", ...)

    @property
    def breaks(self) -> list[str]:
        """The bounds this row breaks (empty: the row passes)."""
        broken = []
        if self.bad:
            broken.append(f"{self.bad} bad answers")
        if self.recovery is None or self.recovery > RECOVERY_BOUND_S:
            broken.append("no recovery within 15 s")
        if self.broken:
            broken.append(self.broken)
        for name, value in (
            ("events lost", self.events_lost),
            ("families wrongly revoked", self.wrongly_revoked),
            ("sessions half-ended", self.half_ended),
        ):
            if value:
                broken.append(f"{value} {name}")
        return broken


def fill(row: Row, outcomes: Iterable[Outcome]) -> Row:
    """Counts of ``outcomes`` (the fault's window) into ``row``."""
    seen: Counter[str] = Counter()
    sent: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for outcome in outcomes:
        row.sent += 1
        sent[outcome.kind] += 1
        if not outcome.ok:
            row.failed += 1
            failed[outcome.kind] += 1
            seen[outcome.seen] += 1
        row.bad += outcome.bad
    row.seen = dict(seen.most_common())
    row.by_kind = {kind: (sent[kind], failed[kind]) for kind in sorted(sent)}
    return row


def _seen_text(seen: dict[str, int]) -> str:
    return ", ".join(f"{name} x{count}" for name, count in seen.items()) or "all normal"


def _kinds_text(row: Row) -> str:
    return ", ".join(f"{k} {s}/{f}" for k, (s, f) in row.by_kind.items())


def _recovery_text(row: Row) -> str:
    return "not recovered" if row.recovery is None else f"{row.recovery:.1f}"


COLUMNS = (
    "fault", "sent", "failed", "clients saw (failures)", "recovery s",
    "health during", "health after", "events lost", "wrongly revoked", "half-ended", "verdict",
)  # fmt: skip


def cells(row: Row) -> list[str]:
    verdict = "PASS" if not row.breaks else "FAIL: " + "; ".join(row.breaks)
    return [
        row.fault, str(row.sent), str(row.failed), _seen_text(row.seen), _recovery_text(row),
        row.health_during, row.health_after, str(row.events_lost), str(row.wrongly_revoked),
        str(row.half_ended), verdict,
    ]  # fmt: skip


def markdown(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells(row)) + " |")
    notes = [f"- {row.fault}: {row.note}" for row in rows if row.note]
    notes += [f"- {row.fault}: sent/failed {_kinds_text(row)}" for row in rows if row.by_kind]
    return "\n".join(lines + (["", *notes] if notes else [])) + "\n"


SHORT = ("fault", "sent", "failed", "bad", "recovery s", "lost", "revoked", "half", "verdict")


def text_table(rows: Sequence[Row]) -> str:
    """The table for the terminal: the numbers in aligned columns, then per fault what
    clients saw, the health routes and the note (those cells are long)."""
    table = [list(SHORT)]
    for row in rows:
        c = cells(row)
        table.append([c[0], c[1], c[2], str(row.bad), c[4], c[7], c[8], c[9],
                      "PASS" if not row.breaks else "FAIL"])  # fmt: skip
    widths = [max(len(line[i]) for line in table) for i in range(len(SHORT))]
    out = ["  ".join(v.ljust(w) for v, w in zip(line, widths, strict=True)) for line in table]
    out.insert(1, "  ".join("-" * w for w in widths))
    out.append("")
    for row in rows:
        out.append(row.fault)
        out.append(f"    clients saw:  {_seen_text(row.seen)}")
        out.append(f"    sent/failed:  {_kinds_text(row)}")
        out.append(f"    health:       during {row.health_during}; after {row.health_after}")
        if row.note:
            out.append(f"    note:         {row.note}")
        if row.breaks:
            out.append(f"    breaks:       {'; '.join(row.breaks)}")
    return "\n".join(out) + "\n"
