"""``/oauth2/logout`` (GET and POST): OpenID Connect RP-Initiated Logout 1.0, contract §3.

Ends the browser's session: its refresh tokens are revoked and a ``session.ended``
outbox event is written in one transaction (the back-channel fan-out reads it later),
the session leaves Redis, the cookie is cleared, and the browser goes to the client's
registered ``post_logout_redirect_uri`` (with ``state``) or to the sign-in page's
"signed out" screen. POST is preferred: it keeps ``id_token_hint`` out of history and
Referer. A redirect URI that is not registered for the client is never followed.

Logout CSRF (docs/security.md, attack 9). By default a request without a hint ends the session
at once, as the specification this provider follows expects: any page can then sign the
person out (an accepted risk, docs/security.md). With ``SVC_LOGOUT_CONFIRMATION=true`` a
request ends the session at once only when it carries a valid ``id_token_hint`` of the
person signed in; otherwise the browser gets a "Sign out?" page
(:mod:`token_service.logout_page`), and the session ends when its form comes back by POST
with the one-time token bound to the session (``SessionStore.issue_logout_confirmation``).
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Mapping, Sequence
from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import Cookie

from idp_common.protocol.oidc_authorize import UntrustedRequest, with_query
from idp_common.protocol.oidc_id_token_hint import (
    IdTokenHint,
    InvalidIdTokenHint,
    verify_id_token_hint,
)
from idp_common.protocol.rfc6749_parameters import single_values
from idp_common.state.sessions import BrowserSession
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.storage.repos.clients import ClientRecord, get_client
from idp_common.usecases.session_end import end_sessions
from idp_common.web.caller import caller_ip, resources_of
from idp_common.web.resources import Resources
from token_service.browser import browser_parameters, error_page, redirect
from token_service.logout_page import CONFIRMATION_FIELD, LOGOUT_PARAMETERS, confirmation_page
from token_service.openapi_doc import LogoutOperation

PARAMETERS = LOGOUT_PARAMETERS


class LogoutController(Controller):
    path = "/oauth2/logout"
    tags = ["oauth2"]

    @get(
        operation_id="logout",
        summary="End the session (OIDC RP-Initiated Logout)",
        operation_class=LogoutOperation,
    )
    async def logout_get(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        return await logout(request, PARAMETERS, status=302)

    @post(
        operation_id="logoutPost",
        summary="End the session by form post (preferred)",
        status_code=303,
        operation_class=LogoutOperation,
    )
    async def logout_post(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        return await logout(request, (*PARAMETERS, CONFIRMATION_FIELD), status=303)


async def logout(
    request: Request[Any, Any, Any], names: Sequence[str], *, status: int
) -> Response[bytes]:
    try:
        params = await browser_parameters(request, names)
    except UntrustedRequest as exc:
        return error_page(f"This sign-out request was refused: {exc}.")
    if params is None:
        return error_page("The logout request must be a form post.", status=415)
    resources = resources_of(request)
    try:
        values = _single(params)
        hint = _hint_of(resources, values)
        client = await _client_of(resources, values, hint)
        target = _redirect_target(resources, client, values)
    except UntrustedRequest as exc:
        return error_page(f"This sign-out request was refused: {exc}.")
    store = resources.browser_sessions
    session = await store.get_session(request.cookies.get(resources.settings.session_cookie_name))
    if session is not None:
        confirmed = await _confirmed_by(resources, session, hint, values)
        if confirmed is None:
            token = await store.issue_logout_confirmation(session.sid)
            carried = {**values, **({"client_id": client.client_id} if client else {})}
            return confirmation_page(
                issuer_base=resources.settings.issuer_base,
                token=token,
                values=carried,
                target=target,
            )
        await _end_browser_session(request, resources, session, confirmed)
    response = redirect(target, status)
    response.cookies.append(
        Cookie(
            key=resources.settings.session_cookie_name,
            value="",
            max_age=0,
            path="/",
            httponly=True,
            samesite="lax",
            secure=resources.settings.is_prod,
        )
    )
    return response


def _single(params: Mapping[str, Sequence[str]]) -> dict[str, str]:
    values, repeated = single_values(params)
    if repeated:
        raise UntrustedRequest(f"the {repeated[0]} parameter is repeated")
    return values


def _hint_of(resources: Resources, values: Mapping[str, str]) -> IdTokenHint | None:
    """The checked ``id_token_hint``: only an ID token of ours, expired a day ago at most
    (OIDC RP-Initiated Logout §2), issued to ``client_id`` when the request names one."""
    hint = values.get("id_token_hint")
    if hint is None:
        return None
    try:
        return verify_id_token_hint(
            hint,
            resources.keys,
            issuer=resources.settings.issuer,
            now=int(time.time()),
            client_id=values.get("client_id"),
        )
    except InvalidIdTokenHint as exc:
        raise UntrustedRequest("the id_token_hint is not valid") from exc


async def _client_of(
    resources: Resources, values: Mapping[str, str], hint: IdTokenHint | None
) -> ClientRecord | None:
    client_id = hint.client_id if hint is not None else values.get("client_id")
    if client_id is None:
        return None
    if "\x00" in client_id:  # PostgreSQL text cannot hold NUL: no client has this id
        raise UntrustedRequest("the client is not registered")
    async with resources.sessions() as db:
        client = await get_client(db, client_id)
    if client is None:
        raise UntrustedRequest("the client is not registered")
    return client


def _redirect_target(
    resources: Resources, client: ClientRecord | None, values: Mapping[str, str]
) -> str:
    uri = values.get("post_logout_redirect_uri")
    if uri is None:
        return f"{resources.settings.auth_ui_url}/logged-out"
    if client is None or uri not in client.post_logout_redirect_uris:
        raise UntrustedRequest("post_logout_redirect_uri is not registered for this client")
    return with_query(uri, {"state": values.get("state")})


async def _confirmed_by(
    resources: Resources,
    session: BrowserSession,
    hint: IdTokenHint | None,
    values: Mapping[str, str],
) -> str | None:
    """Why this request may end ``session`` now (audited), or None: ask the person first."""
    if hint is not None and hmac.compare_digest(hint.subject, session.user_id):
        return "id_token_hint"
    token = values.get(CONFIRMATION_FIELD)  # only a POST carries it (GET does not read it)
    store = resources.browser_sessions
    if token is not None and await store.consume_logout_confirmation(session.sid, token):
        return "confirmation"
    if not resources.settings.logout_confirmation:
        return "not_asked"
    return None


async def _end_browser_session(
    request: Request[Any, Any, Any],
    resources: Resources,
    found: BrowserSession,
    confirmed: str,
) -> None:
    store = resources.browser_sessions
    session = await store.with_applications(found)
    async with resources.sessions.begin() as db:
        ended = await end_sessions(
            db, store, [session], reason="logout", nats_prefix=resources.settings.nats_prefix
        )
        write_audit(
            db,
            AuditEntry(
                action="session.ended",
                status_code=200,
                ip=caller_ip(request),
                actor=session.user_id,
                target_type="session",
                target=session.sid,
                detail={
                    "via": "logout",
                    "confirmed": confirmed,
                    "clients": session.clients,
                    "refresh_tokens_revoked": ended.refresh_tokens,
                },
            ),
        )
