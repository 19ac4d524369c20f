"""Pure rules of the sign-in steps: no Request, no storage (docs/style.md §2).

- :func:`needs_consent`: docs/design.md "Sign-in": consent is remembered per person and client;
  first-party clients skip it; ``prompt=consent`` (OIDC Core §3.1.2.1) always asks.
- :func:`resume_url`: where the browser goes when the challenge is done.
- :func:`error_redirect`: RFC 6749 §4.1.2.1 error response with ``iss`` (RFC 9207).
- :func:`session_cookie`: the ``Set-Cookie`` value of contract §5 "Browser session".
- :func:`origin_of`: the RFC 6454 serialised origin of a URL, to compare with ``Origin``.
- :func:`face_alone_allowed`: whether a face may replace the password for a request
  (``SVC_FACE_SIGNIN`` and the request's ``acr_values``; docs/security.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from idp_common.protocol.constants import ACR_FACE, PROMPT_CONSENT
from idp_common.state.challenges import Step

ChallengeKind = Literal["login", "consent"]
_DEFAULT_PORTS = {"http": 80, "https": 443}


def needs_consent(
    *,
    skip_consent: bool,
    requested: Iterable[str],
    consented: Iterable[str],
    prompt: Iterable[str],
) -> bool:
    if PROMPT_CONSENT in set(prompt):
        return True
    if skip_consent:
        return False
    return not set(requested) <= set(consented)


def challenge_kind(step: Step) -> ChallengeKind:
    """``consent`` while the page must ask for consent, ``login`` otherwise."""
    return "consent" if step == "consent" else "login"


def resume_url(issuer: str, challenge_id: str) -> str:
    """``{issuer}/oauth2/authorize?challenge=<id>``: authorize resumes the challenge."""
    return f"{issuer.rstrip('/')}/oauth2/authorize?challenge={quote(challenge_id, safe='')}"


def error_redirect(redirect_uri: str, *, error: str, state: str | None, issuer: str) -> str:
    """``redirect_uri`` with ``error``, ``state`` (only when sent) and ``iss`` added to the
    query it already has (RFC 6749 §3.1.2: the query component is kept)."""
    parts = urlsplit(redirect_uri)
    query = parse_qsl(parts.query, keep_blank_values=True)
    query.append(("error", error))
    if state is not None:
        query.append(("state", state))
    query.append(("iss", issuer))
    return urlunsplit(parts._replace(query=urlencode(query), fragment=""))


def face_alone_allowed(mode: str, acr_values: Iterable[str]) -> bool:
    """A face may stand in for the password: the deployment lets it
    (``SVC_FACE_SIGNIN=first_factor``) and the request asked for no ``acr_values`` or for
    ``urn:idp:acr:face`` among them (OIDC Core §3.1.2.1; RFC 9470 step-up names stronger
    levels only)."""
    levels = set(acr_values)
    return mode == "first_factor" and (not levels or ACR_FACE in levels)


def session_cookie(value: str, *, secure: bool, name: str = "svc_session") -> str:
    """``svc_session`` (or ``__Host-svc_session``): HttpOnly, SameSite=Lax, Path=/, Secure
    in production, no Domain (what the ``__Host-`` prefix demands, RFC 6265bis §4.1.3.2).

    A browser-session cookie (no Max-Age): the server ends an idle session after
    ``SESSION_IDLE_SECONDS``; the browser forgets the cookie when it closes.
    """
    attributes = [f"{name}={value}", "Path=/", "HttpOnly", "SameSite=Lax"]
    if secure:
        attributes.append("Secure")
    return "; ".join(attributes)


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` in lower case, default port dropped; None if not http(s)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"
