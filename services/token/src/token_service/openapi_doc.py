"""What the OpenAPI document says about the ``/oauth2/*`` endpoints (dev only, contract §9 rule 4).

The handlers read their form or query themselves (``token_service.forms``,
``token_service.browser``), so Litestar cannot see their inputs, and their return type
(``Response[bytes]``) says nothing of the body. Each route names one of these operation
classes instead: the form fields it reads (from the Struct it decodes into), the query
parameters, and every answer it gives: the RFC 6749 §5.1 and §5.2 bodies, RFC 7662's,
the userinfo claims, the redirects and the HTML pages of the browser endpoints.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import msgspec
from litestar.enums import ParamType
from litestar.openapi.spec import (
    OpenAPIHeader,
    OpenAPIMediaType,
    OpenAPIResponse,
    Operation,
    Parameter,
    Reference,
    RequestBody,
    Schema,
)
from litestar.openapi.spec.enums import OpenAPIType

from idp_common.protocol.oidc_authorize import ALL_PARAMETERS, PARAMETER_BOUNDS
from token_service.forms import FORM_MEDIA_TYPE, TokenHintRequest, TokenRequest, UserinfoForm
from token_service.grants import GRANTS
from token_service.logout_page import CONFIRMATION_FIELD, LOGOUT_PARAMETERS

_STRING = Schema(type=OpenAPIType.STRING)
_INTEGER = Schema(type=OpenAPIType.INTEGER)
_JSON = "application/json"
Answers = dict[str, OpenAPIResponse | Reference]
_HTML = "text/html"


def _object(
    properties: dict[str, Schema], required: Sequence[str] = (), *, closed: bool = True
) -> Schema:
    return Schema(
        type=OpenAPIType.OBJECT,
        properties=dict[str, Schema | Reference](properties),
        required=list(required) or None,
        additional_properties=False if closed else None,
    )


def _strings(names: Iterable[str]) -> dict[str, Schema]:
    return {name: _STRING for name in names}


#: OIDC Core §5.3.2: a signed userinfo answer.
JWT_MEDIA_TYPE = "application/jwt"


def _json(description: str, schema: Schema) -> OpenAPIResponse:
    return OpenAPIResponse(description=description, content={_JSON: OpenAPIMediaType(schema)})


#: RFC 6749 §5.2 (also 401 with ``WWW-Authenticate``, 429 and 503 with ``Retry-After``).
OAUTH_ERROR = _object({"error": _STRING, "error_description": _STRING}, ["error"])
_TOKEN_ANSWER = _object(
    {
        "access_token": _STRING,
        "token_type": _STRING,
        "expires_in": _INTEGER,
        "scope": _STRING,
        "id_token": _STRING,
        "refresh_token": _STRING,
    },
    ["access_token", "token_type", "expires_in", "scope"],
)
_AUDIENCE = Schema(one_of=[_STRING, Schema(type=OpenAPIType.ARRAY, items=_STRING)])
_INTROSPECTION_ANSWER = _object(
    {
        "active": Schema(type=OpenAPIType.BOOLEAN),
        "token_type": _STRING,
        **_strings(("scope", "client_id", "sub", "iss", "jti", "acr", "sid")),
        "aud": _AUDIENCE,
        **{name: _INTEGER for name in ("exp", "iat", "auth_time")},
        "amr": Schema(type=OpenAPIType.ARRAY, items=_STRING),
    },
    ["active"],
)
# Mapped profile fields add claims of the administrator's choosing (any JSON value).
_USERINFO_ANSWER = _object(
    {
        **_strings(("sub", "email", "name", "preferred_username", "picture")),
        "email_verified": Schema(type=OpenAPIType.BOOLEAN),
        "updated_at": _INTEGER,
    },
    ["sub"],
    closed=False,
)


def _errors(*statuses: int) -> Answers:
    return {str(status): _json("RFC 6749 §5.2 error", OAUTH_ERROR) for status in statuses}


def _form(fields: Iterable[str], required: Sequence[str] = (), **special: Schema) -> RequestBody:
    """A form of string fields (unknown fields are ignored, RFC 6749 §3.1); a missing
    ``required`` field is answered 400 ``invalid_request``."""
    schema = _object({**_strings(fields), **special}, required, closed=False)
    return RequestBody(content={FORM_MEDIA_TYPE: OpenAPIMediaType(schema)}, required=True)


def _struct_fields(struct: type[msgspec.Struct]) -> tuple[str, ...]:
    return struct.__struct_fields__


def _grant_form(grant_type: str, required: Sequence[str]) -> Schema:
    fields = _strings(_struct_fields(TokenRequest))
    fields["grant_type"] = Schema(const=grant_type)
    return _object(fields, ["grant_type", *required], closed=False)


#: What each grant needs besides client authentication (RFC 6749 §4.1.3, §6, §4.4.2);
#: a missing field, or another grant_type, is answered 400 (§5.2).
_GRANT_FIELDS: dict[str, tuple[str, ...]] = {
    "authorization_code": ("code", "redirect_uri"),
    "refresh_token": ("refresh_token",),
    "client_credentials": (),
    "urn:ietf:params:oauth:grant-type:device_code": ("device_code",),  # RFC 8628 §3.4
    # RFC 8693 §2.1 (``audience`` and ``resource`` may repeat: RFC 8707 §2)
    "urn:ietf:params:oauth:grant-type:token-exchange": ("subject_token", "subject_token_type"),
}
_TOKEN_FORM = Schema(one_of=[_grant_form(g, _GRANT_FIELDS.get(g, ())) for g in sorted(GRANTS)])


def _page(description: str) -> OpenAPIResponse:
    return OpenAPIResponse(description=description, content={_HTML: OpenAPIMediaType(_STRING)})


def _redirect(description: str) -> OpenAPIResponse:
    location = OpenAPIHeader(schema=_STRING, required=True)
    return OpenAPIResponse(description=description, headers={"Location": location})


_PROTOCOL_ERRORS = (400, 401, 403, 404, 405, 413, 415, 429, 503)


#: RFC 9449 §4.1: the one request header carrying a DPoP proof (docs/oauth/dpop.md).
def _dpop_header() -> Parameter:
    return Parameter(
        name="DPoP",
        param_in=ParamType.HEADER,
        schema=_STRING,
        required=False,
        description="RFC 9449 DPoP proof (a `dpop+jwt`): binds the token to its key",
    )


@dataclass
class TokenOperation(Operation):
    def __post_init__(self) -> None:
        self.parameters = [_dpop_header()]
        self.request_body = RequestBody(
            content={FORM_MEDIA_TYPE: OpenAPIMediaType(_TOKEN_FORM)}, required=True
        )
        self.responses = {
            "200": _json("RFC 6749 §5.1 access token response", _TOKEN_ANSWER),
            **_errors(*_PROTOCOL_ERRORS),
        }


@dataclass
class IntrospectionOperation(Operation):
    def __post_init__(self) -> None:
        self.request_body = _form(_struct_fields(TokenHintRequest), ["token"])
        self.responses = {
            "200": _json("RFC 7662 §2.2 introspection response", _INTROSPECTION_ANSWER),
            **_errors(*_PROTOCOL_ERRORS),
        }


@dataclass
class RevocationOperation(Operation):
    def __post_init__(self) -> None:
        self.request_body = _form(_struct_fields(TokenHintRequest), ["token"])
        self.responses = {
            "200": OpenAPIResponse(description="RFC 7009 §2.2: revoked, or nothing to revoke"),
            **_errors(*_PROTOCOL_ERRORS),
        }


#: RFC 8628 §3.2.
_DEVICE_ANSWER = _object(
    {
        **_strings(("device_code", "user_code", "verification_uri", "verification_uri_complete")),
        "expires_in": _INTEGER,
        "interval": _INTEGER,
    },
    ["device_code", "user_code", "verification_uri", "expires_in"],
)
#: RFC 8628 §3.1 and the client's credentials (RFC 6749 §2.3, RFC 7523 §2.2).
_DEVICE_FIELDS = (
    "client_id",
    "client_secret",
    "client_assertion",
    "client_assertion_type",
    "scope",
)


@dataclass
class DeviceAuthorizationOperation(Operation):
    def __post_init__(self) -> None:
        self.request_body = _form(_DEVICE_FIELDS)
        self.responses = {
            "200": _json("RFC 8628 §3.2 device authorization response", _DEVICE_ANSWER),
            **_errors(*_PROTOCOL_ERRORS),
        }


#: RFC 9126 §2.2.
_PAR_ANSWER = _object(
    {"request_uri": _STRING, "expires_in": _INTEGER}, ["request_uri", "expires_in"]
)
#: RFC 9126 §2.1: the authorization request's parameters and the client's credentials.
_PAR_FIELDS = (
    *(name for name in ALL_PARAMETERS if name not in {"challenge", "request_uri"}),
    "resource",
    "client_secret",
    "client_assertion",
    "client_assertion_type",
)


@dataclass
class PushedAuthorizationOperation(Operation):
    def __post_init__(self) -> None:
        self.request_body = _form(_PAR_FIELDS, ["response_type", "redirect_uri", "scope"])
        self.responses = {
            "201": _json("RFC 9126 §2.2 pushed authorization response", _PAR_ANSWER),
            **_errors(*_PROTOCOL_ERRORS),
        }


@dataclass
class UserinfoOperation(Operation):
    """GET reads only ``Authorization``; POST may carry the token as a form field."""

    def __post_init__(self) -> None:
        self.parameters = [_dpop_header()]  # with `Authorization: DPoP <token>`
        if self.operation_id == "userinfoPost":
            body = _form(_struct_fields(UserinfoForm))
            self.request_body = RequestBody(content=body.content, required=False)
        answer = _json(
            "OIDC Core §5.3.2 claims: JSON, or a JWT (`application/jwt`, with `iss` and `aud`) "
            "when the client registered `userinfo_signed_response_alg`",
            _USERINFO_ANSWER,
        )
        if answer.content is not None:
            answer.content[JWT_MEDIA_TYPE] = OpenAPIMediaType(_STRING)
        self.responses = {"200": answer, **_errors(*_PROTOCOL_ERRORS)}


def _browser_responses(success: str, status: str, *, page: bool) -> Answers:
    answers: Answers = {
        status: _redirect(success),
        "400": _page("The request cannot be sent back to a client: a page says why"),
        "415": _page("A POST that is not a form"),
        "429": _page("Too many sign-in requests from this address (Retry-After)"),
        **_errors(503),
    }
    if page:
        answers["200"] = _page("The 'Sign out?' page (SVC_LOGOUT_CONFIRMATION)")
    return answers


def _bounded(name: str) -> Schema:
    """An authorization parameter past its bound is refused with a 400 page."""
    bound = PARAMETER_BOUNDS.get(name)
    return _STRING if bound is None else Schema(type=OpenAPIType.STRING, max_length=bound)


def _browser_operation(
    operation: Operation, names: Sequence[str], *, logout: bool, required: Sequence[str] = ()
) -> None:
    """GET reads the query and redirects with 302; POST reads a form and answers 303."""
    if operation.operation_id in ("authorize", "logout"):
        status = "302"
        operation.parameters = [
            Parameter(
                name=name,
                param_in=ParamType.QUERY,
                schema=_bounded(name),
                required=name in required,
            )
            for name in names
        ]
    else:
        status = "303"
        fields = {name: _bounded(name) for name in names}
        form = OpenAPIMediaType(_object(fields, required, closed=False))
        operation.request_body = RequestBody(content={FORM_MEDIA_TYPE: form}, required=False)
    success = "To the sign-out target" if logout else "To the client, or to the sign-in page"
    operation.responses = _browser_responses(success, status, page=logout)


#: OIDC Core §3.1.2.1. The sign-in page's return (``?challenge=`` alone, resuming a
#: request this browser started) is not what a client sends: the document leaves it out.
_AUTHORIZE_REQUIRED = ("response_type", "client_id", "redirect_uri", "scope")


@dataclass
class AuthorizeOperation(Operation):
    def __post_init__(self) -> None:
        _browser_operation(self, ALL_PARAMETERS, logout=False, required=_AUTHORIZE_REQUIRED)


@dataclass
class LogoutOperation(Operation):
    def __post_init__(self) -> None:
        names: tuple[str, ...] = LOGOUT_PARAMETERS
        if self.operation_id == "logoutPost":
            names = (*names, CONFIRMATION_FIELD)
        _browser_operation(self, names, logout=True)
