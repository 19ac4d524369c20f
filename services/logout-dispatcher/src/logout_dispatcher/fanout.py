"""The fan-out of one ended session (contract §6): a logout token to every application
reached that has a back-channel URI, all at once, and one audit row per attempt. Each token
carries the sid its application was given (one token per sid when a re-authentication
continued the session under a new id after the application was reached).

Each token is signed with its client's ID-token algorithm (RS256 by default).
Signing 100 RS256 tokens takes about a tenth of a second of CPU, so it runs in a worker
thread, not on the event loop. The audit rows of an event are written together once every
attempt has finished (at most five seconds after the first POST).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Final

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.crypto.jwt import TYP_LOGOUT_TOKEN, sign_jwt
from idp_common.crypto.keys import KeySet
from idp_common.protocol.constants import AUDIT_ACTION_BACKCHANNEL_LOGOUT, SIGNING_ALGORITHM
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.usecases.session_end import SessionEnded
from logout_dispatcher.delivery import Attempt, post_logout_token
from logout_dispatcher.oidc_backchannel_logout import is_delivered, logout_token_claims
from logout_dispatcher.recipients import Recipient, backchannel_recipients, one_per_sid

log = logging.getLogger("idp.logout")

ACTOR: Final = "service:logout-dispatcher"


def _usable_alg(keys: KeySet, recipient: Recipient) -> str:
    """The recipient's algorithm; RS256 (with a warning) when its keys were removed since
    the client registered it: one client's missing key must not stop the others' logout."""
    if recipient.alg in keys.algorithms:
        return recipient.alg
    log.warning(
        "logout token for %s: no %s signing key; signed with %s",
        recipient.client_id,
        recipient.alg,
        SIGNING_ALGORITHM,
    )
    return SIGNING_ALGORITHM


def sign_logout_tokens(
    keys: KeySet, issuer: str, event: SessionEnded, recipients: Sequence[Recipient]
) -> list[str]:
    now = int(time.time())
    return [
        sign_jwt(
            logout_token_claims(
                issuer=issuer,
                client_id=recipient.client_id,
                subject=event.user_id,
                sid=recipient.sid or event.sid,
                now=now,
                jti=secrets.token_urlsafe(16),
            ),
            keys,
            typ=TYP_LOGOUT_TOKEN,
            now=now,
            alg=_usable_alg(keys, recipient),
        )
        for recipient in recipients
    ]


def audit_entry(event: SessionEnded, recipient: Recipient, attempt: Attempt) -> AuditEntry:
    detail: dict[str, object] = {
        "uri": recipient.uri,
        "status_code": attempt.status_code,
        "delivered": is_delivered(attempt.status_code),
        "elapsed_ms": attempt.elapsed_ms,
        "sid": recipient.sid or event.sid,
        "user_id": event.user_id,
        "reason": event.reason,
    }
    if attempt.error is not None:
        detail["error"] = attempt.error
    return AuditEntry(
        action=AUDIT_ACTION_BACKCHANNEL_LOGOUT,
        status_code=attempt.status_code,
        actor=ACTOR,
        target_type="client",
        target=recipient.client_id,
        detail=detail,
    )


class FanOut:
    def __init__(
        self,
        *,
        issuer: str,
        keys: Callable[[], KeySet],
        sessions: async_sessionmaker[AsyncSession],
        http: httpx.AsyncClient,
    ) -> None:
        """``keys`` gives the key set of the moment (the directory is re-read while the
        dispatcher runs, ``idp_common.web.key_ring``)."""
        self._issuer = issuer
        self._keys = keys
        self._sessions = sessions
        self._http = http

    async def recipients(self, event: SessionEnded) -> list[Recipient]:
        """Raises when the database cannot be read: the event is then retried later,
        before anything was sent."""
        if not event.clients:
            return []
        async with self._sessions() as db:
            return one_per_sid(event, await backchannel_recipients(db, event.clients))

    async def deliver(self, event: SessionEnded, recipients: Sequence[Recipient]) -> list[Attempt]:
        """POST to every recipient in parallel, then audit each attempt."""
        if not recipients:
            return []
        started = time.perf_counter()
        tokens = await asyncio.to_thread(
            sign_logout_tokens, self._keys(), self._issuer, event, recipients
        )
        signed = time.perf_counter()
        attempts = await asyncio.gather(
            *(
                post_logout_token(self._http, recipient.uri, token)
                for recipient, token in zip(recipients, tokens, strict=True)
            )
        )
        try:
            async with self._sessions.begin() as db:
                for recipient, attempt in zip(recipients, attempts, strict=True):
                    write_audit(db, audit_entry(event, recipient, attempt))
        except Exception as exc:  # the POSTs are done; sending them again would be worse
            log.error("logout: %d delivery audit rows lost (%s)", len(attempts), type(exc).__name__)
        log.info(
            "logout: %d/%d delivered; signed in %.0f ms, posted in %.0f ms, audited in %.0f ms",
            sum(1 for a in attempts if is_delivered(a.status_code)),
            len(attempts),
            (signed - started) * 1000,
            max(a.elapsed_ms for a in attempts),
            (time.perf_counter() - signed) * 1000 - max(a.elapsed_ms for a in attempts),
        )
        return list(attempts)
