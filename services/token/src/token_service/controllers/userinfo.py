"""``GET`` and ``POST /oauth2/userinfo`` (OIDC Core §5.3, RFC 6750 §2).

The access token comes in ``Authorization: Bearer`` or, for POST, as the form field
``access_token`` (RFC 6750 §2.2); both at once is ``invalid_request`` (§2). It must be a
valid access token of this provider for its API audience that still stands (not
revoked, its session not ended, its person and client still there:
:mod:`idp_common.web.token_standing`), and carry ``openid``.

- no token: 401, ``WWW-Authenticate: Bearer realm="idp", DPoP algs="..."`` (no error
  code, §3.1; RFC 9449 §7.1);
- invalid, expired token, or one that no longer stands: 401 ``invalid_token``;
- a valid token without ``openid``: 403 ``insufficient_scope`` (RFC 6750 §3.1;
  docs/decisions.md).

DPoP (RFC 9449 §7): ``Authorization: DPoP <token>`` with a ``DPoP`` proof of the key the
token is bound to (``cnf.jkt``), for this method and public URL, carrying the token's
``ath``. A bound token sent as ``Bearer`` (or in the form), or an unbound one with the
``DPoP`` scheme, is 401 ``invalid_token``; a bad proof 401 ``invalid_dpop_proof`` (or
``use_dpop_nonce`` with nonces on); each with a ``WWW-Authenticate: DPoP`` challenge
(``idp_common.web.dpop``).

Claims: ``sub`` always; ``email``, ``email_verified`` with ``email``; ``name``,
``preferred_username``, ``picture``, ``updated_at`` with ``profile``; mapped profile fields
with their ``claimScope``. The person is read through the worker's short cache, so a
steady caller costs the standing check's one shared Redis read and no Postgres query.

The answer is JSON, unless the client the token was issued to registered
``userinfo_signed_response_alg``: then it is a JWT signed with that algorithm
(``Content-Type: application/jwt``) carrying the claims plus ``iss`` and ``aud`` = the
``client_id`` (OIDC Core §5.3.2). The client's choice is read from the worker's cache.
"""

from __future__ import annotations

import time
from typing import Any, Final

from litestar import Controller, Request, Response, route

from idp_common.crypto.jwt import TYP_JWT, check_claims, sign_jwt
from idp_common.crypto.jwt import InvalidToken as BadJwt
from idp_common.protocol.constants import SCOPE_OPENID
from idp_common.protocol.rfc6749_errors import (
    InsufficientScope,
    InvalidRequest,
    InvalidToken,
    bearer_required_challenge,
)
from idp_common.protocol.rfc9449_dpop import dpop_challenge
from idp_common.web.dpop import check_resource_dpop
from token_service.context import TokenContext, token_context
from token_service.cors import note_client
from token_service.forms import UserinfoForm, field_names, is_form, read_form
from token_service.issuance import released_claims
from token_service.oauth_errors import NO_STORE, OAUTH_EXCEPTION_HANDLERS, json_response
from token_service.openapi_doc import JWT_MEDIA_TYPE, UserinfoOperation
from token_service.protocol.rfc8414_metadata import USERINFO_PATH

_KNOWN: Final = field_names(UserinfoForm)
_DPOP_SCHEME: Final = "dpop"
_SCHEMES: Final = frozenset({"bearer", _DPOP_SCHEME})


class BearerTokenRequired(InvalidToken):
    """RFC 6750 §3.1: a request without credentials gets a challenge without error."""

    def __init__(self) -> None:
        super().__init__("an access token is required")
        # RFC 9449 §7.1: both schemes are accepted, both are offered
        self.headers["WWW-Authenticate"] = f"{bearer_required_challenge()}, {dpop_challenge()}"


async def _presented_token(request: Request[Any, Any, Any]) -> tuple[str, bool]:
    """(the access token, whether it came with the ``DPoP`` scheme)."""
    header = request.headers.get("authorization")
    from_header: str | None = None
    scheme = ""
    if header:
        scheme, _, value = header.strip().partition(" ")
        scheme = scheme.lower()
        if scheme not in _SCHEMES or not value.strip():
            raise BearerTokenRequired()
        from_header = value.strip()
    from_form: str | None = None
    if request.method == "POST" and is_form(request):
        from_form = (await read_form(request, _KNOWN)).get("access_token")
    if from_header and from_form:
        raise InvalidRequest("the access token was sent in more than one way")
    token = from_header or from_form
    if not token:
        raise BearerTokenRequired()
    return token, from_header is not None and scheme == _DPOP_SCHEME


async def _claims(
    request: Request[Any, Any, Any], token: str, dpop: bool, now: int
) -> tuple[dict[str, Any], Any]:
    """(the userinfo claims, the token's ``client_id``)."""
    ctx = token_context(request)
    settings = ctx.settings
    try:
        claims = ctx.access_token_claims(token)
        check_claims(claims, issuer=settings.issuer, audience=settings.api_audience, now=now)
    except BadJwt as exc:
        raise InvalidToken(f"access token {exc.reason}") from exc
    note_client(request, claims.get("client_id"))  # CORS: the token's client's origins
    standing = await ctx.token_standing.check(claims)
    if standing.refusal is not None:
        raise InvalidToken(f"access token {standing.refusal}")
    await check_resource_dpop(request, token=token, claims=claims, dpop_scheme=dpop, now=now)
    scopes = str(claims.get("scope", "")).split()
    if SCOPE_OPENID not in scopes:
        raise InsufficientScope(SCOPE_OPENID, "the access token does not carry openid")
    subject = claims.get("sub")
    person = await ctx.get_user_claims(subject) if isinstance(subject, str) else None
    if person is None or person.user.disabled:
        raise InvalidToken("the access token names no person that still exists")
    released = {"sub": subject, **released_claims(person, scopes, settings.issuer_base)}
    return released, claims.get("client_id")


async def _answer(
    ctx: TokenContext, claims: dict[str, Any], client_id: Any, now: int
) -> Response[bytes]:
    """JSON, or the signed JWT the client registered for (OIDC Core §5.3.2)."""
    alg = await ctx.userinfo_alg(client_id) if isinstance(client_id, str) else None
    if alg is None:
        return json_response(claims)
    signed = {**claims, "iss": ctx.settings.issuer, "aud": client_id}
    token = sign_jwt(signed, ctx.keys, typ=TYP_JWT, now=now, alg=alg)
    return Response(
        content=token.encode("ascii"), media_type=JWT_MEDIA_TYPE, headers=dict(NO_STORE)
    )


async def userinfo_endpoint(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The endpoint, whichever transport carries it (``token_service.lean``)."""
    token, dpop = await _presented_token(request)
    ctx, now = token_context(request), int(time.time())
    claims, client_id = await _claims(request, token, dpop, now)
    return await _answer(ctx, claims, client_id, now)


class UserinfoController(Controller):
    tags = ["oauth2"]
    exception_handlers = OAUTH_EXCEPTION_HANDLERS

    @route(
        USERINFO_PATH,
        http_method=["GET", "POST"],
        operation_id=lambda _handler, method, _path: f"userinfo{method.title()}",
        summary="Claims about the signed-in person (OIDC Core §5.3)",
        status_code=200,
        operation_class=UserinfoOperation,
    )
    async def userinfo(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        return await userinfo_endpoint(request)
