"""The three invariants read after each fault, from the stack's database and Redis.

- **Events lost**: ``session.ended`` rows of the outbox (written after ``since_id``) that
  name an application with a back-channel URI, and for whose ``sid`` no delivery attempt
  was audited (``POST backchannel_logout``, one row per attempt, whatever its outcome,
  docs/backchannel-logout.md "Audit"), after a bounded wait for the relay and dispatcher.
- **Families wrongly revoked**: refresh-token families of the load's chains with a
  revoked row. A chain presents only its newest token, once (or again after a 503, which
  the provider promises changes nothing), and its session is never ended, so nothing
  may revoke its family.
- **Sessions half-ended**: of the sessions the load tried to log out, those whose three
  traces disagree: the session in Redis, the outbox row ``session.ended:<sid>`` (its
  applications' logout event) and the session's live refresh tokens. Whole: still in
  Redis, no event, its tokens live (nothing happened), or gone, event written, no live
  token (ended). Anything else is half-ended.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from redis.asyncio import Redis

from idp_common.protocol.oidc_core_claims import digest
from tests.chaos.flows import SignedIn
from tests.chaos.load import Chain
from tests.harness import infra
from tests.harness.rows import query
from tests.harness.stack import Stack

LOST_SQL = """
SELECT count(*) AS lost FROM event_outbox o
WHERE o.id > $1 AND o.subject LIKE '%.session.ended'
  AND EXISTS (SELECT 1 FROM clients c WHERE c.backchannel_logout_uri IS NOT NULL
              AND c.client_id IN (SELECT jsonb_array_elements_text(o.payload->'clients')))
  AND NOT EXISTS (SELECT 1 FROM audit_events a WHERE a.action = 'POST backchannel_logout'
                  AND a.detail->>'sid' = o.payload->>'sid')
"""


def last_outbox_id(stack: Stack) -> int:
    rows = query(stack, "SELECT coalesce(max(id), 0) AS id FROM event_outbox")
    return int(str(rows[0]["id"]))


def events_lost(stack: Stack, since_id: int, wait: float) -> int:
    """Events after ``since_id`` without a delivery attempt, once none is left or
    ``wait`` seconds have passed (the relay and the dispatcher drain meanwhile)."""
    deadline = time.monotonic() + wait
    while True:
        lost = int(str(query(stack, LOST_SQL, since_id)[0]["lost"]))
        if lost == 0 or time.monotonic() > deadline:
            return lost
        time.sleep(0.5)


def revoked_families(stack: Stack, chains: Sequence[Chain]) -> int:
    if not chains:
        return 0
    rows = query(
        stack,
        "SELECT count(DISTINCT family_id) AS n FROM refresh_tokens WHERE revoked_at IS NOT NULL"
        " AND family_id IN (SELECT family_id FROM refresh_tokens WHERE token_digest = ANY($1))",
        [digest(chain.first) for chain in chains],
    )
    return int(str(rows[0]["n"]))


async def _alive(stack: Stack, sids: list[str]) -> set[str]:
    redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
    prefix = stack.env["SVC_REDIS_PREFIX"]
    try:
        return {sid for sid in sids if await redis.exists(f"{prefix}session:{sid}")}
    finally:
        await redis.aclose()


def half_ended(stack: Stack, sessions: Sequence[SignedIn]) -> list[str]:
    """The sids (of sessions the load tried to log out) whose traces disagree."""
    tried = [s.sid for s in sessions if s.logout_tries]
    if not tried:
        return []
    alive = infra.run(_alive(stack, tried))
    rows = query(
        stack,
        "SELECT substr(dedupe_key, 15) AS sid FROM event_outbox WHERE dedupe_key = ANY($1)",
        [f"session.ended:{sid}" for sid in tried],
    )
    with_event = {str(row["sid"]) for row in rows}
    rows = query(
        stack,
        "SELECT DISTINCT session_sid AS sid FROM refresh_tokens"
        " WHERE session_sid = ANY($1) AND revoked_at IS NULL AND spent_at IS NULL",
        tried,
    )
    live_tokens = {str(row["sid"]) for row in rows}
    broken = []
    for sid in tried:
        untouched = sid in alive and sid not in with_event
        ended = sid not in alive and sid in with_event and sid not in live_tokens
        if not (untouched or ended):
            broken.append(sid)
    return broken
