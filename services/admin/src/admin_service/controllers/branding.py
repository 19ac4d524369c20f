"""``/admin/branding`` and ``/admin/clients/{client_id}/branding``: the provider's brand and
a client's own (docs/branding.md, docs/admin-api.md "Branding").

Reads need ``idp:branding:read``, writes ``idp:branding:write``; every write is audited in
its transaction (``branding.update``, ``branding.logo_set``, ``branding.logo_removed``,
``branding.reset``; target type ``brand``, target ``provider`` or the ``client_id``).

Text fields follow :mod:`admin_service.protocol.brand_fields` (422 naming the field; the
primary colour's message names its contrast ratio with white text). A logo is the body
(``image/png|jpeg|webp``) or the ``file`` part of a form, at most 256 KiB, decoded and
re-encoded without metadata like a profile photo; SVG (declared, or markup found in the
bytes whatever the declared type) is 415 naming ``body``/``file``: a script in it would run
on the provider's origin. The object is stored in the photo store under
``brand-<sha256>.<ext>``; the object it replaces is deleted after the commit when no brand
row names it any more (best effort: a failure is only logged).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from dataclasses import dataclass
from typing import Annotated, Any, Final

import msgspec
from litestar import Litestar, Router, delete, get, put
from litestar.openapi.spec import OpenAPIMediaType, Operation, RequestBody, Schema
from litestar.openapi.spec.enums import OpenAPIFormat, OpenAPIType
from litestar.params import JSONBody

from admin_service.avatar_markup import is_markup
from admin_service.protocol.brand_fields import WIRE_NAMES, brand_problems
from admin_service.routes import Req, Write, operation, reading, writing
from idp_common.avatars.images import FORMATS, CleanPhoto, ImageRejected, clean_photo
from idp_common.avatars.store import AvatarStore, StoreUnavailable, open_store
from idp_common.avatars.upload import FILE_FIELD, FORM, Upload, read_upload
from idp_common.errors import (
    ContentTooLarge,
    FieldError,
    InvalidArgument,
    ServiceUnavailable,
    UnsupportedMediaType,
)
from idp_common.protocol.constants import SCOPE_IDP_BRANDING_READ, SCOPE_IDP_BRANDING_WRITE
from idp_common.storage.repos import brands as repo
from idp_common.storage.repos.brands import BrandSettings
from idp_common.web.audit_trail import audit
from idp_common.web.caller import resources_of

log = logging.getLogger("idp.admin.branding")
READ, WRITE = SCOPE_IDP_BRANDING_READ, SCOPE_IDP_BRANDING_WRITE
PROVIDER: Final = "provider"
LOGO_MAX_BYTES: Final = 256 * 1024
#: 16 megapixels: any logo fits; more from 256 KiB is a decompression bomb.
LOGO_MAX_PIXELS: Final = 16_000_000
_STORE_KEY: Final = "brand_store"
_RETRY_AFTER: Final = {"Retry-After": "30"}
_SVG_TYPES: Final = frozenset({"image/svg+xml", "application/xml", "text/xml", "text/html"})
_SVG_REFUSED: Final = (
    "is SVG or other markup, which is refused: a script inside it would run on the "
    "provider's pages; send a PNG, JPEG or WebP image"
)
_CLIENT = "/admin/clients/{client_id:str}/branding"
# Longer than the rules allow, so that the rule's own message (422 naming the field) shows.
Text = Annotated[str, msgspec.Meta(max_length=4000)]
_RULES = (
    "`productName`: 1 to 80 characters. `primaryColor`: `#rrggbb`, the background of primary "
    "buttons with white text, so at least 4.5:1 contrast with white (WCAG 2.x AA; the 422 "
    "names the ratio). `termsUri`, `privacyUri`: absolute https URLs of at most 2000 "
    "characters (http only for localhost or 127.0.0.1). A member left out keeps its value; "
    "null clears it."
)
_LOGO_RULES = (
    f"The image as the body ({', '.join(FORMATS)}) or as the `{FILE_FIELD}` field of a {FORM} "
    "form, at most 256 KiB (413 past it); it must decode as the type it is sent as and is "
    "stored without metadata. SVG is refused with 415 (also when sent as another type). "
    "503 when no image store is configured or it cannot be reached."
)


class BrandUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    product_name: Text | msgspec.UnsetType | None = msgspec.UNSET
    primary_color: Text | msgspec.UnsetType | None = msgspec.UNSET
    terms_uri: Text | msgspec.UnsetType | None = msgspec.UNSET
    privacy_uri: Text | msgspec.UnsetType | None = msgspec.UNSET

    def changes(self) -> dict[str, str | None]:
        return {
            name: value
            for name in repo.TEXT_FIELDS
            if not isinstance(value := getattr(self, name), msgspec.UnsetType)
        }


@dataclass
class LogoUpload(Operation):
    """The request body the handler reads itself (a raw image or a form), for OpenAPI."""

    def __post_init__(self) -> None:
        binary = Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.BINARY)
        form = Schema(
            type=OpenAPIType.OBJECT, properties={FILE_FIELD: binary}, required=[FILE_FIELD]
        )
        content = {media: OpenAPIMediaType(schema=binary) for media in FORMATS}
        content[FORM] = OpenAPIMediaType(schema=form)
        self.request_body = RequestBody(content=content, required=True)


# --- the image store ---------------------------------------------------------------------


def _store(request: Req) -> AvatarStore:
    """The worker's one store (the photo store), opened on first use; 503 without one."""
    app = request.app
    store: AvatarStore | None = app.state.get(_STORE_KEY)
    if store is None:
        settings = resources_of(request).settings
        store = open_store(settings.s3_endpoint_url, settings.s3_bucket)
        if store is None:
            raise ServiceUnavailable(
                "no image store is configured (SVC_S3_ENDPOINT_URL)",
                code="branding.store_not_configured",
                headers=_RETRY_AFTER,
            )
        app.state[_STORE_KEY] = store
        opened = store

        async def close_store(_: Litestar) -> None:
            await opened.aclose()

        app.on_shutdown.append(close_store)
    return store


