"""``POST /api/v1/auth/biometric``: sign in with a face (issue 7; spec part 4; DESIGN.md
"Sign-in").

1:1 verification: the person names the account and presents an image; the face's embedding
is compared with that person's enrolled template (``SVC_FACE_THRESHOLD``, at most 0.5).

Order of checks, so that the answer says nothing about the account that the image does
not already say:

1. the per-address limit (``TOKEN_PER_IP``) and the per-account throttle, as for passwords;
2. the image: unreadable, no face, several faces, too small or too blurry is a 422 naming
   ``image`` (computed before the account is looked up, the same for any account);
3. the account: unknown, disabled, without a template, or a face that does not match are
   one and the same 401 ``auth.invalid_credentials``, counted by the throttle and audited
   ``login.failed`` with the reason.

A match is one factor, ``amr: ["face"]``; a person with an authenticator is then asked for
the code (``amr`` ``face``, ``otp``, ``mfa``). 503 ``face.unavailable`` without the face
stack or ``SVC_SECRETS_KEY``.
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
from typing import Any, Final

from litestar import Controller, Request, Response, post
from litestar.params import JSONBody

from authui_service import flow
from authui_service.attempts import first_factor_attempt
from authui_service.context import SigninContext, context_of
from authui_service.controllers.signin import first_factor_passed, refuse_credentials
from authui_service.schemas import BiometricBody, StepAnswer
from idp_common.avatars.upload import too_large
from idp_common.crypto.secretbox import SecretboxError
from idp_common.errors import FieldError, InvalidArgument
from idp_common.face.template import matches, open_template
from idp_common.protocol.constants import AMR_FACE
from idp_common.repos.face import get_face_template
from idp_common.repos.users import SignInFacts, sign_in_facts
from idp_common.sessions import Challenge
from idp_common.web.caller import caller_ip
from idp_common.web.face import embed_image, require_face, unavailable

log = logging.getLogger("idp.signin.face")
AnyRequest = Request[Any, Any, Any]
IMAGE_FIELD: Final = "image"
_DATA_URL: Final = re.compile(r"data:image/[a-z0-9.+-]+;base64,", re.IGNORECASE)


def decode_image_text(text: str, limit: int) -> bytes:
    """The image bytes of a base64 string or a ``data:image/...;base64,`` URL."""
    match = _DATA_URL.match(text)
    payload = "".join(text[match.end() :].split() if match else text.split())
    try:
        image = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        message = "The image must be base64 (or a data: URL) of a JPEG, PNG or WebP file."
        raise InvalidArgument(
            message, code="face.unreadable_image", errors=[FieldError(IMAGE_FIELD, message)]
        ) from None
    if len(image) > limit:
        raise too_large(limit)
    return image


class FaceSigninController(Controller):
    path = "/api/v1/auth"
    tags = ["sign-in"]

    @post(
        "/biometric",
        operation_id="biometric",
        status_code=200,
        request_max_body_size=10 * 1024 * 1024,
    )
    async def biometric(
        self, request: AnyRequest, data: JSONBody[BiometricBody]
    ) -> Response[StepAnswer]:
        """Sign in with a face: ``{challenge, email, image}`` (base64 or a data: URL)."""
        ctx = context_of(request)
        require_face(ctx.face)
        key = ctx.secrets_key
        if key is None:
            raise unavailable()
        await ctx.limit_signin(caller_ip(request))
        challenge = await flow.load_challenge(ctx, data.challenge, "password")
        account = data.email.strip().lower()
        await first_factor_attempt(ctx, request, account, challenge)
        image = decode_image_text(data.image, ctx.settings.avatar_max_bytes)
        presented = await embed_image(ctx.face, image, field=IMAGE_FIELD)
        facts = await _verify_face(ctx, request, account, presented, key, challenge)
        return await first_factor_passed(ctx, request, challenge, facts, AMR_FACE)


async def _verify_face(
    ctx: SigninContext,
    request: AnyRequest,
    account: str,
    presented: bytes,
    key: bytes,
    challenge: Challenge,
) -> SignInFacts:
    """The person whose template ``presented`` matches, or one 401 for every failure."""
    async with ctx.resources.sessions() as db:
        facts = await sign_in_facts(db, account)
        user = None if facts is None else facts.user
        row = None if user is None else await get_face_template(db, user.id)
    reason = "unknown_account"
    if user is not None and user.disabled:
        reason = "disabled"
    elif user is not None and row is None:
        reason = "no_face_template"
    elif user is not None and row is not None:
        try:
            enrolled = open_template(row.sealed, key=key, user_id=user.id)
        except (SecretboxError, ValueError) as exc:
            log.error("face template of %s is unusable: %s", user.id, type(exc).__name__)
            enrolled = None
        if (
            facts is not None
            and enrolled is not None
            and matches(enrolled, presented, ctx.settings.face_threshold)
        ):
            await ctx.first_factor.clear(account)
            return facts
        reason = "face_mismatch" if enrolled is not None else "template_unusable"
    detail = {"reason": reason, "method": AMR_FACE}
    await refuse_credentials(ctx, request, account, challenge, user, detail)
