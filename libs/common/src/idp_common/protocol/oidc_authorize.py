"""The authorization request (RFC 6749 §4.1.1, OIDC Core §3.1.2.1, RFC 7636, RFC 9207).

Validation happens in two stages, because where an error may go depends on it:

1. ``match_redirect_uri``: ``client_id`` names a registered client and ``redirect_uri``
   equals one of its redirect URIs exactly (no trailing-slash, query or port leniency).
   Until both hold, an error is shown to the person (``UntrustedRequest``) and nothing is
   sent to the URI.
2. ``parse_request``: every other parameter. Errors raise the RFC 6749 error classes
   (:mod:`idp_common.protocol.rfc6749_errors`), which the endpoint sends back to the (now
   trusted) redirect URI with ``state`` and ``iss``.

Parameters may not repeat (RFC 6749 §3.1, :mod:`idp_common.protocol.rfc6749_parameters`);
unknown ones are ignored. PKCE is checked by :mod:`idp_common.protocol.rfc7636_pkce`.

A pushed request (RFC 9126, :mod:`idp_common.protocol.rfc9126_par`) is validated by the
same two stages when it is pushed and again when its ``request_uri`` is used; the
``request_uri`` itself is resolved by the endpoint before stage 1, so ``parse_request``
only sees one that came in a pushed request (refused there already).

Size bounds (docs/security.md, attack 4). A request that has not signed anyone in yet may store a
sign-in challenge, so what it may carry is bounded before anything else is looked at. A
value longer than its bound is refused with ``ParameterTooLong`` (an error page naming
the parameter, the value never echoed, nothing stored) instead of being sent back to a
redirect URI that is not trusted yet. :data:`PARAMETER_BOUNDS`, in characters:

====================== ====== ==========================================================
parameter              bound  why this size
====================== ====== ==========================================================
response_type          32     ``code``
client_id              255    generated ids are short; 255 is the usual identifier bound
redirect_uri           2048   compared with the registered URIs; the common URL bound
scope                  1024   the console asks for 24 scopes in about 420 characters
state                  1024   an opaque value or a signed blob of the client's
nonce                  512    a random value (OIDC Core §3.1.2.1), or its hash
prompt                 64     ``none``, ``login``, ``consent``, ``select_account``
max_age                10     seconds, digits only
login_hint             256    an email address (at most 254) or a username
id_token_hint          4096   an ID token with profile claims; verified, never stored
code_challenge         128    S256 is 43; 128 is RFC 7636's verifier maximum
code_challenge_method  16     ``S256``
challenge              64     the provider's own challenge ids are 32
response_mode          32     ``query``
ui_locales             256    kept on the challenge: the sign-in page's language (below)
acr_values             256    the levels asked for (below); unknown values are ignored
display                32     accepted and ignored
claims                 2048   accepted and ignored
request                4096   refused (``request_not_supported``)
request_uri            2048   a pushed request's reference (RFC 9126 §4), 43 characters
dpop_jkt               64     RFC 9449 §10: a SHA-256 JWK thumbprint, 43 characters
====================== ====== ==========================================================

With these bounds a stored challenge stays under about 4 KB besides its redirect URI,
which must be one the client registered.

``ui_locales`` (OIDC Core §3.1.2.1, docs/languages.md): the well-formed language
tags among its space-separated values, in order, at most
:data:`~idp_common.protocol.rfc4647_locales.MAX_PREFERENCES`; the sign-in page shows the
first one the provider ships (:func:`~idp_common.protocol.rfc4647_locales.negotiate_ui_locale`).
Tags it does not ship, or malformed ones, are ignored, never an error (Core: "an error
SHOULD NOT result").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final
from urllib.parse import urlencode, urlsplit, urlunsplit

from idp_common.protocol.constants import (
    ACR_PHISHING_RESISTANT,
    ACR_VALUES,
    PROMPT_CONSENT,
    PROMPT_LOGIN,
    PROMPT_NONE,
    PROMPT_SELECT_ACCOUNT,
    PROMPT_VALUES,
    RESPONSE_TYPE_CODE,
)
from idp_common.protocol.rfc4647_locales import MAX_PREFERENCES
from idp_common.protocol.rfc6749_errors import (
    InvalidRequest,
    InvalidScope,
    RequestNotSupported,
    UnsupportedResponseType,
)
from idp_common.protocol.rfc6749_parameters import single_values as given_once
from idp_common.protocol.rfc6749_scope import parse_scope
from idp_common.protocol.rfc7636_pkce import requested_challenge
from idp_common.protocol.rfc9449_dpop import parse_dpop_jkt

#: The longest value each parameter may have, in characters (see the module's table).
PARAMETER_BOUNDS: Final[Mapping[str, int]] = MappingProxyType(
    {
        "response_type": 32,
        "client_id": 255,
        "redirect_uri": 2048,
        "scope": 1024,
        "state": 1024,
        "nonce": 512,
        "prompt": 64,
        "max_age": 10,
        "login_hint": 256,
        "id_token_hint": 4096,
        "code_challenge": 128,
        "code_challenge_method": 16,
        "challenge": 64,
        "response_mode": 32,
        "ui_locales": 256,
        "acr_values": 256,
        "display": 32,
        "claims": 2048,
        "request": 4096,
        "request_uri": 2048,
        "dpop_jkt": 64,
    }
)
ALL_PARAMETERS: Final = tuple(PARAMETER_BOUNDS)


class UntrustedRequest(Exception):
    """The client or redirect URI is not trusted (``/oauth2/authorize``, ``/oauth2/logout``):
    show the person an error page, redirect nowhere."""

    def __init__(self, description: str) -> None:
        super().__init__(description)
        self.description = description


class ParameterTooLong(UntrustedRequest):
    """A value longer than its bound: refused before anything is looked up or stored."""

    def __init__(self, name: str, bound: int) -> None:
        super().__init__(f"the {name} parameter is longer than {bound} characters")
        self.name = name
        self.bound = bound


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
    acr_values: tuple[str, ...] = ()
    dpop_jkt: str | None = None  # RFC 9449 §10: the code is bound to this DPoP key
    ui_locales: tuple[str, ...] = ()  # OIDC Core §3.1.2.1: the languages asked for, in order

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


def check_bounds(params: Mapping[str, Sequence[str]]) -> None:
    """Raise ``ParameterTooLong`` for the first value beyond its bound."""
    for name, bound in PARAMETER_BOUNDS.items():
        if any(len(value) > bound for value in params.get(name, ())):
            raise ParameterTooLong(name, bound)


def single_values(params: Mapping[str, Sequence[str]]) -> tuple[dict[str, str], list[str]]:
    """One value per known parameter, and the names given more than once.

    Every value is checked against its bound first (``ParameterTooLong``). A repeated
    ``client_id`` or ``redirect_uri`` raises ``UntrustedRequest`` at once (the redirect
    target itself is in doubt); the other names are reported after the redirect URI is
    trusted, with ``refuse_repeated``.
    """
    check_bounds(params)
    values, repeated = given_once({name: params.get(name, ()) for name in ALL_PARAMETERS})
    for name in ("client_id", "redirect_uri"):
        if name in repeated:
            raise UntrustedRequest(f"the {name} parameter is repeated")
    return values, repeated


def refuse_repeated(repeated: Sequence[str]) -> None:
    if repeated:
        raise InvalidRequest(f"the {repeated[0]} parameter is repeated")


def match_redirect_uri(registered: Sequence[str], given: str | None) -> str:
    """The redirect URI if it equals a registered one exactly (RFC 6749 §3.1.2.3)."""
    if not given:
        raise UntrustedRequest("redirect_uri is required")
    if given not in registered:
        raise UntrustedRequest("redirect_uri is not registered for this client")
    return given


def parse_request(
    values: Mapping[str, str],
    *,
    client_id: str,
    redirect_uri: str,
    public_client: bool,
    pkce_required: bool = False,
) -> AuthorizationRequest:
    """Validate everything after the redirect URI is trusted (raises ``OAuth2Error``).
    PKCE is required of a public client, and of any when ``pkce_required`` (FAPI 2.0)."""
    if values.get("request") or values.get("request_uri"):
        raise RequestNotSupported("request objects are not supported")
    if values.get("response_type") != RESPONSE_TYPE_CODE:
        raise UnsupportedResponseType("only response_type=code is supported")
    if values.get("response_mode", "query") != "query":
        raise InvalidRequest("only response_mode=query is supported")
    pkce = requested_challenge(
        values.get("code_challenge"),
        values.get("code_challenge_method"),
        required=public_client or pkce_required,
    )
    return AuthorizationRequest(
        client_id=client_id,
        redirect_uri=redirect_uri,
        scopes=parse_scopes(values.get("scope", "")),
        state=values.get("state"),
        nonce=_nonce(values.get("nonce")),
        prompt=parse_prompt(values.get("prompt")),
        max_age=parse_max_age(values.get("max_age")),
        login_hint=values.get("login_hint"),
        id_token_hint=values.get("id_token_hint"),
        acr_values=parse_acr_values(values.get("acr_values")),
        code_challenge=pkce[0] if pkce else None,
        code_challenge_method=pkce[1] if pkce else None,
        dpop_jkt=parse_dpop_jkt(values.get("dpop_jkt")),
        ui_locales=parse_ui_locales(values.get("ui_locales")),
    )


def _nonce(raw: str | None) -> str | None:
    """OIDC Core §3.1.2.1 ``nonce``, any string the code row can keep: PostgreSQL text
    cannot hold NUL, so one carrying it is refused rather than failing the insert."""
    if raw is not None and "\x00" in raw:
        raise InvalidRequest("nonce contains a NUL character")
    return raw


def parse_acr_values(raw: str | None) -> tuple[str, ...]:
    """OIDC Core §3.1.2.1 ``acr_values``: the levels this provider knows, in the order
    asked (others are ignored, as a voluntary claim allows). A client sends them after an
    RFC 9470 refusal that named them, so that a face alone is not offered."""
    asked = (raw or "").split(" ")
    return tuple(dict.fromkeys(value for value in asked if value in ACR_VALUES))


def parse_ui_locales(raw: str | None) -> tuple[str, ...]:
    """OIDC Core §3.1.2.1 ``ui_locales``: the language tags asked for, in order, as sent
    (only the well-formed ones, each once, at most ``MAX_PREFERENCES``; see the module)."""
    asked = (raw or "").split()
    tags = (tag for tag in asked if len(tag) <= 35 and _is_tag(tag))
    return tuple(dict.fromkeys(tags))[:MAX_PREFERENCES]


def _is_tag(value: str) -> bool:
    """A BCP 47 shaped tag (letters, digits, ``-``), whether or not the provider ships it."""
    parts = value.split("-")
    return (
        parts[0].isascii()
        and parts[0].isalpha()
        and all(0 < len(part) <= 8 and part.isascii() and part.isalnum() for part in parts)
    )


def acr_rank(acr: str) -> int:
    """The strength of a level of this provider (:data:`ACR_VALUES`, weakest first);
    -1 for one it does not know."""
    return ACR_VALUES.index(acr) if acr in ACR_VALUES else -1


def session_meets_acr(session_acr: str, acr_values: Sequence[str]) -> bool:
    """A session satisfies the request's ``acr_values`` (none asked: any session does):
    its level is at least the weakest level asked for. The levels are ordered (face, 1fa,
    2fa, phr): a client asking for two factors takes a phishing-resistant session, one
    asking for ``phr`` sends a two-factor session back to sign in."""
    if not acr_values:
        return True
    asked = [acr_rank(value) for value in acr_values if acr_rank(value) >= 0]
    return not asked or acr_rank(session_acr) >= min(asked)


def requires_phishing_resistance(acr_values: Sequence[str]) -> bool:
    """Every level the request names is ``phr``: the sign-in must include a passkey."""
    asked = [value for value in acr_values if acr_rank(value) >= 0]
    return bool(asked) and min(acr_rank(value) for value in asked) >= acr_rank(
        ACR_PHISHING_RESISTANT
    )


def parse_scopes(raw: str) -> list[str]:
    """The requested scopes (RFC 6749 §3.3, :func:`parse_scope`); at least one."""
    scopes = parse_scope(raw)
    if not scopes:
        raise InvalidScope("scope is required")
    return scopes


def parse_prompt(raw: str | None) -> frozenset[str]:
    values = frozenset(v for v in (raw or "").split(" ") if v)
    unknown = values - set(PROMPT_VALUES)
    if unknown:
        raise InvalidRequest("prompt has an unsupported value")
    if PROMPT_NONE in values and len(values) > 1:
        raise InvalidRequest("prompt=none cannot be combined with other values")
    return values


def parse_max_age(raw: str | None) -> int | None:
    if raw is None:
        return None
    if not raw.isdigit() or len(raw) > 10:
        raise InvalidRequest("max_age must be a non-negative integer")
    return int(raw)


def with_query(uri: str, params: Mapping[str, str | None]) -> str:
    """``uri`` with ``params`` appended to its query (RFC 6749 §4.1.2), None dropped."""
    parts = urlsplit(uri)
    extra = urlencode({k: v for k, v in params.items() if v is not None})
    query = f"{parts.query}&{extra}" if parts.query else extra
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))
