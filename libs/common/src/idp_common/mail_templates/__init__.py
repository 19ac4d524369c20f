"""Localised, branded mails (docs/mail-templates.md).

Four kinds: ``password_reset`` (authui, the reset link), ``factor_locked`` (authui, the
notice that a second factor locked: someone knows the password; no link, on purpose),
``email_changed`` (to the old address of a changed sign-in address) and
``credential_changed`` (a sign-in method added, removed or changed); the last two are sent
by :mod:`idp_common.operations.credential_notice`. Each is a Jinja2 template pair, HTML
(autoescaped, table layout, inline styles) and plain text, in ``templates/``; the texts
are gettext catalogues per language in ``locales/`` (:mod:`.catalogues`).

:func:`render_mail` is pure: the callers pick the language (:func:`mail_locale` for a mail
the person asked for, :func:`notice_locale` for a security notice) and read the brand;
:mod:`idp_common.operations.branded_mail` does both and builds the message.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from idp_common.mail_templates.render import (
    DEFAULT_COLOR,
    MAIL_KINDS,
    MailBrand,
    MailKind,
    RenderedMail,
    render_mail,
)
from idp_common.protocol.rfc4647_locales import DEFAULT_LOCALE, lookup, parse_accept_language

__all__ = [
    "ACCOUNT_SCREENS",
    "DEFAULT_COLOR",
    "MAIL_KINDS",
    "MailBrand",
    "MailKind",
    "RenderedMail",
    "account_screen",
    "mail_locale",
    "notice_locale",
    "render_mail",
    "sample_values",
]

#: The console's screen of each kind of sign-in method, below ``{issuer}/console/``
#: (``web/console/src/routes.tsx``): where a notice sends the person to review it.
#: Recovery codes live on the authenticator's screen.
ACCOUNT_SCREENS: Final[Mapping[str, str]] = {
    "password": "account/password",
    "email": "account/email",
    "authenticator": "account/authenticator",
    "recovery_codes": "account/authenticator",
    "passkey": "account/passkeys",
    "face": "account/face",
}


def mail_locale(
    saved: str | None, accept_language: str | None, default: str = DEFAULT_LOCALE
) -> str:
    """A mail the person asked for (the reset link): their saved language, else the first
    language of their request's ``Accept-Language`` that we ship, else the deployment's
    ``default`` (docs/languages.md)."""
    for tag in ([saved] if saved else []) + parse_accept_language(accept_language):
        found = lookup(tag)
        if found is not None:
            return found
    return lookup(default) or DEFAULT_LOCALE


def notice_locale(saved: str | None, default: str = DEFAULT_LOCALE) -> str:
    """A security notice (a credential changed, a factor locked): the person's saved
    language, else the deployment's ``default``; never a request's ``Accept-Language``,
    which whoever caused the notice (perhaps not the owner) chose (docs/languages.md)."""
    return (lookup(saved) if saved else None) or lookup(default) or DEFAULT_LOCALE


def account_screen(issuer_base: str, credential: str) -> str:
    """The console screen where the person reviews ``credential`` (the console's home for
    a kind it does not know)."""
    return f"{issuer_base}/console/{ACCOUNT_SCREENS.get(credential, '')}"


#: The moment, address and browser of the sample notices.
_SAMPLE_AT: Final = datetime(2026, 3, 3, 14, 5, tzinfo=UTC)
_SAMPLE_WHERE: Final[Mapping[str, Any]] = {
    "at": _SAMPLE_AT,
    "ip": "203.0.113.7",
    "browser": "Firefox 128",
    "system": "Windows",
    "by_administrator": False,
}


def sample_values(kind: str, issuer_base: str) -> Mapping[str, Any]:
    """Made-up values for the admin preview (no real person, no live link)."""
    samples: dict[str, dict[str, Any]] = {
        "password_reset": {
            "name": "Alex Example",
            "link": f"{issuer_base}/auth/reset?token=EXAMPLE-NOT-A-REAL-TOKEN",
            "valid_seconds": 1800,
        },
        "factor_locked": {
            "name": "Alex Example",
            "factor": "code",
            "failures": 5,
            "delay_seconds": 900,
        },
        "email_changed": {
            "name": "Alex Example",
            "site": issuer_base,
            "review_link": account_screen(issuer_base, "email"),
            **_SAMPLE_WHERE,
        },
        "credential_changed": {
            "name": "Alex Example",
            "credential": "passkey",
            "change": "added",
            "reset_link": f"{issuer_base}/auth/reset",
            "review_link": account_screen(issuer_base, "passkey"),
            **_SAMPLE_WHERE,
        },
    }
    if kind not in samples:
        raise KeyError(f"no mail template {kind!r}")
    return samples[kind]
