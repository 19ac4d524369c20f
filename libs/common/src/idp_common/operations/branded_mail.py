"""A localised, branded mail ready to send (docs/mail-templates.md).

The mails the provider sends (password reset, a locked second factor, a changed sign-in
method or address) are built here: the provider's brand (``brands`` row of the provider,
read in the caller's session), the person's language and the kind's templates
(:mod:`idp_common.mail_templates`), as a ``multipart/alternative`` of text and HTML.

Two rules pick the language (docs/languages.md "Mails"): a mail the person asked for (the
reset link) is in their saved language, else the ``Accept-Language`` of their request,
else the deployment's (``SVC_DEFAULT_LOCALE``); a security notice is in their saved
language, else the deployment's, never in the language of the request that caused it
(whoever sent that request may not be the owner).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from email.message import EmailMessage
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.config import Settings
from idp_common.mail_templates import mail_locale, notice_locale, render_mail
from idp_common.operations.mail import build_message
from idp_common.storage.repos.brands import effective_brand
from idp_common.storage.repos.users import get_ui_locale

__all__ = ["branded_message", "person_mail_locale", "person_notice_locale"]


async def person_mail_locale(
    session: AsyncSession, settings: Settings, user_id: uuid.UUID | str, accept_language: str | None
) -> str:
    """The language of a mail the person ``user_id`` asked for (see the module)."""
    saved = await get_ui_locale(session, user_id)
    return mail_locale(saved, accept_language, settings.default_locale)


async def person_notice_locale(
    session: AsyncSession, settings: Settings, user_id: uuid.UUID | str
) -> str:
    """The language of a security notice to the person ``user_id`` (see the module)."""
    return notice_locale(await get_ui_locale(session, user_id), settings.default_locale)


async def branded_message(
    session: AsyncSession,
    settings: Settings,
    *,
    kind: str,
    locale: str,
    to: str,
    values: Mapping[str, Any],
) -> EmailMessage:
    """The mail ``kind`` to ``to`` in ``locale`` with the provider's brand."""
    brand = await effective_brand(session, None, issuer_base=settings.issuer_base)
    mail = render_mail(kind, locale, brand, values)
    return build_message(
        sender=settings.smtp_from,
        to=to,
        subject=mail.subject,
        text=mail.text,
        html=mail.html,
        language=mail.locale,
    )
