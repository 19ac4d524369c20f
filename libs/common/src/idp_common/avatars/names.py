"""Object names of stored photos: ``<32 hex digits>.<png|jpg|webp>``.

A name is random (``uuid4``) and never reused, so the public URL cannot be guessed and
an answer for it may be cached for good. Names from a URL are checked against the exact
shape before anything reaches the store.
"""

from __future__ import annotations

import re
import uuid
from typing import Final

#: Public path of a photo under the issuer (the token service releases
#: ``{issuer}{AVATAR_PATH}{name}`` as ``picture``).
AVATAR_PATH: Final = "/media/avatars/"

CONTENT_TYPES: Final = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}
_NAME: Final = re.compile(r"^[0-9a-f]{32}\.(png|jpg|webp)$")


def new_name(extension: str) -> str:
    if extension not in CONTENT_TYPES:
        raise ValueError(f"no photo format with extension {extension!r}")
    return f"{uuid.uuid4().hex}.{extension}"


def is_valid_name(name: str) -> bool:
    return _NAME.fullmatch(name) is not None


def content_type_of(name: str) -> str:
    """The media type of a valid name (its extension)."""
    return CONTENT_TYPES[name.rsplit(".", 1)[1]]


def public_url(issuer_base: str, name: str) -> str:
    return f"{issuer_base}{AVATAR_PATH}{name}"
