"""Helpers of the security-notice tests: a person, a notice, the notice rendered."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, get_args

from idp_common.config import Settings
from idp_common.mail_templates import RenderedMail, render_mail
from idp_common.operations.credential_notice import (
    Change,
    Credential,
    CredentialNotice,
    notice_kind,
    notice_values,
)
from idp_common.storage.repos.users import UserRecord

ISSUER = "https://id.example"
CREDENTIALS: tuple[str, ...] = get_args(Credential)
CHANGES: tuple[str, ...] = get_args(Change)
AT = datetime(2026, 3, 3, 14, 5, 9, tzinfo=UTC)
FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0"
PERSON = UserRecord(
    id=uuid.UUID("8d6f2c1e-5b0a-4c7e-9f1d-2a3b4c5d6e7f"),
    email="alex@example.com",
    username=None,
    display_name="Alex Example",
    picture=None,
    email_verified=True,
    disabled=False,
    updated_at=AT,
)


@dataclass(frozen=True)
class Brand:
    product_name: str = "Example ID"
    logo_uri: str | None = None
    primary_color: str | None = "#0B5FFF"


def notice(**fields: Any) -> CredentialNotice:
    """A passkey added from ``203.0.113.7`` with Firefox 128 on Windows, unless ``fields``
    say otherwise."""
    values: dict[str, Any] = {
        "user_id": PERSON.id,
        "credential": "passkey",
        "change": "added",
        "at": AT,
        "ip": "203.0.113.7",
        "user_agent": FIREFOX,
    }
    return CredentialNotice(**{**values, **fields})


def rendered(locale: str, settings: Settings | None = None, **fields: Any) -> RenderedMail:
    """The notice ``fields`` make (a passkey added by default) as :mod:`idp_common.operations.
    credential_notice` renders it for :data:`PERSON`."""
    chosen = notice(**fields)
    values = notice_values(settings or Settings(issuer=ISSUER), chosen, PERSON)
    return render_mail(notice_kind(chosen), locale, Brand(), values)
