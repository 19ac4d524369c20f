"""``/entity/preferences``: the caller's own settings that are not profile facts
(docs/languages.md).

``locale``: the language the person reads the console, the sign-in page and the mails in
(``users.ui_locale``). A supported language or a tag that falls back to one (``de-AT`` is
stored as ``de``, RFC 4647 lookup); anything else is a 422 naming ``locale`` and nothing
changes; null clears it (the browser's languages then decide). Audited
``preferences.update`` in the same transaction. Not released as a claim: the ``locale``
claim is the operator's ``locale`` profile field, when there is one.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, put
from litestar.params import JSONBody
from msgspec import Meta

from entity_service.own import READ, WRITE, audit_own, operation
from entity_service.person import person_id
from idp_common.errors import FieldError, InvalidArgument
from idp_common.protocol.rfc4647_locales import SUPPORTED_LOCALES, lookup
from idp_common.storage.repos.users import get_ui_locale, set_ui_locale
from idp_common.web.caller import resources_of
from idp_common.web.guard import current_caller

AnyRequest = Request[Any, Any, Any]


class Preferences(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``locale``: a supported language (``en de fr es ar``) or null (not chosen)."""

    locale: Annotated[str, Meta(max_length=64)] | None


class PreferencesController(Controller):
    path = "/entity/preferences"
    tags = ["preferences"]

    @get(
        **operation(
            "getOwnPreferences",
            "Read your preferences",
            READ,
            "`locale`: the language you chose for the pages and mails, or null.",
        ),
    )
    async def read_preferences(self, request: AnyRequest) -> Preferences:
        async with resources_of(request).sessions() as session:
            person = await person_id(session, current_caller(request).subject)
            return Preferences(locale=await get_ui_locale(session, person))

    @put(
        **operation(
            "setOwnPreferences",
            "Change your preferences",
            WRITE,
            "Body `{locale}`: one of `en de fr es ar`, or a tag that falls back to one (`de-AT`"
            " is stored as `de`), or null to clear it. Any other value is a 422 naming `locale`"
            " and nothing changes. Answers the preferences as GET does.",
        ),
    )
    async def set_preferences(
        self, request: AnyRequest, data: JSONBody[Preferences]
    ) -> Preferences:
        locale = _supported(data.locale)
        async with resources_of(request).sessions.begin() as session:
            person = await person_id(session, current_caller(request).subject, lock=True)
            await set_ui_locale(session, person, locale)
            audit_own(request, session, person, "preferences.update", locale=locale)
        return Preferences(locale=locale)


def _supported(tag: str | None) -> str | None:
    if tag is None:
        return None
    found = lookup(tag)
    if found is None:
        supported = ", ".join(SUPPORTED_LOCALES)
        raise InvalidArgument(
            f"locale must be one of {supported} (or a tag that falls back to one)",
            code="entity.locale_unsupported",
            errors=[FieldError("locale", f"not a supported language; one of {supported}")],
        )
    return found


ROUTES = [PreferencesController]
