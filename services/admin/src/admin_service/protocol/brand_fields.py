"""The rules of a brand's text fields (docs/branding.md), pure.

- ``productName``: 1 to 80 characters once trimmed, no control characters.
- ``primaryColor``: ``#rrggbb`` with at least 4.5:1 against white text
  (:mod:`admin_service.protocol.wcag_contrast`); stored lower-case.
- ``termsUri``, ``privacyUri``: absolute ``https`` URLs of at most 2000 characters, with a
  host and no user name or password (RFC 7591 §2 ``tos_uri``/``policy_uri``: shown to the
  person as links); plain ``http`` only to ``localhost`` or ``127.0.0.1`` (development).

Each ``*_problem`` function answers the sentence a 422 carries, or None when the value is
acceptable; :func:`brand_problems` checks a whole change and answers ``(field, message)``
pairs in camelCase wire names plus the normalised values.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Final
from urllib.parse import urlsplit

from admin_service.protocol.wcag_contrast import normalize_hex_color, primary_color_problem

MAX_PRODUCT_NAME: Final = 80
MAX_LINK_LENGTH: Final = 2000
_LOCAL_HOSTS: Final = frozenset({"localhost", "127.0.0.1"})
#: Attribute name -> wire name.
WIRE_NAMES: Final = {
    "product_name": "productName",
    "primary_color": "primaryColor",
    "terms_uri": "termsUri",
    "privacy_uri": "privacyUri",
}


def product_name_problem(value: str) -> str | None:
    name = value.strip()
    if not name:
        return "must not be empty"
    if len(name) > MAX_PRODUCT_NAME:
        return f"must be at most {MAX_PRODUCT_NAME} characters"
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in name):
        return "must not contain control characters or line breaks"
    return None


def link_problem(value: str) -> str | None:
    if len(value) > MAX_LINK_LENGTH:
        return f"must be at most {MAX_LINK_LENGTH} characters"
    if any(c.isspace() or unicodedata.category(c) == "Cc" for c in value):
        return "must be an absolute https URL without spaces"
    try:
        parts = urlsplit(value)
        host = parts.hostname
    except ValueError:
        return "must be an absolute https URL"
    problem = None
    if parts.scheme != "https" and not (parts.scheme == "http" and host in _LOCAL_HOSTS):
        problem = "must be an absolute https URL (http only for localhost or 127.0.0.1)"
    elif not host:
        problem = "must be an absolute https URL with a host"
    elif parts.username is not None or parts.password is not None:
        problem = "must not contain a user name or password"
    return problem


def brand_problems(
    changes: Mapping[str, str | None],
) -> tuple[dict[str, str | None], list[tuple[str, str]]]:
    """``changes`` (attribute names; None clears) normalised, and what is wrong with them
    as (wire field, message)."""
    normalised: dict[str, str | None] = {}
    problems: list[tuple[str, str]] = []
    for name, given in changes.items():
        value = given
        if given is None:
            problem = None
        elif name == "product_name":
            problem, value = product_name_problem(given), given.strip()
        elif name == "primary_color":
            problem = primary_color_problem(given)
            value = normalize_hex_color(given) if problem is None else given
        else:
            problem = link_problem(given)
        if problem is not None:
            problems.append((WIRE_NAMES[name], problem))
        normalised[name] = value
    return normalised, problems
