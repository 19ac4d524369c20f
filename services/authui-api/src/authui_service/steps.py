"""What the sign-in steps share (password, face, one-time code): how a passed first
factor goes on, and the one refusal of a failed one."""

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
from idp_common.state.challenges import Challenge, Step
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
    """The password or the face matched: ask for the code when the person has an
    authenticator; after a password, for the face when the deployment takes the face as a
    second factor and the person enrolled one; else finish (consent or done). A face
    alone is its own, weakest level (``urn:idp:acr:face``)."""
    outcomes.counted(outcomes.first_factor_method(method), outcomes.SUCCESS)
    user = facts.user
    challenge.user_id = str(user.id)
    challenge.auth_time = int(time.time())
    challenge.amr = [method]
    challenge.acr = ACR_FACE if method == AMR_FACE else ACR_ONE_FACTOR
    verified = facts.password_hash if method == AMR_PASSWORD else None
    challenge.password_stamp = flow.password_stamp(verified) if verified else None
    second: Step | None = None
    if facts.has_totp:
        second = "totp"
    elif method == AMR_PASSWORD and facts.has_face and face_second_step(ctx):
        second = "face"
    if second is not None:
        challenge.step = second
        await ctx.store.save_challenge(challenge)
        return Response(StepAnswer(next=second), status_code=200)
    return answer_step(await flow.finish_authentication(ctx, request, challenge, user))


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
