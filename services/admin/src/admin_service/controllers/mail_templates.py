"""``/admin/mail-templates``: the mails the provider sends, previewed
(docs/mail-templates.md, docs/admin-api.md "Mail templates").

Read-only, ``idp:branding:read``: the list of kinds and languages, and one kind rendered in
one language with made-up values (no real person, no live link) and the provider's brand as
it is now, exactly as :mod:`idp_common.mail_templates` renders the real mails. The console
shows the HTML in a sandboxed frame.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, get
from litestar.params import Parameter

from admin_service.routes import Req, operation, reading
from idp_common.errors import FieldError, InvalidArgument, NotFound
from idp_common.mail_templates import MAIL_KINDS, render_mail, sample_values
from idp_common.protocol.constants import SCOPE_IDP_BRANDING_READ
from idp_common.protocol.rfc4647_locales import DEFAULT_LOCALE, SUPPORTED_LOCALES, lookup
from idp_common.storage.repos.brands import effective_brand
from idp_common.web.caller import resources_of


class MailTemplate(msgspec.Struct, frozen=True):
    kind: str
    name: str


class MailTemplateList(msgspec.Struct, frozen=True):
    templates: list[MailTemplate]
    locales: list[str]


class MailPreview(msgspec.Struct, frozen=True):
    kind: str
    locale: str
    subject: str
    text: str
    html: str


class MailTemplatesController(Controller):
    path = "/admin/mail-templates"
    tags = ["mail templates"]

    @get(
        **operation(
            "listMailTemplates",
            "The mails the provider sends",
            SCOPE_IDP_BRANDING_READ,
            "Every kind (`password_reset`, `factor_locked`, `email_changed`, "
            "`credential_changed`) with an English name, and the languages each is written in.",
        ),
    )
    async def list_templates(self) -> MailTemplateList:
        return MailTemplateList(
            templates=[MailTemplate(kind, name) for kind, name in MAIL_KINDS.items()],
            locales=list(SUPPORTED_LOCALES),
        )

    @get(
        "/{kind:str}/preview",
        **operation(
            "previewMailTemplate",
            "One mail rendered with sample values",
            SCOPE_IDP_BRANDING_READ,
            "`subject`, `text` and `html` of the mail `kind` in `locale` (default `en`; a tag "
            "that falls back to a supported language is accepted, `de-AT` → `de`; another is"
            " a 422 naming `locale`), with made-up values and the provider's brand. 404 for an"
            " unknown kind.",
        ),
    )
    async def preview(
        self,
        request: Req,
        kind: str,
        locale: Annotated[str, Parameter(query="locale", max_length=64)] = DEFAULT_LOCALE,
    ) -> MailPreview:
        if kind not in MAIL_KINDS:
            raise NotFound("no mail template of this kind", code="admin.mail_template_not_found")
        language = lookup(locale)
        if language is None:
            supported = ", ".join(SUPPORTED_LOCALES)
            raise InvalidArgument(
                f"locale must be one of {supported}",
                code="admin.locale_unsupported",
                errors=[FieldError("locale", f"not a supported language; one of {supported}")],
            )
        issuer_base = resources_of(request).settings.issuer_base
        async with reading(request) as session:
            brand = await effective_brand(session, None, issuer_base=issuer_base)
        mail = render_mail(kind, language, brand, sample_values(kind, issuer_base))
        return MailPreview(kind, mail.locale, mail.subject, mail.text, mail.html)


ROUTES: list[Any] = [MailTemplatesController]
