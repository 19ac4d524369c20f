"""The security notice of a changed sign-in method: the person is told by mail whenever a
credential of theirs is added, removed or changed (docs/mail-templates.md
``credential_changed``, ``email_changed``).

A handler that made the change builds the notice from its request (:func:`notice_of`: now,
the caller's address and browser) and hands it to the answer as a background task
(:func:`notice_task`), so the change never waits for, nor depends on, the mail. The task
reads the person (address and saved language) and the provider's brand, renders and
sends (:func:`send_credential_notice`).

- Language: the person's saved one, else the deployment's (``SVC_DEFAULT_LOCALE``); never
  the request's ``Accept-Language``: whoever sent the request may not be the owner, and
  must not choose the language of the owner's warning (docs/languages.md).
- Kind: a changed sign-in address told to the old one (``to`` given) is ``email_changed``,
  which says that address no longer signs in; every other notice is
  ``credential_changed``.
- Never raises: the change stands whatever happens to the mail. Each notice leaves one
  audit row, ``notice.sent`` or ``notice.failed`` (``target_type`` user, ``target`` the
  person's id, ``detail`` ``{credential, change}`` and a failure's ``reason``): never the
  address, never a secret.
"""

from __future__ import annotations

import ipaddress
import logging
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from email.message import EmailMessage
from typing import Any, Final, Literal

import msgspec
from litestar.background_tasks import BackgroundTask
from litestar.connection import ASGIConnection

from idp_common.config import Settings
from idp_common.mail_templates import account_screen
from idp_common.mail_templates.user_agents import MAX_USER_AGENT_CHARS, describe_user_agent
from idp_common.operations.branded_mail import branded_message, person_notice_locale
from idp_common.operations.mail import MailError, send_mail
from idp_common.storage.repos.audit import AuditEntry, record_audit
from idp_common.storage.repos.users import UserRecord, get_user
from idp_common.web.caller import caller_ip
from idp_common.web.dependency_errors import is_dependency_failure
from idp_common.web.resources import Resources

__all__ = [
    "NOTICE_ACTOR",
    "NOTICE_FAILED",
    "NOTICE_SENT",
    "Change",
    "Credential",
    "CredentialNotice",
    "notice_kind",
    "notice_of",
    "notice_task",
    "notice_values",
    "send_credential_notice",
]

log = logging.getLogger("idp.notice")

Credential = Literal["password", "email", "authenticator", "recovery_codes", "passkey", "face"]
Change = Literal["added", "removed", "changed"]

NOTICE_SENT: Final = "notice.sent"
NOTICE_FAILED: Final = "notice.failed"
#: Who writes the notice rows: the sending task, after the answer (the change itself is
#: audited by its handler, with its actor).
NOTICE_ACTOR: Final = "service:notice"


class CredentialNotice(msgspec.Struct, frozen=True, kw_only=True):
    user_id: uuid.UUID
    credential: Credential
    change: Change
    at: datetime  # UTC
    ip: str | None = None
    user_agent: str | None = None
    by_administrator: bool = False
    to: str | None = None  # None: the person's current address


class _NotSent(Exception):
    """Why a notice was not handed to the mail server: the row's status and reason."""

    def __init__(self, status_code: int, reason: str) -> None:
        super().__init__(reason)
        self.status_code = status_code
        self.reason = reason


async def send_credential_notice(resources: Resources, notice: CredentialNotice) -> None:
    """Read the person (email, saved language) and the brand, render, send; never raises.
    Audited: one audit row per notice, action `notice.sent` or `notice.failed`
    (target_type user, target the person's id, detail {credential, change, reason?});
    never the address, never a secret."""
    try:
        await _deliver(resources, notice)
    except _NotSent as failure:
        await _audit(resources, notice, failure)
    else:
        await _audit(resources, notice, None)


def notice_task(resources: Resources, *notices: CredentialNotice) -> BackgroundTask:
    """A Litestar BackgroundTask sending the notices after the answer, one after the other."""
    return BackgroundTask(_send_each, resources, notices)


