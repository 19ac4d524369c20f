"""The steps of a sign-in challenge (docs/design.md "Sign-in"): load it at the expected step,
finish authentication (a new browser session, the cookie, consent or done), audit.

Contract with ``/oauth2/authorize`` (``idp_common.state.sessions``): when the challenge is
``done`` it carries ``user_id``, ``auth_time``, ``amr``, ``acr`` and ``session_sid`` = the
sid of the session whose cookie this API set; authorize consumes it and checks the cookie.

A session starts only while the password the challenge verified is still the person's
(:func:`password_stamp`), read with the person's row share-locked: a password change at the
same moment either ends the new session or makes the sign-in 401.
"""

from __future__ import annotations

import hashlib
import logging
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
from litestar import Request

from authui_service.context import SigninContext
from authui_service.rules import needs_consent, resume_url, session_cookie
from authui_service.schemas import StepAnswer
from idp_common.errors import Conflict, NotFound, Unauthenticated
from idp_common.state.challenges import Challenge, Step
from idp_common.storage.repos.audit import AuditEntry, record_audit, write_audit
from idp_common.storage.repos.clients import ClientRecord, get_client
from idp_common.storage.repos.consents import get_consented_scopes
from idp_common.storage.repos.credentials import locked_password_hash
from idp_common.storage.repos.users import UserRecord
from idp_common.usecases.session_end import end_sessions
from idp_common.web.caller import caller_ip

log = logging.getLogger("idp.signin")
AnyRequest = Request[Any, Any, Any]


@dataclass(frozen=True)
class Finished:
    """What completing a step answers: the body and, when a session started, its cookie."""

    answer: StepAnswer
    set_cookie: str | None = None


async def load_challenge(ctx: SigninContext, challenge_id: str, step: Step) -> Challenge:
    """The live challenge at ``step``: 404 when unknown or expired, 409 at another step."""
    return await load_challenge_at(ctx, challenge_id, (step,))


async def load_challenge_at(
    ctx: SigninContext, challenge_id: str, steps: tuple[Step, ...]
) -> Challenge:
    """The live challenge at one of ``steps``: 404 when unknown or expired, 409 else."""
    challenge = await ctx.store.get_challenge(challenge_id)
    if challenge is None:
        raise NotFound("no such sign-in request, or it expired", code="auth.challenge_not_found")
    if challenge.step not in steps:
        expected = " or ".join(repr(step) for step in steps)
        raise Conflict(
            f"this sign-in request is at step {challenge.step!r}, not {expected}",
            code="auth.wrong_step",
        )
    return challenge


def password_stamp(password_hash: str) -> str:
    """A digest of the PHC string a password step verified (never the hash itself in Redis)."""
    return hashlib.sha256(password_hash.encode()).hexdigest()[:32]


async def _password_unchanged(db: Any, challenge: Challenge, user: UserRecord) -> bool:
    """The password the challenge verified is still the person's (row share-locked until
    the transaction ends); True when no password step ran."""
    if challenge.password_stamp is None:
        return True
    current = await locked_password_hash(db, user.id)
    return current is not None and password_stamp(current) == challenge.password_stamp


def challenge_ended() -> Unauthenticated:
    """The person of a challenge was disabled or deleted midway: sign in again."""
    return Unauthenticated("sign in again", code="auth.challenge_ended")


async def load_client(ctx: SigninContext, challenge: Challenge) -> ClientRecord:
    async with ctx.resources.sessions() as db:
        client = await get_client(db, challenge.client_id)
    # Deleted or disabled while the person was signing in: the request ends, as for an
    # unknown one (a disabled client's sign-in is never shown nor completed).
    if client is None or client.disabled:
        await ctx.store.delete_challenge(challenge.id)
        raise NotFound("no such sign-in request, or it expired", code="auth.challenge_not_found")
    return client


