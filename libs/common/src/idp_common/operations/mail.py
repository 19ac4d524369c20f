"""Outgoing mail through SMTP (``SVC_SMTP_URL``, ``SVC_SMTP_FROM``), with aiosmtplib.

``SVC_SMTP_URL``: ``smtp://[user[:password]@]host[:port]`` (port 25 by default; STARTTLS is
used when the server offers it) or ``smtps://...`` (implicit TLS, port 465 by default).
User and password are percent-decoded.

:func:`send_mail` raises :class:`MailError` on any failure (unreachable server, refusal,
timeout); callers that must not depend on mail (the password-reset answer) send from a
background task and log the failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from urllib.parse import unquote, urlsplit

import aiosmtplib

__all__ = ["MailError", "SmtpTarget", "build_message", "parse_smtp_url", "send_mail"]

SEND_TIMEOUT_SECONDS = 10.0


class MailError(Exception):
    """The message was not handed to the SMTP server."""


@dataclass(frozen=True)
class SmtpTarget:
    host: str
    port: int
    implicit_tls: bool
    username: str | None = None
    password: str | None = None


def parse_smtp_url(url: str) -> SmtpTarget:
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ValueError("SMTP URL must be smtp://host[:port] or smtps://host[:port]")
    implicit = parts.scheme == "smtps"
    return SmtpTarget(
        host=parts.hostname,
        port=parts.port or (465 if implicit else 25),
        implicit_tls=implicit,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


def build_message(
    *,
    sender: str,
    to: str,
    subject: str,
    text: str,
    html: str | None = None,
    language: str | None = None,
) -> EmailMessage:
    """A message with Date and Message-ID: plain text, or with ``html`` a
    ``multipart/alternative`` of the text and the HTML (RFC 2046 §5.1.4: the text first,
    the preferred last). ``language`` sets ``Content-Language`` (RFC 3282)."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=False, usegmt=True)
    message["Message-ID"] = make_msgid(domain="idp.local")
    message.set_content(text)
    if html is not None:
        message.add_alternative(html, subtype="html")
    if language:  # after the content: setting the content clears Content-* headers
        message["Content-Language"] = language
    return message


async def send_mail(smtp_url: str, message: EmailMessage) -> None:
    """Hand ``message`` to the server ``smtp_url`` names; MailError on any failure."""
    target = parse_smtp_url(smtp_url)
    try:
        await aiosmtplib.send(
            message,
            hostname=target.host,
            port=target.port,
            use_tls=target.implicit_tls,
            start_tls=None if not target.implicit_tls else False,
            username=target.username,
            password=target.password,
            timeout=SEND_TIMEOUT_SECONDS,
        )
    except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
        raise MailError(f"{type(exc).__name__} sending to {target.host}:{target.port}") from exc
