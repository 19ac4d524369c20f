"""The ``scope`` parameter (RFC 6749 §3.3) and how a grant narrows it (docs/design.md §2).

- §3.3: ``scope = scope-token *( SP scope-token )``, ``scope-token = 1*( %x21 / %x23-5B /
  %x5D-7E )``. Order carries no meaning; duplicates are dropped, first position kept.
  Repeated spaces are tolerated (lenient parsing of a rule clients often get wrong);
  any other character outside the set raises ``InvalidScope``.
- docs/design.md "The provider's own API": the granted scope = requested ∩ the client's
  scopes ∩ (for API scopes) the user's effective scopes. The four OIDC scopes
  (``openid profile email offline_access``) are not API scopes: the user holds them
  implicitly, the client must still be allowed them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Final

from idp_common.protocol.constants import OIDC_SCOPES
from idp_common.protocol.rfc6749_errors import InvalidScope

__all__ = ["format_scope", "is_api_scope", "narrow_scope", "parse_scope"]

_SCOPE_TOKEN: Final = re.compile(r"[\x21\x23-\x5B\x5D-\x7E]+")
_OIDC: Final = frozenset(OIDC_SCOPES)
#: A longer ``scope`` parameter is refused before splitting.
MAX_SCOPE_LENGTH: Final = 4096


def parse_scope(raw: str | None) -> list[str]:
    """Split a ``scope`` value; ``None`` or blank gives ``[]``. Raises ``InvalidScope``."""
    if raw is None:
        return []
    if len(raw) > MAX_SCOPE_LENGTH:
        raise InvalidScope("scope is too long")
    values: list[str] = []
    for token in raw.split(" "):
        if not token:
            continue
        if not _SCOPE_TOKEN.fullmatch(token):
            raise InvalidScope("scope contains a character RFC 6749 does not allow")
        values.append(token)
    return list(dict.fromkeys(values))


def format_scope(scopes: Iterable[str]) -> str:
    """Space-joined, duplicates dropped, order kept (the inverse of :func:`parse_scope`)."""
    return " ".join(dict.fromkeys(scopes))


def is_api_scope(value: str) -> bool:
    """True for a permission of a resource API, false for the four OIDC scopes."""
    return value not in _OIDC


def narrow_scope(
    requested: Iterable[str],
    client_scopes: Collection[str],
    user_scopes: Collection[str] | None,
) -> list[str]:
    """requested ∩ client_scopes ∩ (for API scopes) user_scopes, in requested order.

    ``user_scopes`` is ``None`` when no person is involved (client credentials): then
    only the client's scopes bound the result.
    """
    granted: list[str] = []
    for value in dict.fromkeys(requested):
        if value not in client_scopes:
            continue
        if user_scopes is not None and is_api_scope(value) and value not in user_scopes:
            continue
        granted.append(value)
    return granted