def notice_of(
    request: ASGIConnection[Any, Any, Any, Any],
    user_id: uuid.UUID | str,
    credential: Credential,
    change: Change,
    *,
    by_administrator: bool = False,
    to: str | None = None,
) -> CredentialNotice:
    """The notice of a change made by this request: now, the caller's address
    (idp_common.web.caller.caller_ip) and User-Agent."""
    agent = request.headers.get("user-agent")
    return CredentialNotice(
        user_id=user_id if isinstance(user_id, uuid.UUID) else uuid.UUID(str(user_id)),
        credential=credential,
        change=change,
        at=datetime.now(UTC),
        ip=caller_ip(request),
        user_agent=agent[:MAX_USER_AGENT_CHARS] if agent else None,
        by_administrator=by_administrator,
        to=to,
    )


def notice_kind(notice: CredentialNotice) -> str:
    """``email_changed`` for a changed address told to the old one, else
    ``credential_changed`` (see the module)."""
    return "email_changed" if notice.credential == "email" and notice.to else "credential_changed"


def notice_values(
    settings: Settings, notice: CredentialNotice, person: UserRecord
) -> Mapping[str, Any]:
    """What the templates of :func:`notice_kind` show. The browser is named from a fixed
    list (:mod:`idp_common.mail_templates.user_agents`), never by the caller's header, and
    an address that is not an IP address is left out."""
    browser, system = describe_user_agent(notice.user_agent)
    return {
        "name": person.display_name or notice.to or person.email,
        "credential": notice.credential,
        "change": notice.change,
        "by_administrator": notice.by_administrator,
        "at": notice.at,
        "ip": _shown_address(notice.ip),
        "browser": browser,
        "system": system,
        "site": settings.issuer_base,
        "reset_link": f"{settings.auth_ui_url}/reset",
        "review_link": account_screen(settings.issuer_base, notice.credential),
    }


async def _send_each(resources: Resources, notices: tuple[CredentialNotice, ...]) -> None:
    for notice in notices:
        await send_credential_notice(resources, notice)


async def _deliver(resources: Resources, notice: CredentialNotice) -> None:
    """Build and send the mail; :class:`_NotSent` with the reason when it was not sent."""
    try:
        message = await _message(resources, notice)
        await send_mail(resources.settings.smtp_url, message)
    except _NotSent:
        raise
    except MailError as exc:
        log.warning(
            "%s notice for person %s not sent (%s)", notice_kind(notice), notice.user_id, exc
        )
        raise _NotSent(502, "mail_not_sent") from exc
    except Exception as exc:  # the answer went out already; log and drop
        if is_dependency_failure(exc):
            log.warning("notice for person %s not sent (%s)", notice.user_id, type(exc).__name__)
            raise _NotSent(503, "unavailable") from exc
        log.exception("notice for person %s not sent", notice.user_id)
        raise _NotSent(500, "error") from exc


async def _message(resources: Resources, notice: CredentialNotice) -> EmailMessage:
    settings = resources.settings
    async with resources.sessions() as session:
        person = await get_user(session, notice.user_id)
        if person is None:
            raise _NotSent(404, "person_absent")
        return await branded_message(
            session,
            settings,
            kind=notice_kind(notice),
            locale=await person_notice_locale(session, settings, person.id),
            to=notice.to or person.email,
            values=notice_values(settings, notice, person),
        )


async def _audit(resources: Resources, notice: CredentialNotice, failure: _NotSent | None) -> None:
    """The notice's row, in a transaction of its own; a failure to write it is logged."""
    detail: dict[str, Any] = {"credential": notice.credential, "change": notice.change}
    if failure is not None:
        detail["reason"] = failure.reason
    entry = AuditEntry(
        action=NOTICE_SENT if failure is None else NOTICE_FAILED,
        status_code=200 if failure is None else failure.status_code,
        ip=notice.ip,
        actor=NOTICE_ACTOR,
        target_type="user",
        target=str(notice.user_id),
        detail=detail,
    )
    try:
        await record_audit(resources.sessions, entry)
    except Exception as exc:
        log.error("audit write failed for %s (%s)", entry.action, type(exc).__name__)


def _shown_address(ip: str | None) -> str | None:
    """``ip`` in canonical form when it is an IP address, else None (``unknown``)."""
    if not ip:
        return None
    try:
        return str(ipaddress.ip_address(ip))
    except ValueError:
        return None
