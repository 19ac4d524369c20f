"""``POST /api/v1/auth/biometric``: sign in with a face (contract §4; docs/design.md "Sign-in";
docs/security.md, attacks 2 and 14; docs/face-signin.md).

1:1 verification: the image's face embedding is compared with the person's enrolled
template (``SVC_FACE_SIGNIN`` says where in the sign-in it may be used):

- ``first_factor`` (default): at the first step, ``{challenge, email, image}``, instead of
  the password. A face alone is the weakest level, ``acr`` ``urn:idp:acr:face`` and
  ``amr: ["face"]``; it never unlocks a credential change, and it is not offered when the
  request's ``acr_values`` leave it out. A person with an authenticator is then asked for
  the code (``amr`` face, otp, mfa).
- ``second_factor``: never at the first step (403 ``auth.face_not_offered``); after the
  password, a person with an enrolled face and no authenticator is asked for it:
  ``{challenge, image}`` at the step ``face`` (``amr`` pwd, face, mfa).
- ``off``: never (403).

Order of checks, so that the answer says nothing about the account that the image does
not already say, and the costly work comes last:

1. the per-address limits (``TOKEN_PER_IP``, and ``SVC_FACE_PER_IP`` face attempts a
   minute, 10 by default) and the account's throttle read (nothing counted yet);
2. the image: its pixel count from the header, then decoded and embedded in a model
   process (a 422 naming ``image``: unreadable, too many pixels, no face, several,
   too small, too blurry), before the account is looked up;
3. the attempt is counted (first factor: the account name; and the person's ``face``
   counter, which a password never clears);
4. unknown person, disabled account, no template, an image that is one of the person's
   published photos (the same pixels, or a face closer than 0.2 to one:
   :mod:`idp_common.usecases.published_photos`), or a face that does not match: one and the same
   401 ``auth.invalid_credentials``, audited ``login.failed`` with the reason.
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
from typing import Any, Final

from litestar import Controller, Request, Response, post
from litestar.params import JSONBody

from authui_service import flow, outcomes
from authui_service.attempts import (
    FACE,
    count_second_factor,
    first_factor_attempt,
    first_factor_not_evaluated,
    first_factor_waits,
    second_factor_attempt,
    second_factor_failed,
    second_factor_passed,
)
from authui_service.context import SigninContext, context_of
from authui_service.rules import face_alone_allowed
from authui_service.schemas import BiometricBody, StepAnswer
from authui_service.steps import (
    answer_step,
    face_second_step,
    first_factor_passed,
    refuse_credentials,
)
from authui_service.throttle import Verdict
from idp_common.avatars.upload import too_large
from idp_common.crypto.secretbox import SecretboxError
from idp_common.errors import FieldError, InvalidArgument, PermissionDenied, ServiceUnavailable
from idp_common.face.template import is_published_photo, matches, open_template
from idp_common.protocol.constants import ACR_TWO_FACTOR, AMR_FACE, AMR_MFA, AMR_PASSWORD
from idp_common.state.challenges import Challenge
from idp_common.storage.repos.face import get_face_template
from idp_common.storage.repos.users import SignInFacts, UserRecord, get_user, sign_in_facts
from idp_common.usecases.published_photos import (
    PhotoUnchecked,
    current_photo_fingerprint,
    published_photos,
    remember_photo,
)
from idp_common.web.caller import caller_ip
from idp_common.web.dependency_errors import RETRY_AFTER_SECONDS
from idp_common.web.face import FaceEngine, analyse_image, require_face, unavailable

log = logging.getLogger("idp.signin.face")
AnyRequest = Request[Any, Any, Any]
IMAGE_FIELD: Final = "image"
EMAIL_FIELD: Final = "email"
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


def not_offered() -> PermissionDenied:
    return PermissionDenied(
        "face sign-in is not offered at this step", code="auth.face_not_offered"
    )


class Presented:
    """The image as the model saw it: its face embedding and its decoded pixels' digest."""

    def __init__(self, embedding: bytes, digest: bytes) -> None:
        self.embedding = embedding
        self.digest = digest


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
        """Sign in with a face: ``{challenge, email, image}`` (base64 or a data: URL) at the
        first step, ``{challenge, image}`` at the face step after the password."""
        ctx = context_of(request)
        require_face(ctx.face)
        key = ctx.secrets_key
        if key is None:
            raise unavailable()
        ip = caller_ip(request)
        await ctx.limit_signin(ip)
        await ctx.limit_biometric(ip)
        challenge = await flow.load_challenge_at(ctx, data.challenge, ("password", "face"))
        if challenge.step == "face":
            return await _second_factor(ctx, request, challenge, data, key)
        if not face_alone_allowed(ctx.settings.face_signin, challenge.acr_values):
            raise not_offered()
        if data.email is None:
            message = "The email names the account to sign in to."
            raise InvalidArgument(message, errors=[FieldError(EMAIL_FIELD, message)])
        account = data.email.strip().lower()
        await first_factor_waits(ctx, request, account, challenge, outcomes.METHOD_FACE)
        presented = await _presented(ctx.face, data.image, ctx.settings.avatar_max_bytes)
        await first_factor_attempt(ctx, request, account, challenge, outcomes.METHOD_FACE)
        facts = await _verify_face(ctx, request, account, presented, key, challenge)
        return await first_factor_passed(ctx, request, challenge, facts, AMR_FACE)


