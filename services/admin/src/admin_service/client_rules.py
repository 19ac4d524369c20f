"""The rules of an OAuth client's settings (contract §2 "OAuth client", docs/design.md "Wire
contracts"), checked before a create and, under the client's lock, before an update
(:func:`idp_common.storage.repos.clients.update_client`).

- Redirect, post-logout and back-channel logout URIs are absolute, without a fragment, and
  ``https``; plain ``http`` only to a loopback host (``127.0.0.1``, ``[::1]``,
  ``localhost``), in every environment: a redirect over plain HTTP to another host leaks
  codes, and a development stack runs on loopback anyway.
- The back-channel logout URI is called by the provider itself, so unless the deployment
  allows it (``SVC_BACKCHANNEL_ALLOW_PRIVATE``) its host must not be a loopback, private,
  link-local or other non-global address, nor a name local by definition (``localhost``,
  ``*.local``...): :mod:`idp_common.protocol.rfc6890_special_addresses`. The dispatcher
  checks the resolved address again before it connects.
- ``grantTypes`` is a non-empty subset of ``GRANT_TYPES``; a public client cannot have
  ``client_credentials``; ``authorization_code`` needs at least one redirect URI.
- Client authentication: ``token_endpoint_auth_method`` is ``none`` exactly for a public client;
  ``private_key_jwt`` needs its public keys (``jwks`` or ``jwks_uri``, not both:
  :mod:`admin_service.client_keys`); a public client cannot exchange tokens;
  ``securityProfile: fapi2`` needs a confidential ``private_key_jwt`` client (FAPI 2.0
  Security Profile §5.3.2.1: no shared secrets); ``tokenExchangeAudiences`` are distinct
  non-empty strings.
- Browser applications: each ``allowedWebOrigins`` value is an origin as a browser sends it
  (``scheme://host[:port]``, lower-case, no default port, no path; ``https`` or loopback
  ``http``; no ``*`` nor ``null``): :func:`idp_common.protocol.fetch_cors.origin_problem`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Final
from urllib.parse import urlsplit

import httpx

from admin_service.client_keys import key_errors
from idp_common.errors import FieldError, InvalidArgument
from idp_common.protocol.constants import (
    CLIENT_AUTH_NONE,
    CLIENT_AUTH_PRIVATE_KEY_JWT,
    CLIENT_TYPE_PUBLIC,
    GRANT_TYPE_AUTHORIZATION_CODE,
    GRANT_TYPE_CLIENT_CREDENTIALS,
    GRANT_TYPE_TOKEN_EXCHANGE,
    GRANT_TYPES,
    SECURITY_PROFILE_FAPI2,
    SECURITY_PROFILES,
    TOKEN_ENDPOINT_AUTH_METHODS,
)
from idp_common.protocol.fetch_cors import MAX_ORIGINS, origin_problem
from idp_common.protocol.rfc6890_special_addresses import host_problem
from idp_common.storage.repos.client_shapes import ClientSettings

MAX_NAME_LENGTH: Final = 200
MAX_URI_LENGTH: Final = 2000
MAX_URIS: Final = 50
LOOPBACK_HOSTS: Final = frozenset({"localhost"})


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def uri_problem(uri: str) -> str | None:
    """Why ``uri`` cannot be a redirect or logout URI of a client, or None."""
    if len(uri) > MAX_URI_LENGTH:
        return f"at most {MAX_URI_LENGTH} characters"
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in uri):
        return "must not contain spaces or control characters"
    try:
        parts = urlsplit(uri)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - raises on a port that is not a number
        httpx.URL(uri).host  # noqa: B018 - as the dispatcher will read it (IDNA A-labels)
    except (ValueError, httpx.InvalidURL):
        return "not a valid URI"
    problem = None
    if not parts.scheme or not parts.netloc or not host:
        problem = "must be an absolute URI with a host"
    elif "#" in uri:
        problem = "must not contain a fragment"
    elif parts.username is not None or parts.password is not None:
        problem = "must not contain user information"
    elif not (parts.scheme == "https" or (parts.scheme == "http" and _is_loopback(host))):
        problem = "must use https (plain http only to 127.0.0.1, [::1] or localhost)"
    return problem


def _uri_list_errors(field: str, uris: Sequence[str]) -> list[FieldError]:
    if len(uris) > MAX_URIS:
        return [FieldError(field, f"at most {MAX_URIS} URIs")]
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, uri in enumerate(uris):
        problem = uri_problem(uri) or ("repeated" if uri in seen else None)
        seen.add(uri)
        if problem:
            errors.append(FieldError(f"{field}[{i}]", problem))
    return errors


def _grant_errors(client_type: str, settings: ClientSettings) -> list[FieldError]:
    grants = settings.grant_types
    if not grants:
        return [FieldError("grantTypes", "at least one grant type")]
    errors: list[FieldError] = []
    for i, grant in enumerate(grants):
        if grant not in GRANT_TYPES:
            errors.append(FieldError(f"grantTypes[{i}]", f"one of {', '.join(GRANT_TYPES)}"))
        elif grant in grants[:i]:
            errors.append(FieldError(f"grantTypes[{i}]", "repeated"))
        elif (
            grant in (GRANT_TYPE_CLIENT_CREDENTIALS, GRANT_TYPE_TOKEN_EXCHANGE)
            and client_type == CLIENT_TYPE_PUBLIC
        ):
            errors.append(FieldError(f"grantTypes[{i}]", "a public client cannot have it"))
    if GRANT_TYPE_AUTHORIZATION_CODE in grants and not settings.redirect_uris:
        errors.append(FieldError("redirectUris", "authorization_code needs a redirect URI"))
    return errors


AUTH_METHOD_FIELD: Final = "token_endpoint_auth_method"


def _auth_method_errors(client_type: str, settings: ClientSettings) -> list[FieldError]:
    method = settings.token_endpoint_auth_method
    if method is None:  # a creation without one: by type
        return []
    if method not in TOKEN_ENDPOINT_AUTH_METHODS:
        return [FieldError(AUTH_METHOD_FIELD, f"one of {', '.join(TOKEN_ENDPOINT_AUTH_METHODS)}")]
    if (method == CLIENT_AUTH_NONE) != (client_type == CLIENT_TYPE_PUBLIC):
        return [FieldError(AUTH_METHOD_FIELD, "none exactly when the client is public")]
    return []


def _profile_errors(client_type: str, settings: ClientSettings) -> list[FieldError]:
    profile = settings.security_profile
    if profile is None:
        return []
    if profile not in SECURITY_PROFILES:
        return [FieldError("securityProfile", f"null or one of {', '.join(SECURITY_PROFILES)}")]
    if profile == SECURITY_PROFILE_FAPI2 and (
        client_type == CLIENT_TYPE_PUBLIC
        or settings.token_endpoint_auth_method != CLIENT_AUTH_PRIVATE_KEY_JWT
    ):
        return [
            FieldError(
                "securityProfile",
                "fapi2 needs a confidential client with token_endpoint_auth_method private_key_jwt",
            )
        ]
    return []


def _audience_errors(audiences: Sequence[str]) -> list[FieldError]:
    if len(audiences) > MAX_URIS:
        return [FieldError("tokenExchangeAudiences", f"at most {MAX_URIS} audiences")]
    errors: list[FieldError] = []
    for i, audience in enumerate(audiences):
        if not audience.strip() or len(audience) > MAX_URI_LENGTH:
            errors.append(FieldError(f"tokenExchangeAudiences[{i}]", "a non-empty audience"))
        elif audience in audiences[:i]:
            errors.append(FieldError(f"tokenExchangeAudiences[{i}]", "repeated"))
    return errors


def _origin_errors(origins: Sequence[str]) -> list[FieldError]:
    field = "allowedWebOrigins"
    if len(origins) > MAX_ORIGINS:
        return [FieldError(field, f"at most {MAX_ORIGINS} origins")]
    errors: list[FieldError] = []
    for i, origin in enumerate(origins):
        problem = origin_problem(origin) or ("repeated" if origin in origins[:i] else None)
        if problem:
            errors.append(FieldError(f"{field}[{i}]", problem))
    return errors


def backchannel_target_problem(uri: str) -> str | None:
    """Why the provider must not POST to ``uri``'s host (see the module text), or None."""
    kind = host_problem(urlsplit(uri).hostname or "")
    if kind is None:
        return None
    return (
        f"must not point at a {kind} address: the provider calls it from its own network "
        "(allowed only with SVC_BACKCHANNEL_ALLOW_PRIVATE)"
    )