def _store_down() -> ServiceUnavailable:
    return ServiceUnavailable(
        "the image store cannot be reached", code="branding.store_unavailable", headers=_RETRY_AFTER
    )


async def _forget_logo(request: Req, store: AvatarStore, name: str | None) -> None:
    """Delete the object ``name`` unless a brand row still names it (best effort)."""
    if name is None:
        return
    try:
        async with reading(request) as session:
            if await repo.logo_in_use(session, name):
                return
        await store.delete(name)
    except Exception:  # the row change has committed: an object left behind is harmless
        log.warning("brand logo object %s left in the store", name, exc_info=True)


# --- reading and checking a logo ---------------------------------------------------------


def _refuse_markup(field: str) -> UnsupportedMediaType:
    return UnsupportedMediaType(
        f"{field} {_SVG_REFUSED}",
        code="branding.svg_refused",
        errors=[FieldError(field, _SVG_REFUSED)],
    )


def _screen(data: bytes, declared: str | None, field: str) -> None:
    if (declared or "").lower() in _SVG_TYPES or is_markup(data):
        raise _refuse_markup(field)


async def _read_logo(request: Req) -> Upload:
    content_type, options = request.content_type
    if content_type != FORM and content_type not in FORMATS:
        if content_type.lower() in _SVG_TYPES:
            raise _refuse_markup("body")
        types = ", ".join(FORMATS)
        raise UnsupportedMediaType(
            f"send the logo as {types} or as the `{FILE_FIELD}` field of {FORM}",
            code="branding.unsupported_type",
            errors=[FieldError("body", f"must be typed one of {types}")],
        )
    try:
        upload = await read_upload(
            request.stream(),
            content_type,
            options,
            declared_length=request.content_length,
            limit=LOGO_MAX_BYTES,
            screen=_screen,
        )
    except ContentTooLarge:
        raise ContentTooLarge(
            f"the logo is larger than the limit of {LOGO_MAX_BYTES} bytes",
            code="branding.logo_too_large",
        ) from None
    _screen(upload.data, upload.content_type, upload.field)
    return upload


async def _cleaned(upload: Upload) -> CleanPhoto:
    try:
        return await asyncio.to_thread(
            clean_photo, upload.data, upload.content_type, max_pixels=LOGO_MAX_PIXELS
        )
    except ImageRejected as exc:
        raise InvalidArgument(
            f"{upload.field} {exc}",
            code="branding.logo_invalid",
            errors=[FieldError(upload.field, str(exc))],
        ) from None


def _object_name(logo: CleanPhoto) -> str:
    return repo.logo_name(hashlib.sha256(logo.data).hexdigest(), logo.extension)


# --- the operations, shared by the provider's and a client's routes ----------------------


def _audit(write: Write, action: str, target: str, **detail: Any) -> None:
    """In the write's transaction; target type ``brand`` (``Write.audit`` would say
    ``branding``)."""
    status = detail.pop("status_code", 200)
    audit(
        write.request,
        write.session,
        action=action,
        target_type="brand",
        target=target,
        status_code=status,
        detail=detail,
    )


def _issuer_base(request: Req) -> str:
    return resources_of(request).settings.issuer_base


async def _read(request: Req, client_id: str | None) -> BrandSettings:
    async with reading(request) as session:
        pk = await repo.owner_pk(session, client_id)
        return await repo.read_settings(session, pk, issuer_base=_issuer_base(request))


async def _update(request: Req, client_id: str | None, data: BrandUpdate) -> BrandSettings:
    values, problems = brand_problems(data.changes())
    if problems:
        names = ", ".join(dict.fromkeys(field for field, _ in problems))
        raise InvalidArgument(
            f"invalid {names}: {problems[0][1]}",
            code="branding.invalid",
            errors=[FieldError(field, message) for field, message in problems],
        )
    async with writing(request) as write:
        pk = await repo.owner_pk(write.session, client_id)
        row, changed = await repo.update_brand(write.session, pk, values)
        fields = [WIRE_NAMES[name] for name in changed]
        _audit(write, "branding.update", client_id or PROVIDER, fields=fields)
        return repo.settings_of(row, _issuer_base(request))


