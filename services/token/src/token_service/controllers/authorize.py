"""``/oauth2/authorize`` (GET and POST): RFC 6749 §4.1, OIDC Core §3.1.2, RFC 9207.

With a usable browser session and consent already given, a code is issued at once.
Otherwise a sign-in challenge is stored and the browser goes to the hosted sign-in page;
when the sign-in API has completed the challenge, the page sends the browser back here
with ``?challenge=<id>`` and the code is issued then (docs/design.md "Sign-in").

``prompt=none`` never shows anything, and when it refuses it writes nothing anywhere.

A client an administrator disabled is an unknown ``client_id`` here (the error page, never
a redirect to its redirect URI), also when it was disabled during the sign-in
(``TokenContext.get_client``).

A pushed request (RFC 9126 §4, docs/oauth/par.md): ``?client_id=...&request_uri=...`` takes
the request the client pushed to ``/oauth2/par`` out of Redis (used once: GETDEL) and goes on
with its parameters as if they had been in the query; the query's other parameters are
ignored. The parameters then travel in the sign-in challenge like any request's, so the
return from the sign-in page needs the ``request_uri`` no more, and a second use of it (a
reload, a replay after the code was issued) is refused with an error page naming
``invalid_request_uri``: no redirect URI is trusted at that point. A client that must push
(``require_pushed_authorization_requests``, or the FAPI 2.0 profile) is refused
``invalid_request`` at its redirect URI when it does not.

``resource`` (RFC 8707 §2) may repeat (each value at most 2048 characters, at most 10): it
narrows the requested scope to the named APIs' before anything is stored or shown
(``token_service.resource_indicators.narrow_request``); a bad one is ``invalid_target`` at
the redirect URI.

A request that would store a challenge is bounded (docs/security.md, attack 4): every parameter
has a size bound (``idp_common.protocol.oidc_authorize.PARAMETER_BOUNDS``; beyond it a
400 page names the parameter), an address may start ``SVC_CHALLENGE_PER_IP`` challenges
a minute (then a 429 page with ``Retry-After``) and hold at most 50 live ones
(``idp_common.state.challenge_quota``: the oldest gives way). A code issued from a live session
and ``prompt=none`` store no challenge and are not counted.
"""

from __future__ import annotations

import math
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from litestar import Controller, Request, Response, get, post

from idp_common.protocol.caller_address import rate_limit_address
from idp_common.protocol.oidc_authorize import (
    ALL_PARAMETERS,
    AuthorizationRequest,
    UntrustedRequest,
    refuse_repeated,
    session_meets_acr,
    single_values,
    with_query,
)
from idp_common.protocol.oidc_id_token_hint import InvalidIdTokenHint, verify_id_token_hint
from idp_common.protocol.rfc6749_errors import (
    ConsentRequired,
    InvalidRequest,
    InvalidScope,
    LoginRequired,
    OAuth2Error,
)
from idp_common.protocol.rfc6749_scope import narrow_scope
from idp_common.protocol.rfc9126_par import PushedRequest
from idp_common.state.challenges import Challenge
from idp_common.state.sessions import BrowserSession
from idp_common.storage.repos.clients import ClientRecord
from idp_common.storage.repos.codes import create_authorization_code
from idp_common.storage.repos.users import effective_scopes, get_user
from idp_common.web.caller import caller_ip, resources_of
from idp_common.web.resources import Resources
from token_service.authorization_request import client_request, trusted_redirect_uri
from token_service.browser import browser_parameters, error_page, error_redirect, redirect
from token_service.context import token_context
from token_service.limits import challenge_retry_after
from token_service.openapi_doc import AuthorizeOperation
from token_service.protocol.fapi2_security_profile import code_lifetime
from token_service.protocol.rfc8414_metadata import AUTHORIZATION_PATH
from token_service.protocol.rfc8707_resource import RESOURCE
from token_service.repos.people import AuthorizeView, authorize_view
from token_service.resource_indicators import narrow_request
from token_service.state.pushed_requests import PushedRequests


