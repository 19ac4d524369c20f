"""Which language a person reads (docs/languages.md).

Preferences are BCP 47 language tags (RFC 5646), most wanted first. A tag is matched to a
language we ship by RFC 4647 §3.4 "Lookup": compared case-insensitively, then truncated
from the end (``de-AT`` → ``de``; a single-letter subtag left at the end goes with the
subtag it introduces, so ``zh-x-foo`` → ``zh``). The frontends apply the same rule
(``web/shared/locales.ts``).

The order (:func:`negotiate_ui_locale`): OIDC ``ui_locales`` (Core §3.1.2.1, a
space-separated list), then the person's saved language (``users.ui_locale``), then the
request's ``Accept-Language`` (RFC 9110 §12.5.4, by ``q``), then :data:`DEFAULT_LOCALE`.

Every input comes from a caller and may be anything: nothing here raises, and the work is
bounded (only the first :data:`MAX_HEADER_CHARS` characters and :data:`MAX_PREFERENCES`
entries are looked at).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

__all__ = [
    "DEFAULT_LOCALE",
    "MAX_HEADER_CHARS",
    "MAX_PREFERENCES",
    "RIGHT_TO_LEFT",
    "SUPPORTED_LOCALES",
    "lookup",
    "negotiate_ui_locale",
    "parse_accept_language",
    "parse_ui_locales",
    "text_direction",
]

SUPPORTED_LOCALES: Final = ("en", "de", "fr", "es", "ar")
DEFAULT_LOCALE: Final = "en"
#: Languages written right to left (pages and mails mirror: ``dir="rtl"``).
RIGHT_TO_LEFT: Final = frozenset({"ar"})

#: How much of a header or ``ui_locales`` value is read; the rest is ignored. OIDC's
#: ``ui_locales`` is limited to 256 characters by the authorize endpoint already; real
#: browsers send well under 200 characters of ``Accept-Language``.
MAX_HEADER_CHARS: Final = 1024
#: How many preferences are considered at most.
MAX_PREFERENCES: Final = 32
#: A language tag longer than this is not a tag we could match (RFC 5646 §4.4.1 advises
#: supporting 35 characters; a little room for extensions).
_MAX_TAG_CHARS: Final = 64

_SUPPORTED = frozenset(SUPPORTED_LOCALES)
# A language range (RFC 4647 §2.1): 1-8 letters, then "-" and 1-8 letters/digits each.
# "_" (POSIX style, de_DE) is accepted as a separator too, being a common slip.
_TAG = re.compile(r"[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*")
# RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
_QVALUE = re.compile(r"(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)")


def lookup(tag: str) -> str | None:
    """The shipped language ``tag`` asks for (``de-AT`` → ``de``, ``DE`` → ``de``), else None.

    Anything that is not a well-formed language tag (``*``, empty, too long) gives None.
    """
    if not isinstance(tag, str):
        return None
    candidate = tag.strip()
    if len(candidate) > _MAX_TAG_CHARS or _TAG.fullmatch(candidate) is None:
        return None
    subtags = candidate.lower().replace("_", "-").split("-")
    while subtags:
        joined = "-".join(subtags)
        if joined in _SUPPORTED:
            return joined
        subtags.pop()
        # RFC 4647 §3.4: a singleton (x, u, ...) left at the end is removed with it.
        if subtags and len(subtags[-1]) == 1:
            subtags.pop()
    return None


def parse_accept_language(header: str | None) -> list[str]:
    """The language tags of an ``Accept-Language`` value, most wanted first.

    Ordered by ``q`` (ties keep the header's order); ``q=0`` ("not acceptable") and the
    wildcard ``*`` are dropped, as are malformed entries. Tags are returned as sent.
    """
    if not header or not isinstance(header, str):
        return []
    weighted: list[tuple[float, int, str]] = []
    for position, entry in enumerate(header[:MAX_HEADER_CHARS].split(",", MAX_PREFERENCES)):
        if position >= MAX_PREFERENCES:
            break
        tag, _, params = entry.partition(";")
        tag = tag.strip()
        if not tag or tag == "*" or _TAG.fullmatch(tag) is None:
            continue
        quality = _quality(params)
        if quality is None or quality <= 0.0:
            continue
        weighted.append((quality, position, tag))
    weighted.sort(key=lambda item: (-item[0], item[1]))
    return [tag for _, _, tag in weighted]


def _quality(params: str) -> float | None:
    """The ``q`` of one entry's parameters (1.0 when absent); None when malformed."""
    params = params.strip()
    if not params:
        return 1.0
    name, equals, value = params.partition("=")
    if not equals or name.strip().lower() != "q":
        return None
    value = value.strip()
    if _QVALUE.fullmatch(value) is None:
        return None
    return float(value)


def parse_ui_locales(value: str | Sequence[str] | None) -> list[str]:
    """The tags of an OIDC ``ui_locales`` value (space-separated, most wanted first)."""
    if value is None:
        return []
    if isinstance(value, str):
        return value[:MAX_HEADER_CHARS].split(None, MAX_PREFERENCES)[:MAX_PREFERENCES]
    return [tag for tag in list(value)[:MAX_PREFERENCES] if isinstance(tag, str)]


def negotiate_ui_locale(
    *,
    ui_locales: str | Sequence[str] | None,
    saved: str | None,
    accept_language: str | None,
) -> str:
    """The language to show: the first of ``ui_locales`` we ship, else the saved one, else
    the first of ``Accept-Language`` we ship, else :data:`DEFAULT_LOCALE`."""
    for tag in parse_ui_locales(ui_locales):
        found = lookup(tag)
        if found is not None:
            return found
    if saved:
        found = lookup(saved)
        if found is not None:
            return found
    for tag in parse_accept_language(accept_language):
        found = lookup(tag)
        if found is not None:
            return found
    return DEFAULT_LOCALE


def text_direction(locale: str) -> str:
    """``"rtl"`` for a language written right to left, else ``"ltr"``."""
    return "rtl" if locale in RIGHT_TO_LEFT else "ltr"
