"""What the sign-in steps share (password, face, one-time code, passkey): how a passed
first factor goes on, and the one refusal of a failed one."""

from __future__ import annotations

import time
from typing import Any, NoReturn

from litestar import Request, Response

from authui_service import flow, outcomes
from authui_service.context import SigninContext
from authui_service.rules import face_alone_allowed
from authui_service.schemas import StepAnswer
from idp_common.errors import Unauthenticated
from idp_common.protocol.constants import ACR_FACE, ACR_ONE_FACTOR, AMR_FACE, AMR_PASSWORD
from idp_common.protocol.oidc_authorize import requires_phishing_resistance
from idp_common.state.challenges import Challenge, Step
from idp_common.storage.repos.passkeys import credential_ids
from idp_common.storage.repos.users import SignInFacts, UserRecord

AnyRequest = Request[Any, Any, Any]
WRONG_CREDENTIALS = "wrong email or password"


def answer_step(finished: flow.Finished) -> Response[StepAnswer]:
    """The step's answer, with the session cookie when a session started."""
    headers = {"Set-Cookie": finished.set_cookie} if finished.set_cookie else None
    return Response(finished.answer, status_code=200, headers=headers)


async def first_factor_passed(
    ctx: SigninContext, request: AnyRequest, challenge: Challenge, facts: SignInFacts, method: str
) -> Response[StepAnswer]:
    """The password or the face matched: ask for the second step (:func:`second_step`), or
    finish (consent or done). A face alone is its own, weakest level (``urn:idp:acr:face``)."""
    outcomes.counted(outcomes.first_factor_method(method), outcomes.SUCCESS)
    user = facts.user
    challenge.user_id = str(user.id)
    challenge.auth_time = int(time.time())
    challenge.amr = [method]
    challenge.acr = ACR_FACE if method == AMR_FACE else ACR_ONE_FACTOR
    verified = facts.password_hash if method == AMR_PASSWORD else None
    challenge.password_stamp = flow.password_stamp(verified) if verified else None
    second = second_step(ctx, challenge, facts, method)
    if second is not None:
        challenge.step = second
        await ctx.store.save_challenge(challenge)
        return Response(StepAnswer(next=second), status_code=200)
    return answer_step(await flow.finish_authentication(ctx, request, challenge, user))


def second_step(
    ctx: SigninContext, challenge: Challenge, facts: SignInFacts, method: str
) -> Step | None:
    """What follows the first factor: a passkey when the request asks only for
    ``urn:idp:acr:phr`` (the code would not reach it) and the person holds one; else the
    code when the person has an authenticator (a passkey may answer that step too); else
    their passkey; after a password, the face when the deployment takes it as a second
    factor and the person enrolled one; else nothing."""
    if facts.has_passkey and requires_phishing_resistance(challenge.acr_values):
        return "passkey"
    if facts.has_totp:
        return "totp"
    if facts.has_passkey:
        return "passkey"
    if method == AMR_PASSWORD and facts.has_face and face_second_step(ctx):
        return "face"
    return None


def face_second_step(ctx: SigninContext) -> bool:
    """The face follows the password (``SVC_FACE_SIGNIN=second_factor``, face stack on)."""
    return ctx.settings.face_signin == "second_factor" and ctx.face.available


def face_offered(ctx: SigninContext, challenge: Challenge) -> bool:
    """The sign-in page offers the face at the challenge's step."""
    if not ctx.face.available:
        return False
    if challenge.step == "face":
        return True
    return challenge.step == "password" and face_alone_allowed(
        ctx.settings.face_signin, challenge.acr_values
    )


async def passkey_offered(ctx: SigninContext, challenge: Challenge) -> bool:
    """The sign-in page offers a passkey at the challenge's step: always at the password
    step (a discoverable passkey names its person), at the passkey step, and at the code
    step when the person holds a usable passkey."""
    if challenge.step in ("password", "passkey"):
        return True
    if challenge.step != "totp" or challenge.user_id is None:
        return False
    async with ctx.resources.sessions() as db:
        return bool(await credential_ids(db, flow.user_uuid(challenge)))


async def refuse_credentials(
    ctx: SigninContext,
    request: AnyRequest,
    account: str,
    challenge: Challenge,
    user: UserRecord | None,
    detail: dict[str, str],
) -> NoReturn:
    """A failed first factor (already counted by the account throttle), audited
    ``login.failed`` with ``detail``, and one 401 whatever the cause."""
    actor = None if user is None else str(user.id)
    method = outcomes.first_factor_method(detail.get("method", ""))
    outcomes.counted(method, detail.get("reason", "unknown"))
    await flow.audit_step(ctx, request, challenge, "login.failed", 401, actor=actor, detail=detail)
    raise Unauthenticated(WRONG_CREDENTIALS, code="auth.invalid_credentials")
