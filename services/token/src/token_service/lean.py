"""The token service's hot endpoints on the lean transport (``token_service.lean_routes``):
token, userinfo (GET and POST) and introspection, the requests resource servers and clients
send thousands of times a second, and the authorization request by GET, which starts every
code flow (a browser's top-level GET carries no ``Origin``). The endpoint functions are the
route handlers' own, and so are their exception handlers; only the carrying is thinner.
JWKS is answered by the proxy's cache (docs/performance.md)."""

from __future__ import annotations

from typing import Final

from litestar import Litestar

from token_service.controllers.authorize import authorize_by_get
from token_service.controllers.introspect import introspection_endpoint
from token_service.controllers.token import token_endpoint
from token_service.controllers.userinfo import userinfo_endpoint
from token_service.lean_routes import Endpoint, install_lean_routes
from token_service.protocol.rfc8414_metadata import (
    AUTHORIZATION_PATH,
    INTROSPECTION_PATH,
    TOKEN_PATH,
    USERINFO_PATH,
)

HOT_ROUTES: Final[dict[tuple[str, str], Endpoint]] = {
    ("POST", TOKEN_PATH): token_endpoint,
    ("GET", USERINFO_PATH): userinfo_endpoint,
    ("POST", USERINFO_PATH): userinfo_endpoint,
    ("POST", INTROSPECTION_PATH): introspection_endpoint,
    ("GET", AUTHORIZATION_PATH): authorize_by_get,
}


def install(app: Litestar) -> bool:
    return install_lean_routes(app, HOT_ROUTES)
