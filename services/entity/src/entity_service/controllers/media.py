"""``GET /media/avatars/{name}``: a profile photo, public, no token (contract §4 "Media";
part 1 "Response headers and caching": avatars are cacheable).

The name is checked against the exact shape the upload gives (``<32 hex>.<png|jpg|webp>``)
before the store is asked: anything else is a 404, as is a name with no object. Names are
random and never reused, so the answer may be cached for a day and marked ``immutable``;
its media type comes from the name, and ``nosniff`` (added to every response) keeps a
browser from guessing another. 503 when no store is configured.

:func:`avatar_store` gives the worker's one :class:`AvatarStore` (opened on first use,
closed when the app shuts down), or None when ``SVC_S3_ENDPOINT_URL`` is empty.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from litestar import Controller, Litestar, Request, get
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIResponse, Operation, Schema
from litestar.openapi.spec.enums import OpenAPIFormat, OpenAPIType
from litestar.response import Stream

from idp_common.avatars.names import AVATAR_PATH, CONTENT_TYPES, content_type_of, is_valid_name
from idp_common.avatars.store import AvatarStore, StoreUnavailable, open_store
from idp_common.errors import NotFound, ServiceUnavailable
from idp_common.storage.repos.brands import BRAND_PATH, is_logo_name
from idp_common.web.caller import resources_of

STATE_KEY: Final = "avatar_store"
AVATAR_CACHE: Final = "public, max-age=86400, immutable"


def avatar_store(request: Request[Any, Any, Any]) -> AvatarStore | None:
    app = request.app
    store: AvatarStore | None = app.state.get(STATE_KEY)
    if store is None:  # no await since the lookup: one store per worker
        settings = resources_of(request).settings
        store = open_store(settings.s3_endpoint_url, settings.s3_bucket)
        if store is None:
            return None
        app.state[STATE_KEY] = store
        opened = store

        async def close_store(_: Litestar) -> None:
            await opened.aclose()

        app.on_shutdown.append(close_store)
    return store


def no_store() -> ServiceUnavailable:
    return ServiceUnavailable("no photo store is configured", code="photo.store_not_configured")


def store_down() -> ServiceUnavailable:
    return ServiceUnavailable("the photo store cannot be reached", code="photo.store_unavailable")


async def stream_image(
    request: Request[Any, Any, Any], name: str, valid_name: bool, missing: str
) -> Stream:
    """An image of the photo store as a cacheable stream (photos and brand logos alike):
    404 ``missing`` for a malformed or unknown name, 503 when the store is absent or down."""
    if not valid_name:
        raise NotFound(missing, code="media.not_found")
    store = avatar_store(request)
    if store is None:
        raise no_store()
    try:
        image = await store.open(name)
    except StoreUnavailable:
        raise store_down() from None
    if image is None:
        raise NotFound(missing, code="media.not_found")
    headers = {"Cache-Control": AVATAR_CACHE, "Cross-Origin-Resource-Policy": "cross-origin"}
    if image.length is not None:
        headers["Content-Length"] = str(image.length)
    return Stream(image.chunks, media_type=content_type_of(name), headers=headers)


@dataclass
class AvatarDownload(Operation):
    """The 200 answer is the image itself, for OpenAPI (not the JSON a Stream defaults to)."""

    def __post_init__(self) -> None:
        ok = (self.responses or {}).get("200")
        if isinstance(ok, OpenAPIResponse):
            image = Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.BINARY)
            ok.description = "The photo"
            ok.content = {media: OpenAPIMediaType(schema=image) for media in CONTENT_TYPES.values()}


class MediaController(Controller):
    path = AVATAR_PATH.rstrip("/")
    tags = ["media"]

    @get(
        "/{name:str}",
        operation_id="getAvatar",
        summary="A profile photo",
        description="Public: no token. The photo named in a person's `picture` claim, "
        f"cacheable (`Cache-Control: {AVATAR_CACHE}`). 404 for an unknown name, 503 when "
        "no photo store is configured.",
        operation_class=AvatarDownload,
    )
    async def read_avatar(self, request: Request[Any, Any, Any], name: str) -> Stream:
        return await stream_image(request, name, is_valid_name(name), "no such photo")


class BrandMediaController(Controller):
    """``GET /media/brand/{name}``: a logo of the brand (docs/branding.md), served
    as the photos are. Names are content-addressed (``brand-<sha256>.<ext>``), so an answer
    never changes and may be cached for good."""

    path = BRAND_PATH.rstrip("/")
    tags = ["media"]

    @get(
        "/{name:str}",
        operation_id="getBrandLogo",
        summary="A logo of the brand",
        description="Public: no token. The logo named in a brand's `logoUri`, cacheable "
        f"(`Cache-Control: {AVATAR_CACHE}`). 404 for an unknown name, 503 when no image "
        "store is configured.",
        operation_class=AvatarDownload,
    )
    async def read_logo(self, request: Request[Any, Any, Any], name: str) -> Stream:
        return await stream_image(request, name, is_logo_name(name), "no such logo")


ROUTES = [MediaController, BrandMediaController]
