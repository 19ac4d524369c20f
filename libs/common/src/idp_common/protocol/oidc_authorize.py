"""The authorization request (RFC 6749 §4.1.1, OIDC Core §3.1.2.1, RFC 7636, RFC 9207).

Validation happens in two stages, because where an error may go depends on it:

1. ``trusted_redirect``: ``client_id`` names a registered client and ``redirect_uri``
   equals one of its redirect URIs exactly (no trailing-slash, query or port leniency).
   Until both hold, an error is shown to the person (``UntrustedRequest``) and nothing is
   sent to the URI.
2. ``parse_request``: every other parameter. Errors raise ``AuthorizeError``, which the
   endpoint sends back to the (now trusted) redirect URI with ``state`` and ``iss``.

Parameters may not repeat (RFC 6749 §3.1); unknown ones are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit, urlunsplit

from idp_common.protocol.constants import (
    OIDC_SCOPES,
    PROMPT_CONSENT,
    PROMPT_LOGIN,
    PROMPT_NONE,
    PROMPT_SELECT_ACCOUNT,
    PROMPT_VALUES,
    RESPONSE_TYPE_CODE,
)

PKCE_METHOD_S256 = "S256"
_PKCE_CHALLENGE = re.compile(r"^[A-Za-z0-9_-]{43}$")
_SCOPE_TOKEN = re.compile(r"^[\x21\x23-\x5b\x5d-\x7e]+$")  # RFC 6749 §3.3 scope-token
MAX_PARAMETER_LENGTH = 2048
ALL_PARAMETERS = (
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "nonce",
    "prompt",
    "max_age",
    "login_hint",
    "id_token_hint",
    "code_challenge",
    "code_challenge_method",
    "challenge",
    "response_mode",
    "ui_locales",
    "acr_values",
    "display",
    "claims",
    "request",
    "request_uri",
)


class UntrustedRequest(Exception):
    """Client or redirect URI not trusted: show the person an error, redirect nowhere."""

    def __init__(self, description: str) -> None:
        super().__init__(description)
        self.description = description


class AuthorizeError(Exception):
    """An error for the client, sent to its redirect URI (RFC 6749 §4.1.2.1)."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error
        self.description = description


@dataclass(frozen=True)
class AuthorizationRequest:
    client_id: str
    redirect_uri: str
    scopes: list[str]
    state: str | None = None
    nonce: str | None = None
    prompt: frozenset[str] = field(default_factory=frozenset)
    max_age: int | None = None
    login_hint: str | None = None
    id_token_hint: str | None = None
    code_challenge: str | None = None
    code_challenge_method: str | None = None

    @property
    def forces_login(self) -> bool:
        """``prompt=login`` or ``select_account`` (treated as login), or ``max_age=0``."""
        return bool(self.prompt & {PROMPT_LOGIN, PROMPT_SELECT_ACCOUNT}) or self.max_age == 0

    @property
    def no_interaction(self) -> bool:
        return PROMPT_NONE in self.prompt

    @property
    def forces_consent(self) -> bool:
        return PROMPT_CONSENT in self.prompt


def single_values(params: Mapping[str, Sequence[str]]) -> tuple[dict[str, str], list[str]]:
    """One value per known parameter, and the names given more than once (or too long).

    A bad ``client_id`` or ``redirect_uri`` raises ``UntrustedRequest`` at once (the
    redirect target itself is in doubt); the other names are reported after the
    redirect URI is trusted, with ``refuse_repeated``.
    """
    values: dict[str, str] = {}
    repeated: list[str] = []
    for name in ALL_PARAMETERS:
        given = [v for v in params.get(name, ()) if v != ""]
        if len(given) > 1 or any(len(v) > MAX_PARAMETER_LENGTH for v in given):
            if name in ("client_id", "redirect_uri"):
                raise UntrustedRequest(f"the {name} parameter is repeated or too long")
            repeated.append(name)
        elif given:
            values[name] = given[0]
    return values, repeated


def refuse_repeated(repeated: Sequence[str]) -> None:
    if repeated:
        raise AuthorizeError(
            "invalid_request", f"the {repeated[0]} parameter is repeated or too long"
        )


