"""Webhook endpoints and their deliveries: the one writer of ``webhook_endpoints`` and
``webhook_deliveries`` (docs/webhooks.md).

Every function runs in the caller's transaction. Contract:

- An endpoint's signing secret is stored sealed (:mod:`idp_common.crypto.secretbox`,
  context :func:`webhook_secret_context` of the row id) and never read back through the
  administration functions; only :func:`claim_due` hands the sealed value to the dispatcher.
- :func:`queue_event` inserts one ``pending`` delivery per enabled endpoint subscribed to
  the event's type, ``ON CONFLICT (endpoint_id, event_id) DO NOTHING``: an event handled
  twice (JetStream redelivery, two dispatchers) is queued once per endpoint.
- :func:`claim_due` locks due rows ``FOR UPDATE SKIP LOCKED`` and leases them
  (``lease_until``) in one statement: once the caller commits, no other dispatcher takes
  them until the lease expires, so a dispatcher killed mid-delivery leaves the row to be
  claimed again later. A row of a disabled endpoint is not due (delivery pauses).
- :func:`record_outcome` applies only while the caller's lease is the row's (the lease time
  is its token): an outcome that arrives after the row was claimed again, resent or deleted
  changes nothing.
- :func:`resend_delivery` queues a delivery again (status ``pending``, due now, attempts
  and the retry window restarted), refused (409) while a dispatcher holds its lease.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Final, Literal

import msgspec
from sqlalchemy import delete, func, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.crypto.secretbox import seal, webhook_secret_context
from idp_common.errors import Conflict
from idp_common.storage.db.engine import Db, statements
from idp_common.storage.db.models import WebhookDelivery, WebhookEndpoint
from idp_common.storage.repos.catalogue import not_found, uuid_or_none
from idp_common.storage.repos.paging import Page, decode_cursor, encode_cursor, keyset_items

DeliveryStatus = Literal["pending", "succeeded", "failed"]
DELIVERY_STATUSES: Final = ("pending", "succeeded", "failed")
#: ``last_error`` is a short reason ("timeout", "connect", "http_500"), never a body.
MAX_ERROR_LENGTH: Final = 200
_ENDPOINT = "webhook"
_DELIVERY = "webhook_delivery"


class EndpointRead(msgspec.Struct, frozen=True, rename="camel"):
    id: uuid.UUID
    url: str
    description: str
    event_types: list[str]
    enabled: bool
    created_at: datetime
    updated_at: datetime


class DeliveryRead(msgspec.Struct, frozen=True, rename="camel"):
    id: uuid.UUID
    event_id: str
    event_type: str
    status: str
    attempts: int
    last_status_code: int | None
    last_error: str | None
    next_attempt_at: datetime | None
    created_at: datetime
    delivered_at: datetime | None


class DueDelivery(msgspec.Struct, frozen=True):
    """A leased delivery, with what its attempt needs."""

    id: uuid.UUID
    endpoint_id: uuid.UUID
    event_id: str
    event_type: str
    body: bytes  # the payload's JSON, exactly as it will be signed and sent
    attempts: int  # before this one
    queued_at: datetime
    lease_until: datetime  # the lease's token (record_outcome)
    url: str
    secret_sealed: bytes


def _endpoint(row: WebhookEndpoint) -> EndpointRead:
    return EndpointRead(
        id=row.id,
        url=row.url,
        description=row.description,
        event_types=list(row.event_types),
        enabled=row.enabled,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _delivery(row: WebhookDelivery) -> DeliveryRead:
    return DeliveryRead(
        id=row.id,
        event_id=row.event_id,
        event_type=row.event_type,
        status=row.status,
        attempts=row.attempts,
        last_status_code=row.last_status_code,
        last_error=row.last_error,
        next_attempt_at=row.next_attempt_at if row.status == "pending" else None,
        created_at=row.created_at,
        delivered_at=row.delivered_at,
    )


def _seal(endpoint_id: uuid.UUID, secret: str, secrets_key: bytes) -> bytes:
    return seal(
        secret.encode("ascii"), key=secrets_key, context=webhook_secret_context(endpoint_id)
    )


async def _row(session: AsyncSession, endpoint_id: str, *, lock: bool = False) -> WebhookEndpoint:
    ident = uuid_or_none(endpoint_id)
    query = select(WebhookEndpoint).where(WebhookEndpoint.id == ident)
    if lock:
        query = query.with_for_update()
    row = None if ident is None else await session.scalar(query)
    if row is None:
        raise not_found(_ENDPOINT)
    return row


# --- endpoints (the administration API) ---------------------------------------------------
async def create_endpoint(
    session: AsyncSession,
    *,
    url: str,
    description: str,
    event_types: Sequence[str],
    enabled: bool,
    secret: str,
    secrets_key: bytes,
) -> EndpointRead:
    """Register an endpoint with ``secret`` (sealed here)."""
    ident = uuid.uuid4()
    row = WebhookEndpoint(
        id=ident,
        url=url,
        description=description,
        event_types=list(dict.fromkeys(event_types)),
        enabled=enabled,
        secret_sealed=_seal(ident, secret, secrets_key),
    )
    session.add(row)
    await session.flush()
    return _endpoint(row)


async def get_endpoint(session: AsyncSession, endpoint_id: str) -> EndpointRead:
    return _endpoint(await _row(session, endpoint_id))


async def list_endpoints(
    session: AsyncSession, *, limit: int, cursor: str | None
) -> Page[EndpointRead]:
    """Endpoints, oldest first (keyset on ``created_at, id``)."""
    return await keyset_items(
        session,
        select(WebhookEndpoint),
        order_by=[WebhookEndpoint.created_at, WebhookEndpoint.id],
        read=_endpoint,
        limit=limit,
        cursor=cursor,
    )


async def update_endpoint(
    session: AsyncSession,
    endpoint_id: str,
    *,
    url: str | None = None,
    description: str | None = None,
    event_types: Sequence[str] | None = None,
    enabled: bool | None = None,
) -> tuple[EndpointRead, list[str]]:
    """Change the given fields; returns the endpoint and the (wire) names that changed."""
    row = await _row(session, endpoint_id, lock=True)
    changed: list[str] = []
    if url is not None and url != row.url:
        row.url = url
        changed.append("url")
    if description is not None and description != row.description:
        row.description = description
        changed.append("description")
    if event_types is not None:
        types = list(dict.fromkeys(event_types))
        if types != list(row.event_types):
            row.event_types = types
            changed.append("eventTypes")
    if enabled is not None and enabled != row.enabled:
        row.enabled = enabled
        changed.append("enabled")
    if changed:
        await session.flush()
    return _endpoint(row), changed


async def rotate_secret(
    session: AsyncSession, endpoint_id: str, *, secret: str, secrets_key: bytes
) -> EndpointRead:
    """Replace the signing secret: attempts from the next claim on are signed with it."""
    row = await _row(session, endpoint_id, lock=True)
    row.secret_sealed = _seal(row.id, secret, secrets_key)
    await session.flush()
    return _endpoint(row)


async def delete_endpoint(session: AsyncSession, endpoint_id: str) -> EndpointRead:
    """Delete the endpoint and its deliveries (FK cascade), in one statement."""
    row = await _row(session, endpoint_id)
    shown = _endpoint(row)
    await session.execute(delete(WebhookEndpoint).where(WebhookEndpoint.id == row.id))
    return shown


# --- the delivery log (the administration API) --------------------------------------------
async def list_deliveries(
    session: AsyncSession,
    endpoint_id: str,
    *,
    status: str | None,
    limit: int,
    cursor: str | None,
) -> Page[DeliveryRead]:
    """An endpoint's deliveries, newest first (keyset on ``created_at, id``); 404 for an
    unknown endpoint."""
    endpoint = await _row(session, endpoint_id)
    order = [WebhookDelivery.created_at, WebhookDelivery.id]
    query = select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint.id)
    if status is not None:
        query = query.where(WebhookDelivery.status == status)
    if cursor:
        at, ident = decode_cursor(cursor, [c.expression for c in order])
        query = query.where(tuple_(*order) < tuple_(at, ident))
    query = query.order_by(*(c.desc() for c in order)).limit(limit + 1)
    rows = list((await session.scalars(query)).all())
    page = rows[:limit]
    more = len(rows) > limit and bool(page)
    next_cursor = encode_cursor([page[-1].created_at, page[-1].id]) if more else None
    return Page(items=[_delivery(r) for r in page], next_cursor=next_cursor)


async def resend_delivery(
    session: AsyncSession, endpoint_id: str, delivery_id: str
) -> DeliveryRead:
    """Queue a delivery again (see the module text); 404 unknown, 409 while in flight."""
    endpoint = await _row(session, endpoint_id)
    ident = uuid_or_none(delivery_id)
    row = None
    if ident is not None:
        row = await session.scalar(
            select(WebhookDelivery)
            .where(WebhookDelivery.id == ident, WebhookDelivery.endpoint_id == endpoint.id)
            .with_for_update()
        )
    if row is None:
        raise not_found(_DELIVERY)
    now = await session.scalar(select(func.now()))
    if now is None:  # pragma: no cover - now() always answers
        raise RuntimeError("no database time")
    if row.lease_until is not None and row.lease_until > now:
        raise Conflict(
            "this delivery is being attempted now; send it again once the attempt ends",
            code="admin.webhook_delivery_in_flight",
        )
    row.status = "pending"
    row.attempts = 0
    row.next_attempt_at = now
    row.queued_at = now
    row.lease_until = None
    row.delivered_at = None
    await session.flush()
    return _delivery(row)


# --- the dispatcher -------------------------------------------------------------------------
async def queue_event(db: Db, *, event_id: str, event_type: str, payload: bytes) -> int:
    """One pending delivery per enabled endpoint subscribed to ``event_type`` (see the
    module text); the number of rows inserted now."""
    result = await statements(db).execute(
        "INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, payload)"
        " SELECT id, $1, $2, CAST($3::text AS jsonb) FROM webhook_endpoints"
        " WHERE enabled AND $2 = ANY(event_types)"
        " ON CONFLICT (endpoint_id, event_id) DO NOTHING",
        event_id,
        event_type,
        payload.decode("utf-8"),
    )
    return int(result.rsplit(" ", 1)[-1] or 0)


async def claim_due(db: Db, *, limit: int, lease_seconds: float) -> list[DueDelivery]:
    """Lease up to ``limit`` due deliveries, the longest-waiting first (see the module)."""
    rows = await statements(db).fetch(
        "WITH due AS ("
        " SELECT d.id FROM webhook_deliveries d"
        " JOIN webhook_endpoints e ON e.id = d.endpoint_id"
        " WHERE d.status = 'pending' AND d.next_attempt_at <= now()"
        " AND (d.lease_until IS NULL OR d.lease_until <= now()) AND e.enabled"
        " ORDER BY d.next_attempt_at LIMIT $1 FOR UPDATE OF d SKIP LOCKED)"
        " UPDATE webhook_deliveries d"
        " SET lease_until = now() + make_interval(secs => $2)"
        " FROM due, webhook_endpoints e WHERE d.id = due.id AND e.id = d.endpoint_id"
        " RETURNING d.id, d.endpoint_id, d.event_id, d.event_type, d.payload::text,"
        " d.attempts, d.queued_at, d.lease_until, e.url, e.secret_sealed",
        limit,
        float(lease_seconds),
    )
    return [
        DueDelivery(
            id=r[0],
            endpoint_id=r[1],
            event_id=r[2],
            event_type=r[3],
            body=msgspec.json.encode(msgspec.json.decode(r[4])),
            attempts=int(r[5]),
            queued_at=r[6],
            lease_until=r[7],
            url=r[8],
            secret_sealed=bytes(r[9]),
        )
        for r in rows
    ]


async def record_outcome(
    db: Db,
    delivery: DueDelivery,
    *,
    succeeded: bool,
    status_code: int | None,
    error: str | None,
    retry_in: float,
    retry_for: float,
) -> str | None:
    """Record one attempt of a leased delivery: ``succeeded``, or failed and due again in
    ``retry_in`` seconds unless that falls past ``queued_at + retry_for`` (then
    ``failed``). The row's status after it; None when the lease was no longer ours."""
    row = await statements(db).fetchrow(
        "UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = NULL,"
        " last_status_code = $3, last_error = $4,"
        " status = CASE WHEN $5 THEN 'succeeded'"
        "  WHEN now() + make_interval(secs => $6) > queued_at + make_interval(secs => $7)"
        "  THEN 'failed' ELSE 'pending' END,"
        " next_attempt_at = CASE WHEN $5 THEN NULL"
        "  WHEN now() + make_interval(secs => $6) > queued_at + make_interval(secs => $7)"
        "  THEN NULL ELSE now() + make_interval(secs => $6) END,"
        " delivered_at = CASE WHEN $5 THEN now() ELSE NULL END"
        " WHERE id = $1 AND lease_until = $2 RETURNING status",
        delivery.id,
        delivery.lease_until,
        status_code,
        None if error is None else error[:MAX_ERROR_LENGTH],
        succeeded,
        float(retry_in),
        float(retry_for),
    )
    return None if row is None else str(row[0])


async def seconds_until_due(db: Db) -> float | None:
    """How long until the next pending delivery of an enabled endpoint is due (0 when one
    is due now), None when none waits."""
    row = await statements(db).fetchrow(
        "SELECT EXTRACT(EPOCH FROM min(GREATEST(d.next_attempt_at,"
        " COALESCE(d.lease_until, d.next_attempt_at))) - now())::float8"
        " FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id"
        " WHERE d.status = 'pending' AND e.enabled"
    )
    if row is None or row[0] is None:
        return None
    return max(0.0, float(row[0]))
