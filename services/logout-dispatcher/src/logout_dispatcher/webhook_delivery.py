"""Webhook delivery: due ``webhook_deliveries`` rows → signed POSTs (docs/webhooks.md
"Delivery").

- Claiming: :func:`idp_common.storage.repos.webhooks.claim_due` leases due rows (``FOR
  UPDATE SKIP LOCKED``) in a short transaction that commits before any POST, so no
  connection or row lock is held across the network; every worker of every replica runs
  this loop and each row goes to one of them. A worker killed mid-POST leaves its rows
  leased; they are due again when the lease (``LEASE_SECONDS``) expires, and are sent again
  (at least once: receivers de-duplicate on ``webhook-id``).
- Each attempt: the body is the event's JSON, signed per Standard Webhooks
  (:mod:`idp_common.protocol.standard_webhooks`) with the endpoint's secret (opened from the
  secret box), ``Content-Type: application/json``; at most ``TIMEOUT_SECONDS``; redirects
  are not followed; a 2xx is success, anything else (or no answer) a failure retried after
  an exponential delay until the retry window closes, then ``failed``. The answer's body is
  never read. Unless ``SVC_WEBHOOK_ALLOW_PRIVATE``, connections go through
  :class:`idp_common.outbound_http.CheckedTransport`: the host is resolved once, refused
  when any address is not global, and the checked address is the one connected to.
- Waking: the fan-out consumer calls :meth:`WebhookWorker.wake` after it queued rows; else
  the loop sleeps until the next row is due, at most ``POLL_SECONDS``.
- Logs and metrics name the delivery, endpoint and event type, never the URL (it may carry
  a token in its query), the secret or the body.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.background import in_background
from idp_common.config import Settings
from idp_common.crypto.secretbox import SecretboxError, open_sealed, webhook_secret_context
from idp_common.observability.metrics import count_webhook_delivery
from idp_common.outbound_http import CheckedTransport, ForbiddenAddress
from idp_common.protocol.standard_webhooks import decode_secret, delivery_headers, retry_delay
from idp_common.storage.repos.webhooks import (
    DueDelivery,
    claim_due,
    record_outcome,
    seconds_until_due,
)

log = logging.getLogger("idp.webhooks")

TIMEOUT_SECONDS: Final = 5.0
#: Longer than an attempt (its 5 s, then recording the outcome), so a live worker's lease
#: never runs out under it; how long a killed worker's rows wait before they are sent again.
LEASE_SECONDS: Final = 15.0
MAX_IN_FLIGHT: Final = 32
POLL_SECONDS: Final = 5.0
MIN_WAIT_SECONDS: Final = 0.05
PAUSE_SECONDS: Final = 1.0  # after Postgres refused a claim
USER_AGENT: Final = "idp-webhooks"


def new_webhook_client(*, allow_private: bool) -> httpx.AsyncClient:
    """The client of the attempts (see the module text)."""
    limits = httpx.Limits(max_connections=MAX_IN_FLIGHT * 2, max_keepalive_connections=8)
    return httpx.AsyncClient(
        timeout=httpx.Timeout(TIMEOUT_SECONDS),
        limits=limits,
        transport=None if allow_private else CheckedTransport(limits),
        follow_redirects=False,
        trust_env=False,
        headers={"User-Agent": USER_AGENT},
    )


def failure_reason(exc: Exception) -> str:
    """A short reason for an attempt that got no answer (never the exception's text)."""
    if isinstance(exc, ForbiddenAddress):
        return f"forbidden_address ({exc.kind})"
    if isinstance(exc, TimeoutError | httpx.TimeoutException):
        return "timeout"
    if isinstance(exc, httpx.ConnectError):
        return "connect"
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
        return "invalid_url"
    return type(exc).__name__


class WebhookWorker:
    def __init__(
        self,
        settings: Settings,
        sessions: async_sessionmaker[AsyncSession],
        http: httpx.AsyncClient,
    ) -> None:
        self._settings = settings
        self._sessions = sessions
        self._http = http
        self._wake = asyncio.Event()
        self._in_flight: set[asyncio.Task[None]] = set()

    def wake(self) -> None:
        """New rows may be due: look now instead of at the next poll."""
        self._wake.set()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        try:
            async with in_background(self._loop(), name="webhook-delivery"):
                yield
        finally:
            if self._in_flight:  # let them record their outcome rather than wait for the lease
                await asyncio.wait(self._in_flight, timeout=TIMEOUT_SECONDS + 1)

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            free = MAX_IN_FLIGHT - len(self._in_flight)
            try:
                claimed = await self._claim(free) if free > 0 else []
                wait = 0.0 if claimed else await self._until_due()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Postgres away: the rows wait in the table
                log.warning("webhooks: cannot claim deliveries (%s)", type(exc).__name__)
                await asyncio.sleep(PAUSE_SECONDS)
                continue
            for delivery in claimed:
                task = asyncio.create_task(self._attempt(delivery))
                self._in_flight.add(task)
                task.add_done_callback(self._done)
            if wait > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), wait)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._in_flight.discard(task)
        self._wake.set()  # a slot is free

    async def _claim(self, limit: int) -> list[DueDelivery]:
        async with self._sessions.begin() as session:
            return await claim_due(session, limit=limit, lease_seconds=LEASE_SECONDS)

    async def _until_due(self) -> float:
        if len(self._in_flight) >= MAX_IN_FLIGHT:
            return POLL_SECONDS  # woken when a slot frees
        async with self._sessions() as session:
            due = await seconds_until_due(session)
        # A due row another worker is claiming right now: look again shortly, not at once.
        return POLL_SECONDS if due is None else min(max(due, MIN_WAIT_SECONDS), POLL_SECONDS)

    async def _attempt(self, delivery: DueDelivery) -> None:
        status_code, error = await self._post(delivery)
        count_webhook_delivery(status_code, error)
        succeeded = status_code is not None and 200 <= status_code < 300
        if not succeeded and error is None:
            error = f"http_{status_code}"
        settings = self._settings
        retry_in = retry_delay(
            delivery.attempts + 1,
            base=settings.webhook_retry_base_seconds,
            cap=settings.webhook_retry_max_delay_seconds,
            random=random.random(),  # noqa: S311 - jitter, not a secret
        )
        try:
            async with self._sessions.begin() as session:
                status = await record_outcome(
                    session,
                    delivery,
                    succeeded=succeeded,
                    status_code=status_code,
                    error=error,
                    retry_in=retry_in,
                    retry_for=settings.webhook_retry_for_seconds,
                )
        except Exception as exc:  # the lease runs out and the row is sent again
            log.warning(
                "webhooks: outcome of delivery %s not recorded (%s)",
                delivery.id,
                type(exc).__name__,
            )
            return
        if not succeeded:
            log.info(
                "webhooks: delivery %s of %s to endpoint %s failed (%s), now %s",
                delivery.id,
                delivery.event_type,
                delivery.endpoint_id,
                error,
                status,
            )

    async def _post(self, delivery: DueDelivery) -> tuple[int | None, str | None]:
        """The answer's status code, or None and why no answer came."""
        try:
            key = self._signing_key(delivery)
        except (SecretboxError, ValueError):
            return None, "secret_unreadable"
        headers = delivery_headers(key, delivery.event_id, int(time.time()), delivery.body)
        headers["Content-Type"] = "application/json"
        try:
            async with (
                asyncio.timeout(TIMEOUT_SECONDS),
                self._http.stream(
                    "POST", delivery.url, content=delivery.body, headers=headers
                ) as response,
            ):
                return response.status_code, None
        except Exception as exc:  # any failure is an attempt without an answer
            return None, failure_reason(exc)

    def _signing_key(self, delivery: DueDelivery) -> bytes:
        box_key = self._settings.secrets_key_bytes
        if box_key is None:
            raise ValueError("SVC_SECRETS_KEY is not configured")
        context = webhook_secret_context(delivery.endpoint_id)
        secret = open_sealed(delivery.secret_sealed, key=box_key, context=context)
        return decode_secret(secret.decode("ascii"))
