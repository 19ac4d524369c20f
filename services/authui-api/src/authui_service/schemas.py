"""Request and response bodies of the sign-in API (docs/design.md "Wire contracts": fixed)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from idp_common.protocol.password_policy import MAX_LENGTH as PASSWORD_MAX_LENGTH
from idp_common.storage.repos.brands import BrandRead

ChallengeId = Annotated[str, Meta(min_length=1, max_length=100)]
Email = Annotated[str, Meta(min_length=1, max_length=320)]
# Sign-in accepts what was once a valid password; a generous cap bounds hashing work.
Password = Annotated[str, Meta(min_length=1, max_length=1024)]
NewPassword = Annotated[str, Meta(max_length=PASSWORD_MAX_LENGTH * 4)]
Next = Literal["password", "totp", "face", "passkey", "consent", "done"]


class LoginBody(msgspec.Struct, frozen=True):
    challenge: ChallengeId
    email: Email
    password: Password


#: A face image as base64 (or a ``data:`` URL): 4/3 of the photo limit's default, 5 MiB.
FaceImageText = Annotated[str, Meta(min_length=1, max_length=7_000_000)]


class BiometricBody(msgspec.Struct, frozen=True):
    """``email`` names the account when the face is the first step; at the face step after
    the password the challenge already names the person and ``email`` may be left out."""

    challenge: ChallengeId
    image: FaceImageText
    email: Email | None = None


class TotpBody(msgspec.Struct, frozen=True):
    challenge: ChallengeId
    code: Annotated[str, Meta(min_length=1, max_length=20)]


class PasskeyOptionsBody(msgspec.Struct, frozen=True):
    challenge: ChallengeId


class PasskeyBody(msgspec.Struct, frozen=True):
    """``credential``: the browser's ``PublicKeyCredential.toJSON()`` of the assertion
    (AuthenticationResponseJSON), checked by py_webauthn, never logged."""

    challenge: ChallengeId
    credential: dict[str, Any]


class ConsentBody(msgspec.Struct, frozen=True):
    challenge: ChallengeId
    approve: bool


class ResetRequestBody(msgspec.Struct, frozen=True):
    email: Email


class ResetConfirmBody(msgspec.Struct, frozen=True):
    token: Annotated[str, Meta(min_length=1, max_length=200)]
    password: NewPassword


class StepAnswer(msgspec.Struct, frozen=True, omit_defaults=True):
    """``{next, redirectTo?}``: ``redirectTo`` when the browser leaves the sign-in page."""

    next: Next
    redirect_to: str | None = msgspec.field(default=None, name="redirectTo")


class ClientInfo(msgspec.Struct, frozen=True):
    client_id: str
    name: str


class ScopeInfo(msgspec.Struct, frozen=True):
    value: str
    description: str


class ChallengeRead(msgspec.Struct, frozen=True):
    id: str
    kind: Literal["login", "consent"]
    next: Next
    client: ClientInfo
    login_hint: str | None = msgspec.field(name="loginHint")
    scopes: list[ScopeInfo]
    brand: BrandRead  # the client's effective brand (docs/branding.md)
    # The language of the pages: ui_locales, the person's saved one, Accept-Language, en
    # (docs/languages.md).
    locale: str
    # The face is offered at this step: instead of the password (SVC_FACE_SIGNIN
    # first_factor, unless acr_values excludes a face alone), or as the step itself.
    face: bool = False
    # A passkey is offered at this step: always at the password step (a discoverable
    # passkey names its person), at the passkey step, and at the code step when the
    # person also holds a usable passkey.
    passkey: bool = False


class ResetAccepted(msgspec.Struct, frozen=True):
    """The one answer to every reset request."""

    detail: str = (
        "If an account uses this address, a link to set a new password is on its way. "
        "It works once, for 30 minutes."
    )
