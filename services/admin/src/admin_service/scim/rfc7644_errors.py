"""SCIM error responses (RFC 7644 §3.12).

One exception for every SCIM failure: the HTTP ``status``, a human-readable ``detail``
(naming the attribute or the filter problem) and, for 400s, the ``scimType`` keyword of
Table 9 (``invalidFilter``, ``tooMany``, ``uniqueness``, ``mutability``, ``invalidSyntax``,
``invalidPath``, ``noTarget``, ``invalidValue``, ``invalidVers``, ``sensitive``). The
SCIM endpoints answer :meth:`ScimError.to_scim` as the body, with ``status`` as a string
(RFC 7644 §3.12: "The HTTP status code ... as a JSON string").
"""

from __future__ import annotations

from typing import Any, Final, Literal, get_args

from admin_service.scim.rfc7643_schema import MESSAGE_ERROR

__all__ = ["SCIM_TYPES", "ScimError", "ScimType"]

ScimType = Literal[
    "invalidFilter",
    "tooMany",
    "uniqueness",
    "mutability",
    "invalidSyntax",
    "invalidPath",
    "noTarget",
    "invalidValue",
    "invalidVers",
    "sensitive",
]
#: The ``scimType`` keywords of RFC 7644 §3.12, Table 9.
SCIM_TYPES: Final = frozenset(get_args(ScimType))
#: A detail built from request text is cut here, so an error body stays small.
_MAX_DETAIL: Final = 300


class ScimError(Exception):
    """A SCIM failure (RFC 7644 §3.12): ``status`` (HTTP), ``detail``, ``scim_type``."""

    def __init__(self, status: int, detail: str, scim_type: str | None = None) -> None:
        if len(detail) > _MAX_DETAIL:
            detail = detail[: _MAX_DETAIL - 1] + "…"
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.scim_type = scim_type

    def to_scim(self) -> dict[str, Any]:
        """The error body: ``{"schemas": [Error URN], "status": "400", "scimType"?, "detail"}``."""
        body: dict[str, Any] = {"schemas": [MESSAGE_ERROR], "status": str(self.status)}
        if self.scim_type is not None:
            body["scimType"] = self.scim_type
        body["detail"] = self.detail
        return body

    def __repr__(self) -> str:
        return f"ScimError({self.status!r}, {self.detail!r}, {self.scim_type!r})"