async def _set_logo(request: Req, client_id: str | None) -> BrandSettings:
    store = _store(request)
    if client_id is not None:  # an unknown client: 404 before the body is read
        async with reading(request) as session:
            await repo.client_pk_of(session, client_id)
    upload = await _read_logo(request)
    logo = await _cleaned(upload)
    name = _object_name(logo)
    try:
        await store.put(name, logo.data, logo.content_type)
    except StoreUnavailable:
        raise _store_down() from None
    try:
        async with writing(request) as write:
            pk = await repo.owner_pk(write.session, client_id)
            row, replaced = await repo.set_logo(write.session, pk, name)
            _audit(
                write,
                "branding.logo_set",
                client_id or PROVIDER,
                contentType=logo.content_type,
                bytes=len(logo.data),
                logo=name,
            )
            answer = repo.settings_of(row, _issuer_base(request))
    except Exception:
        await _forget_logo(request, store, name)
        raise
    await _forget_logo(request, store, replaced)
    return answer


async def _remove_logo(request: Req, client_id: str | None) -> None:
    store = _store(request)
    async with writing(request) as write:
        pk = await repo.owner_pk(write.session, client_id)
        old = await repo.remove_logo(write.session, pk)
        _audit(
            write,
            "branding.logo_removed",
            client_id or PROVIDER,
            status_code=204,
            hadLogo=old is not None,
        )
    await _forget_logo(request, store, old)


# --- the provider's brand ----------------------------------------------------------------


@get(**operation("getBranding", "The provider's brand (its own values; null when unset)", READ))
async def get_branding(request: Req) -> BrandSettings:
    return await _read(request, None)


@put(**operation("updateBranding", "Change the provider's brand", WRITE, _RULES))
async def update_branding(request: Req, data: JSONBody[BrandUpdate]) -> BrandSettings:
    return await _update(request, None, data)


@put(
    "/logo",
    request_max_body_size=None,  # the handler reads the body against its own limit
    operation_class=LogoUpload,
    **operation("setBrandingLogo", "Set the provider's logo", WRITE, _LOGO_RULES),
)
async def set_branding_logo(request: Req) -> BrandSettings:
    return await _set_logo(request, None)


@delete(
    "/logo",
    **operation("deleteBrandingLogo", "Remove the provider's logo", WRITE, "204, also when none."),
)
async def delete_branding_logo(request: Req) -> None:
    await _remove_logo(request, None)


# --- a client's brand --------------------------------------------------------------------


@get(
    **operation(
        "getClientBranding",
        "A client's own brand (null: the provider's value applies)",
        READ,
        "404 for an unknown client.",
    )
)
async def get_client_branding(request: Req, client_id: str) -> BrandSettings:
    return await _read(request, client_id)


@put(
    **operation(
        "updateClientBranding",
        "Change a client's brand (shown during its sign-in flows)",
        WRITE,
        _RULES + " Its `termsUri`/`privacyUri`/logo are also the client's `tosUri`, "
        "`policyUri`, `logoUri` (RFC 7591 metadata).",
    )
)
async def update_client_branding(
    request: Req, client_id: str, data: JSONBody[BrandUpdate]
) -> BrandSettings:
    return await _update(request, client_id, data)


@delete(
    **operation(
        "resetClientBranding",
        "Remove a client's brand: it shows the provider's again",
        WRITE,
        "204, also when it had none; its logo goes too.",
    )
)
async def reset_client_branding(request: Req, client_id: str) -> None:
    store = _store_or_none(request)
    async with writing(request) as write:
        pk = await repo.client_pk_of(write.session, client_id)
        row = await repo.reset_brand(write.session, pk)
        _audit(write, "branding.reset", client_id, status_code=204, hadBrand=row is not None)
    if store is not None and row is not None:
        await _forget_logo(request, store, row.logo_name)


def _store_or_none(request: Req) -> AvatarStore | None:
    try:
        return _store(request)
    except ServiceUnavailable:
        return None  # nothing stored to delete


@put(
    "/logo",
    request_max_body_size=None,
    operation_class=LogoUpload,
    **operation("setClientBrandingLogo", "Set a client's logo", WRITE, _LOGO_RULES),
)
async def set_client_branding_logo(request: Req, client_id: str) -> BrandSettings:
    return await _set_logo(request, client_id)


@delete(
    "/logo",
    **operation(
        "deleteClientBrandingLogo", "Remove a client's logo", WRITE, "204, also when none."
    ),
)
async def delete_client_branding_logo(request: Req, client_id: str) -> None:
    await _remove_logo(request, client_id)


ROUTES = [
    Router(
        path="/admin/branding",
        route_handlers=[get_branding, update_branding, set_branding_logo, delete_branding_logo],
        tags=["branding"],
    ),
    Router(
        path=_CLIENT,
        route_handlers=[
            get_client_branding,
            update_client_branding,
            reset_client_branding,
            set_client_branding_logo,
            delete_client_branding_logo,
        ],
        tags=["branding"],
    ),
]
