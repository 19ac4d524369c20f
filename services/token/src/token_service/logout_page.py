"""The "Sign out?" page of ``/oauth2/logout`` when ``SVC_LOGOUT_CONFIRMATION`` is on
(OIDC RP-Initiated Logout 1.0 §2: the provider may ask the person; docs/security.md, attack 9).

Plain HTML, no script and no style (the service's CSP allows neither). The form posts the
request's values back with a one-time token bound to the browser session; "Stay signed in"
goes to the provider's start page, never to whoever sent the request. The page names no
application: without a valid hint, the request could name any. The page can never
be framed (CSP ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``: a framed page
could be clicked through), and its own CSP lets the form's answer redirect to the
application's registered page (browsers apply ``form-action`` to that redirect too).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Final
from urllib.parse import urlsplit

from litestar import Response

#: The form field of the one-time token.
CONFIRMATION_FIELD: Final = "confirmation"
#: OIDC RP-Initiated Logout 1.0 §2, the parameters ``/oauth2/logout`` reads.
LOGOUT_PARAMETERS: Final = ("id_token_hint", "post_logout_redirect_uri", "state", "client_id")
#: The request's values the form carries back.
CARRIED: Final = ("post_logout_redirect_uri", "state", "client_id")


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def confirmation_page(
    *,
    issuer_base: str,
    token: str,
    values: Mapping[str, str],
    target: str,
) -> Response[bytes]:
    """200 with the page; ``target``: where the confirmed sign-out will redirect."""
    fields = [(CONFIRMATION_FIELD, token)] + [
        (name, values[name]) for name in CARRIED if name in values
    ]
    hidden = "".join(
        f'<input type="hidden" name="{name}" value="{html.escape(value)}">'
        for name, value in fields
    )
    body = (
        '<!doctype html><html lang="en"><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>Sign out?</title><main><h1>Sign out?</h1>"
        "<p>A page or an application asks to sign you out. You will be signed out of this "
        "provider and of the applications you use with it in this browser.</p>"
        f'<form method="post" action="{html.escape(issuer_base)}/oauth2/logout">{hidden}'
        '<button type="submit">Sign out</button></form>'
        f'<p><a href="{html.escape(issuer_base)}/">Stay signed in</a></p></main>'
    ).encode()
    csp = (
        "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; "
        f"form-action 'self' {_origin(target)}"
    )
    return Response(
        body,
        status_code=200,
        media_type="text/html",
        headers={"Content-Security-Policy": csp, "X-Frame-Options": "DENY"},
    )
