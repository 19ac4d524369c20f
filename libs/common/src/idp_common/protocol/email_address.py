"""Is this an email address we accept? One rule for every place an address comes in: a
person's sign-in address (admin create and update, self-service change) and profile fields
of type ``email``.

A pragmatic subset of RFC 5322's ``addr-spec``: no quoted local parts, no address literals,
no comments; at most 254 characters (RFC 5321 §4.5.3.1.3's path limit less the brackets),
a local part of at most 64, a domain of at least two labels of at most 63 that neither
start nor end with a hyphen, and nothing unprintable (a NUL would reach Postgres).
"""

from __future__ import annotations

import re
from typing import Final

MAX_EMAIL_LENGTH: Final = 254
_LOCAL: Final = re.compile(r"[^\s@\"(),:;<>\[\\\]]{1,64}")
_LABEL: Final = re.compile(r"(?!-)[^\s@.\"(),:;<>\[\\\]/]{1,63}(?<!-)")


def email_problem(address: str) -> str | None:
    """Why ``address`` is not an email address we accept, or None."""
    if len(address) > MAX_EMAIL_LENGTH:
        return f"must be at most {MAX_EMAIL_LENGTH} characters long"
    if not address.isprintable():
        return "must not contain unprintable characters"
    local, at, domain = address.rpartition("@")
    if not at or not _LOCAL.fullmatch(local) or local.startswith(".") or ".." in local:
        return "is not an email address"
    labels = domain.split(".")
    if len(labels) < 2 or not all(_LABEL.fullmatch(label) for label in labels):
        return "is not an email address (the domain needs a dot and no empty part)"
    return None
