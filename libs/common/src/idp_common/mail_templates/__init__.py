"""Localised, branded mails (issue #28, docs/mail-templates.md).

Three kinds: ``password_reset`` (authui, the reset link), ``factor_locked`` (authui, the
notice that a second factor locked: someone knows the password; no link, on purpose) and
``email_changed`` (entity, to the old address). Each is a Jinja2 template pair, HTML
(autoescaped, table layout, inline styles) and plain text, in ``templates/``; the texts
are gettext catalogues per language in ``locales/`` (:mod:`.catalogues`).

:func:`render_mail` is pure: the callers pick the language
(:func:`mail_locale`) and read the brand; :mod:`idp_common.operations.branded_mail` does
both and builds the message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from idp_common.mail_templates.render import (
    DEFAULT_COLOR,
    MAIL_KINDS,
    MailBrand,
    MailKind,
    RenderedMail,
    render_mail,
)
from idp_common.protocol.rfc4647_locales import negotiate_ui_locale

__all__ = [
    "DEFAULT_COLOR",
    "MAIL_KINDS",
    "MailBrand",
    "MailKind",
    "RenderedMail",
    "mail_locale",
    "render_mail",
    "sample_values",
]


def mail_locale(saved: str | None, accept_language: str | None) -> str:
    """A mail's language: the person's saved one, else the ``Accept-Language`` of the
    request that caused the mail, else English (docs/languages.md)."""
    return negotiate_ui_locale(ui_locales=None, saved=saved, accept_language=accept_language)


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
        "email_changed": {"name": "Alex Example", "site": issuer_base},
    }
    if kind not in samples:
        raise KeyError(f"no mail template {kind!r}")
    return samples[kind]
