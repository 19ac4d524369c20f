"""One bounded batch of the cleanup job's delete (contract §3, last row):
the statement each token repository runs on its own table.

A batch deletes at most ``limit`` rows whose ``expires_at`` is before the cutoff, oldest
first, in one statement, so in one short transaction when the connection is in autocommit
(the cleanup job's). The rows are chosen through the table's ``expires_at`` index and
locked with ``FOR UPDATE SKIP LOCKED``: a row a token request holds (a revocation of its
family) is left for the next run instead of waiting for it, and two deleters never take
the same row. They are then deleted by their ``ctid``, which cannot change while this
statement holds the row lock, so no primary-key lookup is paid per row.

``after`` is the latest ``expires_at`` the previous batch deleted: the next batch starts
there (keyset), so it does not walk again over the index entries of rows already deleted
and not yet vacuumed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final, NamedTuple

from idp_common.storage.db.engine import Db, statements

#: Before every ``expires_at``: the ``after`` of a run's first batch.
EARLIEST: Final = datetime.min.replace(tzinfo=UTC)
#: The tables the cleanup job deletes from; each has ``expires_at`` (timestamptz).
EXPIRING_TABLES: Final = ("authorization_codes", "refresh_tokens", "password_reset_tokens")


class Swept(NamedTuple):
    """What one batch deleted: how many rows, and the latest ``expires_at`` among them."""

    deleted: int
    last: datetime | None


def _batch_sql(table: str) -> str:
    return f"""
WITH gone AS (
    DELETE FROM {table} WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM {table} WHERE expires_at < $1 AND expires_at >= $2
        ORDER BY expires_at LIMIT $3 FOR UPDATE SKIP LOCKED))
    RETURNING expires_at
)
SELECT count(*), max(expires_at) FROM gone
"""  # noqa: S608 - table from EXPIRING_TABLES, values are parameters


_SQL: Final = {table: _batch_sql(table) for table in EXPIRING_TABLES}


async def delete_expired_batch(
    db: Db, table: str, cutoff: datetime, *, limit: int, after: datetime = EARLIEST
) -> Swept:
    """Delete at most ``limit`` rows of ``table`` that expired before ``cutoff`` and not
    before ``after``, oldest first, skipping locked rows; see the module."""
    row = await statements(db).fetchrow(_SQL[table], cutoff, after, limit)
    return Swept(int(row[0]), row[1])