async def _presented(engine: FaceEngine, text: str, limit: int) -> Presented:
    image = decode_image_text(text, limit)
    embedding, digest = await analyse_image(engine, image, field=IMAGE_FIELD)
    return Presented(embedding, digest)


async def _second_factor(
    ctx: SigninContext,
    request: AnyRequest,
    challenge: Challenge,
    data: BiometricBody,
    key: bytes,
) -> Response[StepAnswer]:
    """The face after the password: the person is the challenge's; two factors on a match."""
    if not face_second_step(ctx):
        raise not_offered()
    async with ctx.resources.sessions() as db:
        user = await get_user(db, flow.user_uuid(challenge))
    if user is None or user.disabled:
        await ctx.store.delete_challenge(challenge.id)
        raise flow.challenge_ended()
    presented = await _presented(ctx.face, data.image, ctx.settings.avatar_max_bytes)
    photos = await _published(ctx, user, key)
    verdict = await second_factor_attempt(ctx, request, FACE, user, challenge)
    reason = await _face_refusal(ctx, user, presented, key, photos)
    if reason is not None:
        await second_factor_failed(ctx, request, FACE, user, challenge, verdict)
        await refuse_credentials(
            ctx,
            request,
            user.email,
            challenge,
            user,
            {"reason": reason, "method": AMR_FACE, "step": "face"},
        )
    await second_factor_passed(ctx, FACE, user)
    outcomes.counted(outcomes.METHOD_FACE, outcomes.SUCCESS)
    challenge.amr = [AMR_PASSWORD, AMR_FACE, AMR_MFA]
    challenge.acr = ACR_TWO_FACTOR
    return answer_step(await flow.finish_authentication(ctx, request, challenge, user))


async def _published(
    ctx: SigninContext, user: UserRecord, key: bytes
) -> list[tuple[bytes, bytes | None]]:
    """The photos ``user`` published, with their current one fingerprinted now when it has
    no fingerprint yet (published before fingerprints existed, or while the face stack
    was off): 503 when that cannot be done, never a face compared with an unchecked
    public photo."""
    async with ctx.resources.sessions() as db:
        photos, names = await published_photos(db, user.id, key=key)
    if user.picture is None or user.picture in names:
        return photos
    try:
        fingerprint = await current_photo_fingerprint(ctx.avatars, ctx.face, user.picture)
    except PhotoUnchecked as exc:
        log.warning("face sign-in of %s refused for now: %s", user.id, exc)
        raise ServiceUnavailable(
            "face sign-in cannot be checked for this account right now; try again shortly",
            code="face.photo_unchecked",
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        ) from None
    if fingerprint is not None:
        async with ctx.resources.sessions.begin() as db:
            await remember_photo(db, user.id, fingerprint, key=key, picture=user.picture)
        photos.append((fingerprint.pixel_digest, fingerprint.embedding))
    return photos


async def _face_refusal(
    ctx: SigninContext,
    user: UserRecord,
    presented: Presented,
    key: bytes,
    photos: list[tuple[bytes, bytes | None]],
) -> str | None:
    """Why ``presented`` does not sign ``user`` in (None: it matches their template and is
    none of their published ``photos``)."""
    async with ctx.resources.sessions() as db:
        row = await get_face_template(db, user.id)
    if row is None:
        return "no_face_template"
    try:
        enrolled = open_template(row.sealed, key=key, user_id=user.id)
    except (SecretboxError, ValueError) as exc:
        log.error("face template of %s is unusable: %s", user.id, type(exc).__name__)
        return "template_unusable"
    if is_published_photo(presented.digest, presented.embedding, photos):
        return "published_photo"
    if not matches(enrolled, presented.embedding, ctx.settings.face_threshold):
        return "face_mismatch"
    return None


async def _verify_face(
    ctx: SigninContext,
    request: AnyRequest,
    account: str,
    presented: Presented,
    key: bytes,
    challenge: Challenge,
) -> SignInFacts:
    """The person whose template ``presented`` matches, or one 401 for every failure."""
    try:
        async with ctx.resources.sessions() as db:
            facts = await sign_in_facts(db, account)
    except Exception as exc:  # no template read, nothing compared: an outage is no failure
        await first_factor_not_evaluated(ctx, account, exc)
        raise
    user = None if facts is None else facts.user
    reason = "unknown_account"
    verdict: Verdict | None = None
    if user is not None and user.disabled:
        reason = "disabled"
    elif facts is not None and user is not None:
        reason = ""
        photos: list[tuple[bytes, bytes | None]] = []
        if facts.has_face:  # the person's face counter, which a password never clears
            photos = await _published(ctx, user, key)
            verdict = await count_second_factor(ctx, request, FACE, user, challenge)
            # Locked: not compared, and refused like any failure (a 429 here would tell
            # that the account exists and has a face).
            reason = "" if verdict.allowed else "face_locked"
        reason = reason or await _face_refusal(ctx, user, presented, key, photos) or ""
        if not reason:
            await ctx.first_factor.clear(account)
            await second_factor_passed(ctx, FACE, user)
            return facts
    if verdict is not None and verdict.allowed and user is not None:
        await second_factor_failed(ctx, request, FACE, user, challenge, verdict)
    detail = {"reason": reason, "method": AMR_FACE}
    await refuse_credentials(ctx, request, account, challenge, user, detail)
