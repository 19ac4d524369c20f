"""Rendering a mail: the kind's Jinja2 templates in one language, with a brand.

One Jinja2 environment per language (cached): the ``jinja2.ext.i18n`` extension with that
language's catalogue (new-style gettext: ``_("... %(name)s", name=...)`` escapes the values
in HTML and formats them after translating), ``number``, ``duration``, ``date`` and
``time`` filters that format with Babel for the language (a date and a time in UTC),
autoescaping for ``.html`` templates, and ``StrictUndefined`` (a value a template needs
and was not given is an error, never an empty gap in a mail).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any, Final, Literal, Protocol

from babel.dates import format_date, format_time
from babel.numbers import format_decimal
from babel.units import format_unit
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from idp_common.mail_templates.catalogues import translations
from idp_common.protocol.rfc4647_locales import DEFAULT_LOCALE, lookup, text_direction

__all__ = [
    "DEFAULT_COLOR",
    "MAIL_KINDS",
    "MailBrand",
    "MailKind",
    "RenderedMail",
    "render_mail",
]

MailKind = Literal["password_reset", "factor_locked", "email_changed", "credential_changed"]
#: Every kind, with the name the admin API lists it under.
MAIL_KINDS: Final[Mapping[str, str]] = {
    "password_reset": "Password reset",
    "factor_locked": "Second factor locked (someone knows your password)",
    "email_changed": "Sign-in email address changed",
    "credential_changed": "Sign-in method added, removed or changed",
}
#: The accent colour when the brand sets none (white text on it passes WCAG AA: 6.7:1).
DEFAULT_COLOR: Final = "#1d4ed8"
_COLOR = re.compile(r"#[0-9a-fA-F]{6}")


class MailBrand(Protocol):
    """What a mail shows of the brand (``idp_common.storage.repos.brands.BrandRead``)."""

    @property
    def product_name(self) -> str: ...
    @property
    def logo_uri(self) -> str | None: ...
    @property
    def primary_color(self) -> str | None: ...


@dataclass(frozen=True)
class RenderedMail:
    subject: str
    text: str
    html: str
    locale: str


def render_mail(
    kind: str, locale: str, brand: MailBrand, values: Mapping[str, Any]
) -> RenderedMail:
    """The mail ``kind`` in ``locale`` (an unsupported tag falls back to English).

    ``values`` are the kind's placeholders (docs/mail-templates.md); KeyError for an
    unknown kind, ``jinja2.UndefinedError`` for a missing value.
    """
    if kind not in MAIL_KINDS:
        raise KeyError(f"no mail template {kind!r}")
    language = lookup(locale) or DEFAULT_LOCALE
    env = _environment(language)
    context = {**values, **_brand_values(brand), "locale": language}
    context["direction"] = text_direction(language)
    subject = " ".join(env.get_template(f"{kind}.subject.txt").render(context).split())
    context["subject"] = subject
    text = env.get_template(f"{kind}.txt").render(context)
    html = env.get_template(f"{kind}.html").render(context)
    return RenderedMail(subject=subject, text=text, html=html, locale=language)


def _brand_values(brand: MailBrand) -> dict[str, Any]:
    """The brand as the templates use it; a colour or logo URL of another shape is left
    out (they end up in attributes: only ``#rrggbb`` and http(s) URLs go there)."""
    color = brand.primary_color
    logo = brand.logo_uri
    return {
        "product": brand.product_name,
        "color": color.lower() if color and _COLOR.fullmatch(color) else DEFAULT_COLOR,
        "logo": logo if logo and logo.startswith(("https://", "http://")) else None,
    }


@cache
def _environment(locale: str) -> Environment:
    env = Environment(
        loader=PackageLoader("idp_common.mail_templates", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
        undefined=StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.install_gettext_translations(translations(locale), newstyle=True)  # type: ignore[attr-defined]
    env.filters["number"] = lambda value: format_decimal(value, locale=locale)
    env.filters["duration"] = lambda seconds: _duration(int(seconds), locale)
    env.filters["date"] = lambda moment: format_date(_utc(moment), "long", locale=locale)
    env.filters["time"] = lambda moment: format_time(_utc(moment), "short", locale=locale)
    return env


def _utc(moment: datetime) -> datetime:
    """``moment`` in UTC (a naive one is taken as UTC): the notices state the time in UTC,
    whatever zone the caller's clock used."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _duration(seconds: int, locale: str) -> str:
    """A wait in whole minutes (or seconds under a minute), in words of ``locale``:
    ``15 minutes``, ``15 Minuten``, ``15 دقيقة``."""
    if seconds >= 60:
        return format_unit(seconds // 60, "duration-minute", length="long", locale=locale)
    return format_unit(seconds, "duration-second", length="long", locale=locale)