def match_redirect_uri(registered: Sequence[str], given: str | None) -> str:
    """The redirect URI if it equals a registered one exactly (RFC 6749 §3.1.2.3)."""
    if not given:
        raise UntrustedRequest("redirect_uri is required")
    if given not in registered:
        raise UntrustedRequest("redirect_uri is not registered for this client")
    return given


def parse_request(
    values: Mapping[str, str], *, client_id: str, redirect_uri: str, public_client: bool
) -> AuthorizationRequest:
    """Validate everything after the redirect URI is trusted."""
    if values.get("request") or values.get("request_uri"):
        raise AuthorizeError("request_not_supported", "request objects are not supported")
    if values.get("response_type") != RESPONSE_TYPE_CODE:
        raise AuthorizeError("unsupported_response_type", "only response_type=code is supported")
    if values.get("response_mode", "query") != "query":
        raise AuthorizeError("invalid_request", "only response_mode=query is supported")
    return AuthorizationRequest(
        client_id=client_id,
        redirect_uri=redirect_uri,
        scopes=parse_scopes(values.get("scope", "")),
        state=values.get("state"),
        nonce=values.get("nonce"),
        prompt=parse_prompt(values.get("prompt")),
        max_age=parse_max_age(values.get("max_age")),
        login_hint=values.get("login_hint"),
        id_token_hint=values.get("id_token_hint"),
        **parse_pkce(values, public_client=public_client),
    )


def parse_scopes(raw: str) -> list[str]:
    scopes: list[str] = []
    for token in raw.split(" "):
        if not token:
            continue
        if not _SCOPE_TOKEN.match(token):
            raise AuthorizeError("invalid_scope", "a scope value has characters not allowed")
        if token not in scopes:
            scopes.append(token)
    if not scopes:
        raise AuthorizeError("invalid_scope", "scope is required")
    return scopes


def parse_prompt(raw: str | None) -> frozenset[str]:
    values = frozenset(v for v in (raw or "").split(" ") if v)
    unknown = values - set(PROMPT_VALUES)
    if unknown:
        raise AuthorizeError("invalid_request", "prompt has an unsupported value")
    if PROMPT_NONE in values and len(values) > 1:
        raise AuthorizeError("invalid_request", "prompt=none cannot be combined with other values")
    return values


def parse_max_age(raw: str | None) -> int | None:
    if raw is None:
        return None
    if not raw.isdigit() or len(raw) > 10:
        raise AuthorizeError("invalid_request", "max_age must be a non-negative integer")
    return int(raw)


def parse_pkce(values: Mapping[str, str], *, public_client: bool) -> dict[str, str | None]:
    challenge = values.get("code_challenge")
    method = values.get("code_challenge_method")
    if challenge is None:
        if public_client:
            raise AuthorizeError("invalid_request", "PKCE code_challenge is required")
        if method is not None:
            raise AuthorizeError("invalid_request", "code_challenge_method without code_challenge")
        return {"code_challenge": None, "code_challenge_method": None}
    if method != PKCE_METHOD_S256:
        raise AuthorizeError("invalid_request", "code_challenge_method must be S256")
    if not _PKCE_CHALLENGE.match(challenge):
        raise AuthorizeError("invalid_request", "code_challenge is not a base64url SHA-256")
    return {"code_challenge": challenge, "code_challenge_method": PKCE_METHOD_S256}


def grant_scopes(
    requested: Sequence[str], client_scopes: frozenset[str], user_scopes: set[str]
) -> list[str]:
    """requested ∩ client's scopes ∩ (for API scopes) the user's effective scopes."""
    return [s for s in requested if s in client_scopes and (s in OIDC_SCOPES or s in user_scopes)]


def with_query(uri: str, params: Mapping[str, str | None]) -> str:
    """``uri`` with ``params`` appended to its query (RFC 6749 §4.1.2), None dropped."""
    parts = urlsplit(uri)
    extra = urlencode({k: v for k, v in params.items() if v is not None})
    query = f"{parts.query}&{extra}" if parts.query else extra
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))