class AuthorizeController(Controller):
    path = AUTHORIZATION_PATH
    tags = ["oauth2"]

    @get(
        operation_id="authorize",
        summary="Start an authorization request (RFC 6749 §4.1.1)",
        operation_class=AuthorizeOperation,
    )
    async def authorize_get(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        return await authorize_by_get(request)

    @post(
        operation_id="authorizePost",
        summary="Authorization request by form post (OIDC Core §3.1.2.1)",
        status_code=303,
        operation_class=AuthorizeOperation,
    )
    async def authorize_post(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        return await authorize(request, status=303)


async def authorize_by_get(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The GET endpoint, whichever transport carries it (``token_service.lean``)."""
    return await authorize(request, status=302)


async def authorize(request: Request[Any, Any, Any], *, status: int) -> Response[bytes]:
    try:
        params = await browser_parameters(request, (*ALL_PARAMETERS, RESOURCE))
    except UntrustedRequest as exc:
        return error_page(f"This sign-in request was refused: {exc.description}.")
    if params is None:
        return error_page("The authorization request must be a form post.", status=415)
    resources = resources_of(request)
    try:
        values, repeated = single_values(params)
        if "challenge" in values and not repeated:
            return await resume(request, resources, values["challenge"], status)
        client = await token_context(request).get_client(values.get("client_id", ""))
        if client is None:
            raise UntrustedRequest("the client_id is not a registered client")
        pushed, targets = "request_uri" in values, params[RESOURCE]
        if pushed:  # RFC 9126 §4: the pushed parameters, the query's others ignored
            stored = await take_pushed(resources, client, values["request_uri"])
            values, repeated, targets = stored.parameters, [], stored.resources
        redirect_uri = trusted_redirect_uri(client, values)
    except UntrustedRequest as exc:
        return error_page(f"This sign-in request was refused: {exc.description}.")
    state = values.get("state") if "state" not in repeated else None
    try:
        refuse_repeated(repeated)
        req = client_request(client, values, redirect_uri, pushed=pushed)
        req = await narrow_request(token_context(request), client, req, targets)  # RFC 8707
        return await decide(request, resources, client, req, status)
    except OAuth2Error as exc:
        issuer = resources.settings.issuer
        return error_redirect(redirect_uri, exc, state=state, issuer=issuer, status=status)


async def take_pushed(
    resources: Resources, client: ClientRecord, request_uri: str
) -> PushedRequest:
    """The request ``client`` pushed under ``request_uri``, spent now (RFC 9126 §4);
    ``UntrustedRequest`` naming ``invalid_request_uri`` when there is none."""
    store = PushedRequests(resources.redis, resources.settings.redis_prefix)
    stored = await store.take(client.client_id, request_uri)
    if stored is None:
        raise UntrustedRequest(
            "the request_uri is unknown, expired, already used or not this application's "
            "(invalid_request_uri)"
        )
    return stored


async def decide(
    request: Request[Any, Any, Any],
    resources: Resources,
    client: ClientRecord,
    req: AuthorizationRequest,
    status: int,
) -> Response[bytes]:
    """Issue a code now, or send the person to sign in or consent (writes nothing when
    ``prompt=none`` refuses)."""
    now = int(time.time())
    hinted = hinted_subject(resources, req, client.client_id, now)
    store = resources.browser_sessions
    session = await store.get_session(request.cookies.get(resources.settings.session_cookie_name))
    usable = (
        session is not None
        and not req.forces_login
        and (req.max_age is None or now - session.auth_time <= req.max_age)
        and (hinted is None or hinted == session.user_id)
        and session_meets_acr(session.acr, req.acr_values)
    )
    user_id = _user_id(session.user_id) if usable and session else None
    view = await authorize_view(resources.hot, user_id, client.pk) if user_id else None
    if session is None or view is None or not _still_signed_in(view, session.auth_time, req):
        if req.no_interaction:
            raise LoginRequired("the person must sign in")
        return await to_sign_in(request, resources, req, None, status)
    person, consented, _ = view
    granted = narrow_scope(req.scopes, client.scopes, set(person.scopes))
    if not granted:
        raise InvalidScope("none of the requested scopes may be granted")
    if not client.skip_consent and (req.forces_consent or not set(granted) <= consented):
        if req.no_interaction:
            raise ConsentRequired("the person must approve this application")
        return await to_sign_in(request, resources, req, session, status)
    return await issue_code(resources, client, req, session, granted, status)


def _still_signed_in(view: AuthorizeView, auth_time: int, req: AuthorizationRequest) -> bool:
    """The session's sign-in still counts: the person is enabled, and when the client asks
    for a recent one (``max_age``) it is not older than their last credential change (a
    session kept while its person removed a factor signs in again to step up)."""
    if view.person.claims.user.disabled:
        return False
    changed = view.credentials_changed_at
    return req.max_age is None or changed is None or auth_time >= math.floor(changed)


def _user_id(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def hinted_subject(
    resources: Resources, req: AuthorizationRequest, client_id: str, now: int
) -> str | None:
    """The ``sub`` of a valid ``id_token_hint`` issued to this client, if one was sent.

    Only an ID token is a hint: an access or logout token is refused, and so is an ID
    token that expired more than a day ago (``idp_common.protocol.oidc_id_token_hint``).
    """
    if req.id_token_hint is None:
        return None
    try:
        hint = verify_id_token_hint(
            req.id_token_hint,
            resources.keys,
            issuer=resources.settings.issuer,
            now=now,
            client_id=client_id,
        )
    except InvalidIdTokenHint as exc:
        raise InvalidRequest("id_token_hint is not valid") from exc
    return hint.subject


async def to_sign_in(
    request: Request[Any, Any, Any],
    resources: Resources,
    req: AuthorizationRequest,
    session: BrowserSession | None,
    status: int,
) -> Response[bytes]:
    """Store a challenge and send the browser to the sign-in page, within the address's
    per-minute limit and live-challenge bound (see the module)."""
    ip = caller_ip(request)
    retry_after = await challenge_retry_after(resources, ip)
    if retry_after is not None:
        return error_page(
            "Too many sign-in requests came from your network. "
            "Wait a minute, then go back to the application and try again.",
            status=429,
            headers={"Retry-After": str(retry_after)},
        )
    challenge = Challenge(
        id="",
        client_id=req.client_id,
        redirect_uri=req.redirect_uri,
        scopes=req.scopes,
        state=req.state,
        nonce=req.nonce,
        code_challenge=req.code_challenge,
        code_challenge_method=req.code_challenge_method,
        prompt=sorted(req.prompt),
        max_age=req.max_age,
        login_hint=req.login_hint,
        acr_values=list(req.acr_values),
        dpop_jkt=req.dpop_jkt,
        ui_locales=list(req.ui_locales),
    )
    if session is not None:  # signed in already: only consent is missing
        challenge.step = "consent"
        challenge.user_id = session.user_id
        challenge.auth_time = session.auth_time
        challenge.amr = list(session.amr)
        challenge.acr = session.acr
        challenge.session_sid = session.sid
    await resources.browser_sessions.save_challenge(challenge)
    # An IPv6 caller holds a /64: its live challenges are bounded together, as its limits.
    await token_context(request).challenge_quota.record(rate_limit_address(ip), challenge.id)
    return redirect(f"{resources.settings.auth_ui_url}/login?challenge={challenge.id}", status)


async def resume(
    request: Request[Any, Any, Any], resources: Resources, challenge_id: str, status: int
) -> Response[bytes]:
    """Finish a request whose challenge the sign-in API completed."""
    store = resources.browser_sessions
    challenge = await store.get_challenge(challenge_id)
    if challenge is None or challenge.step != "done":
        return error_page(
            "This sign-in request has expired or is not complete. "
            "Go back to the application and start again."
        )
    session = await store.get_session(request.cookies.get(resources.settings.session_cookie_name))
    owner = (challenge.session_sid, challenge.user_id)
    if session is None or (session.sid, session.user_id) != owner:
        return error_page("This sign-in request belongs to another browser session.")
    if await store.consume_challenge(challenge_id) is None:  # a concurrent resume won
        return error_page("This sign-in request was already used.")
    # Deleted or disabled since the sign-in began: the same page for both.
    client = await token_context(request).get_client(challenge.client_id)
    async with resources.sessions() as db:
        user = await get_user(db, session.user_id)
        if client is None or challenge.redirect_uri not in client.redirect_uris or user is None:
            return error_page("The application or account no longer exists.")
        granted = narrow_scope(challenge.scopes, client.scopes, await effective_scopes(db, user.id))
    req = AuthorizationRequest(
        client_id=client.client_id,
        redirect_uri=challenge.redirect_uri,
        scopes=challenge.scopes,
        state=challenge.state,
        nonce=challenge.nonce,
        code_challenge=challenge.code_challenge,
        code_challenge_method=challenge.code_challenge_method,
        dpop_jkt=challenge.dpop_jkt,
    )
    if not granted:
        refused = InvalidScope("none of the scopes may be granted")
        issuer = resources.settings.issuer
        return error_redirect(
            req.redirect_uri, refused, state=req.state, issuer=issuer, status=status
        )
    return await issue_code(resources, client, req, session, granted, status)


async def issue_code(
    resources: Resources,
    client: ClientRecord,
    req: AuthorizationRequest,
    session: BrowserSession,
    granted: list[str],
    status: int,
) -> Response[bytes]:
    code = await create_authorization_code(
        resources.hot,
        now=datetime.now(UTC),
        client_pk=client.pk,
        user_id=uuid.UUID(session.user_id),
        redirect_uri=req.redirect_uri,
        scope=" ".join(granted),
        nonce=req.nonce,
        code_challenge=req.code_challenge,
        code_challenge_method=req.code_challenge_method,
        session_sid=session.sid,
        auth_time=datetime.fromtimestamp(session.auth_time, UTC),
        acr=session.acr,
        amr=list(session.amr),
        lifetime_seconds=code_lifetime(fapi2=client.is_fapi2),
        dpop_jkt=req.dpop_jkt,
    )
    await resources.browser_sessions.touch(session, client_id=client.client_id)
    issued = {"code": code, "state": req.state, "iss": resources.settings.issuer}
    return redirect(with_query(req.redirect_uri, issued), status)
