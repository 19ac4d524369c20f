"""Conditional GET by entity tag (RFC 9110 §8.8.3 ``ETag``, §13.1.2 ``If-None-Match``).

The JWKS is fetched by every resource server, often and mostly unchanged: with an
``ETag`` a cache (the proxy's, a client's) revalidates with ``If-None-Match`` and gets a
304 without a body. The tag is derived from the document's bytes, so every replica gives
the same tag for the same keys and a rotation changes it.
"""

from __future__ import annotations

import hashlib

from idp_common.protocol.rfc4648_base64url import base64url_encode

__all__ = ["entity_tag", "none_match"]

_WEAK_PREFIX = "W/"


def entity_tag(body: bytes) -> str:
    """A strong entity tag of ``body``: a quoted SHA-256 prefix, base64url (RFC 9110 §8.8.3)."""
    return '"' + base64url_encode(hashlib.sha256(body).digest()[:16]) + '"'


def none_match(if_none_match: str | None, tag: str) -> bool:
    """True when ``If-None-Match`` names ``tag`` (or is ``*``): answer 304 to a GET.

    Weak comparison (RFC 9110 §13.1.2: "A recipient MUST use the weak comparison function
    when comparing entity tags for If-None-Match"): ``W/"x"`` matches ``"x"``. A header
    that is absent or not a list of entity tags matches nothing.
    """
    if if_none_match is None:
        return False
    value = if_none_match.strip()
    if value == "*":
        return True
    wanted = tag.removeprefix(_WEAK_PREFIX)
    for member in value.split(","):
        candidate = member.strip().removeprefix(_WEAK_PREFIX)
        if candidate == wanted and len(candidate) >= 2 and candidate[0] == candidate[-1] == '"':
            return True
    return False
