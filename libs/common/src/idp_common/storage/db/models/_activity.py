"""``activity_hours``: the audit log counted per closed hour for the activity dashboard
(migration 0017, docs/activity-dashboard.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Final

from sqlalchemy import BigInteger, Index, text
from sqlalchemy.orm import Mapped, mapped_column

from ._audit import AuditEvent
from ._base import Base

#: The audit actions the dashboard counts (``idp_common.storage.repos.activity`` maps them
#: to series). The partial index below covers exactly these, in this order: the migration
#: spells the same list.
ACTIVITY_ACTIONS: Final = (
    "login.succeeded",
    "login.failed",
    "login.throttled",
    "totp.failed",
    "second_factor.throttled",
    "POST backchannel_logout",
    "tokens.issued",
)
#: The predicate of ``ix_audit_events_activity``, as the migration writes it.
ACTIVITY_INDEX_WHERE: Final = "action IN ({})".format(
    ", ".join(f"'{action}'" for action in ACTIVITY_ACTIONS)
)


class ActivityHour(Base):
    """How many audit rows of one ``(action, variant)`` one closed UTC hour holds.

    ``variant`` is the one detail field the dashboard tells apart (``amr`` of a sign-in,
    ``method`` of a refusal, ``factor``, ``delivered``, ``grant``); ``count`` sums
    ``detail.count`` for ``tokens.issued`` rows, else counts rows. Every rolled hour has a
    marker row ``action = ''`` (count 0), so an hour without any event is not rolled again.
    """

    __tablename__ = "activity_hours"

    hour: Mapped[datetime] = mapped_column(primary_key=True)
    action: Mapped[str] = mapped_column(primary_key=True)
    variant: Mapped[str] = mapped_column(primary_key=True)
    count: Mapped[int] = mapped_column(BigInteger)


# The live (not yet rolled) hours and the roll-up read the activity rows of a time range:
# a range scan of this partial index, which leaves the other actions out.
Index(
    "ix_audit_events_activity",
    AuditEvent.occurred_at,
    postgresql_where=text(ACTIVITY_INDEX_WHERE),
)
