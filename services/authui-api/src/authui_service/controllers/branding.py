"""``GET /api/v1/auth/branding``: the provider's brand, public (docs/branding.md).

For the pages that have no challenge (password reset, logged out, device) and the
console's header; a challenge carries its client's effective brand itself
(``GET /api/v1/auth/challenge/{id}`` → ``brand``). Both read through the worker's
:data:`~idp_common.storage.repos.brands.PUBLIC_BRANDS` cache: a change shows within
:data:`~idp_common.storage.repos.brands.CACHE_SECONDS` seconds.
"""

from __future__ import annotations

import uuid
from typing import Any

from litestar import Controller, Request, get

from authui_service.context import SigninContext, context_of
from idp_common.storage.repos.brands import PUBLIC_BRANDS, BrandRead


async def brand_for(ctx: SigninContext, client_pk: uuid.UUID | None) -> BrandRead:
    """The effective brand of ``client_pk`` (None: the provider's), cached a few seconds."""
    async with ctx.resources.sessions() as db:
        return await PUBLIC_BRANDS.get(db, client_pk, issuer_base=ctx.settings.issuer_base)


class BrandingController(Controller):
    path = "/api/v1/auth"
    tags = ["sign-in"]

    @get("/branding", operation_id="getBranding")
    async def get_branding(self, request: Request[Any, Any, Any]) -> BrandRead:
        """The provider's brand: product name (default "Identity Provider"), logo URL,
        primary colour, terms and privacy links (null when unset). No token."""
        return await brand_for(context_of(request), None)