def done(ctx: SigninContext, challenge: Challenge) -> StepAnswer:
    """Back to ``/oauth2/authorize``, or to the page a sign-in without an authorization
    request returns to (``return_to``: the device page)."""
    target = challenge.return_to or resume_url(ctx.settings.issuer, challenge.id)
    return StepAnswer(next="done", redirect_to=target)


async def audit(ctx: SigninContext, request: AnyRequest, entry: AuditEntry) -> None:
    """Record a decision in a transaction of its own, with the caller's address."""
    await record_audit(
        ctx.resources.sessions, msgspec.structs.replace(entry, ip=caller_ip(request))
    )


async def audit_step(
    ctx: SigninContext,
    request: AnyRequest,
    challenge: Challenge,
    action: str,
    status_code: int,
    *,
    actor: str | None,
    detail: Mapping[str, object] | None = None,
) -> None:
    """:func:`audit` of a decision about a sign-in step: the target is the challenge's
    client."""
    entry = AuditEntry(
        action=action,
        status_code=status_code,
        actor=actor,
        target_type="client",
        target=challenge.client_id,
        detail=dict(detail or {}),
    )
    await audit(ctx, request, entry)


async def finish_authentication(
    ctx: SigninContext, request: AnyRequest, challenge: Challenge, user: UserRecord
) -> Finished:
    """Every factor is verified: start a new session (a new id at every sign-in) that
    continues this browser's previous one for the same person, or ends another person's;
    then consent or done. ``challenge`` carries amr/acr/auth_time."""
    client = await load_client(ctx, challenge)
    previous = await ctx.store.get_session(request.cookies.get(ctx.settings.session_cookie_name))
    # The same person signing in again (a step-up, prompt=login, max_age) continues the
    # session under a new id, keeping its applications and telling none of them; another
    # person's session ends with the logout fan-out (docs/security.md, attack 18), as does one
    # that has already been continued MAX_CONTINUATIONS times.
    same_person = (
        previous is not None and previous.user_id == str(user.id) and previous.can_continue
    )
    async with ctx.resources.sessions.begin() as db:
        if not await _password_unchanged(db, challenge, user):
            await ctx.store.delete_challenge(challenge.id)
            raise challenge_ended()
        if previous is not None and not same_person:
            await end_sessions(
                db, ctx.store, [previous], reason="replaced", nats_prefix=ctx.settings.nats_prefix
            )
        cookie_value, session = await ctx.store.create_session(
            user_id=str(user.id),
            auth_time=challenge.auth_time or int(time.time()),
            amr=list(challenge.amr),
            acr=challenge.acr or "",
            ip=caller_ip(request),
            user_agent=request.headers.get("user-agent"),
            continues=previous if same_person else None,
        )
        challenge.session_sid = session.sid
        consented = await get_consented_scopes(db, user.id, client.pk)
        ask = needs_consent(
            skip_consent=client.skip_consent,
            requested=challenge.scopes,
            consented=consented,
            prompt=challenge.prompt,
        )
        challenge.step = "consent" if ask else "done"
        await ctx.store.save_challenge(challenge)
        write_audit(db, _signed_in(request, challenge, user))
    answer = StepAnswer(next="consent") if ask else done(ctx, challenge)
    cookie = session_cookie(
        cookie_value, secure=ctx.settings.is_prod, name=ctx.settings.session_cookie_name
    )
    return Finished(answer, cookie)


def _signed_in(request: AnyRequest, challenge: Challenge, user: UserRecord) -> AuditEntry:
    return AuditEntry(
        action="login.succeeded",
        status_code=200,
        ip=caller_ip(request),
        actor=str(user.id),
        target_type="client",
        target=challenge.client_id,
        detail={"amr": list(challenge.amr), "acr": challenge.acr, "sid": challenge.session_sid},
    )


def user_uuid(challenge: Challenge) -> uuid.UUID:
    if challenge.user_id is None:
        raise Conflict("this sign-in request has no person yet", code="auth.wrong_step")
    return uuid.UUID(challenge.user_id)