def check_settings(
    client_type: str,
    settings: ClientSettings,
    *,
    allow_private: bool = False,
    allow_private_jwks: bool = False,
) -> None:
    """Raise one ``InvalidArgument`` naming every bad field (contract §7). ``allow_private``:
    the deployment lets back-channel URIs reach non-global addresses;
    ``allow_private_jwks``: the same for ``jwks_uri`` (``SVC_CLIENT_JWKS_ALLOW_PRIVATE``)."""
    errors: list[FieldError] = []
    name = settings.name.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        errors.append(FieldError("name", f"1 to {MAX_NAME_LENGTH} characters"))
    errors += _uri_list_errors("redirectUris", settings.redirect_uris)
    errors += _uri_list_errors("postLogoutRedirectUris", settings.post_logout_redirect_uris)
    uri = settings.backchannel_logout_uri
    if uri is not None:
        problem = uri_problem(uri)
        if problem is None and not allow_private:
            problem = backchannel_target_problem(uri)
        if problem:
            errors.append(FieldError("backchannelLogoutUri", problem))
    errors += _grant_errors(client_type, settings)
    errors += _auth_method_errors(client_type, settings)
    errors += key_errors(settings, allow_private=allow_private_jwks, uri_problem=uri_problem)
    errors += _profile_errors(client_type, settings)
    errors += _audience_errors(settings.token_exchange_audiences)
    errors += _origin_errors(settings.allowed_web_origins)
    if errors:
        fields = ", ".join(e.field for e in errors)
        raise InvalidArgument(f"invalid value for: {fields}", errors=errors)
