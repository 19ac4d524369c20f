"""Reading OAuth request bodies once, into Structs (docs/style.md §2).

- Only ``application/x-www-form-urlencoded`` bodies (RFC 6749 §3.2, §4.1.3; RFC 7662 §2.1;
  RFC 7009 §2.1; RFC 6750 §2.2), UTF-8.
- A recognised parameter given twice is refused (RFC 6749 §3.2), except ``resource``
  (RFC 8707 §2) and ``audience`` (RFC 8693 §2.1) at the token endpoint; unknown parameters are
  ignored (§3.1); a parameter with an empty value is treated as omitted (§3.1): the rule
  of :mod:`idp_common.protocol.rfc6749_parameters`, shared with authorize and logout.
- The Structs name every parameter an endpoint reads; nothing below the controller reads
  the raw form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeVar
from urllib.parse import parse_qsl

import msgspec
from litestar import Request

from idp_common.protocol.rfc6749_errors import InvalidRequest
from idp_common.protocol.rfc6749_parameters import group_pairs, single_values

FORM_MEDIA_TYPE: Final = "application/x-www-form-urlencoded"
_MAX_FIELDS: Final = 64
S = TypeVar("S", bound=msgspec.Struct)


class TokenRequest(msgspec.Struct, frozen=True, kw_only=True):
    """RFC 6749 §4.1.3, §4.4.2, §6 and RFC 7636 §4.5 parameters of ``/oauth2/token``."""

    grant_type: str | None = None
    code: str | None = None
    redirect_uri: str | None = None
    code_verifier: str | None = None
    refresh_token: str | None = None
    scope: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    #: RFC 7523 §2.2: private_key_jwt, client_secret_jwt.
    client_assertion: str | None = None
    client_assertion_type: str | None = None
    #: RFC 8628 §3.4 device access token request.
    device_code: str | None = None
    #: RFC 8707 §2 (and RFC 8693 §2.1): may repeat.
    resource: list[str] = msgspec.field(default_factory=list)
    #: RFC 8693 §2.1 token exchange; ``audience`` may repeat.
    subject_token: str | None = None
    subject_token_type: str | None = None
    actor_token: str | None = None
    actor_token_type: str | None = None
    requested_token_type: str | None = None
    audience: list[str] = msgspec.field(default_factory=list)


class TokenHintRequest(msgspec.Struct, frozen=True, kw_only=True):
    """RFC 7662 §2.1 and RFC 7009 §2.1."""

    token: str | None = None
    token_type_hint: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    client_assertion: str | None = None
    client_assertion_type: str | None = None


class UserinfoForm(msgspec.Struct, frozen=True, kw_only=True):
    """RFC 6750 §2.2."""

    access_token: str | None = None


CLIENT_AUTH_FIELDS: Final = frozenset(
    {"client_id", "client_secret", "client_assertion", "client_assertion_type"}
)
#: Token endpoint parameters that may be given more than once: ``resource`` (RFC 8707 §2)
#: and ``audience`` (RFC 8693 §2.1).
REPEATABLE: Final = frozenset({"resource", "audience"})


def field_names(struct: type[msgspec.Struct]) -> frozenset[str]:
    return frozenset(struct.__struct_fields__)


def is_form(request: Request[Any, Any, Any]) -> bool:
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return media_type == FORM_MEDIA_TYPE


async def read_form(request: Request[Any, Any, Any], known: frozenset[str]) -> dict[str, str]:
    """The recognised, non-empty parameters of a form body. Raises ``InvalidRequest``."""
    if not is_form(request):
        raise InvalidRequest(f"the request body must be {FORM_MEDIA_TYPE}")
    return parse_form_body(await request.body(), known)


async def read_form_lists(
    request: Request[Any, Any, Any], known: frozenset[str], repeatable: frozenset[str]
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """:func:`read_form`, and the non-empty values of the ``repeatable`` names apart."""
    if not is_form(request):
        raise InvalidRequest(f"the request body must be {FORM_MEDIA_TYPE}")
    return parse_form_lists(await request.body(), known, repeatable)


def parse_form_body(body: bytes, known: frozenset[str]) -> dict[str, str]:
    """:func:`read_form` without the request: the fuzzer's and the property tests' entry."""
    return parse_form_lists(body, known, frozenset())[0]


def parse_form_lists(
    body: bytes, known: frozenset[str], repeatable: frozenset[str]
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """:func:`parse_form_body`, except that the ``repeatable`` names may repeat: their
    non-empty values are answered apart, in order."""
    try:
        pairs = parse_qsl(
            body.decode("utf-8"),
            keep_blank_values=True,
            errors="strict",
            max_num_fields=_MAX_FIELDS,
        )
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidRequest("the request body is not a valid form") from exc
    grouped = group_pairs(pairs, known)
    lists = {
        name: [value for value in grouped.pop(name) if value]
        for name in repeatable
        if name in grouped
    }
    form, repeated = single_values(grouped)
    if repeated:
        raise InvalidRequest(f"parameter {repeated[0]} is repeated")
    return form, {name: values for name, values in lists.items() if values}


def to_struct(
    form: Mapping[str, object], struct: type[S], allowed: frozenset[str] | None = None
) -> S:
    """Build ``struct`` from ``form``, keeping only ``allowed`` names when given."""
    data = form if allowed is None else {k: v for k, v in form.items() if k in allowed}
    return msgspec.convert(data, struct)
