"""The answers of the browser-facing endpoints (``/oauth2/authorize``, ``/oauth2/logout``).

- :func:`browser_parameters`: the named parameters of a GET query or of a POST form, each
  with every value given (:mod:`idp_common.protocol.rfc6749_parameters` decides what a
  repeat means); None for a POST that is not a form.
- :func:`redirect`: the redirect to the client, the sign-in page or the signed-out page.
- :func:`error_redirect`: an RFC 6749 error sent to a trusted redirect URI (§4.1.2.1) with
  ``state`` and the RFC 9207 ``iss``.
- :func:`error_page`: shown to the person when nothing may be sent to the client.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qsl

from litestar import Request, Response
from litestar.enums import RequestEncodingType

from idp_common.protocol.oidc_authorize import UntrustedRequest, with_query
from idp_common.protocol.rfc6749_errors import OAuth2Error
from idp_common.protocol.rfc6749_parameters import group_pairs

#: Far more than the parameters an authorization or logout request has (about 20).
MAX_BROWSER_FIELDS = 100


async def browser_parameters(
    request: Request[Any, Any, Any], names: Sequence[str]
) -> dict[str, list[str]] | None:
    """Every value of each of ``names``, from the query (GET) or the form (POST).

    Raises ``UntrustedRequest`` (an error page, no redirect) for parameters that are not
    UTF-8 or more than :data:`MAX_BROWSER_FIELDS` of them, rather than parsing thousands
    or passing U+FFFD replacements on to the client.
    """
    if request.method == "GET":
        raw: bytes = request.scope.get("query_string", b"")
    elif not request.headers.get("content-type", "").startswith(RequestEncodingType.URL_ENCODED):
        return None
    else:
        raw = await request.body()
    try:
        pairs = parse_qsl(
            raw.decode("utf-8"),
            keep_blank_values=True,
            errors="strict",
            max_num_fields=MAX_BROWSER_FIELDS,
        )
    except UnicodeDecodeError as exc:
        raise UntrustedRequest("the parameters are not valid UTF-8") from exc
    except ValueError as exc:
        raise UntrustedRequest(
            f"too many parameters (at most {MAX_BROWSER_FIELDS} are read)"
        ) from exc
    grouped = group_pairs(pairs, names)
    return {name: grouped.get(name, []) for name in names}


def redirect(location: str, status: int) -> Response[bytes]:
    return Response(b"", status_code=status, headers={"Location": location})


def error_redirect(
    redirect_uri: str, error: OAuth2Error, *, state: str | None, issuer: str, status: int
) -> Response[bytes]:
    """``error`` sent to the client's ``redirect_uri`` (RFC 6749 §4.1.2.1, RFC 9207)."""
    params = {"error": error.error, "error_description": error.description}
    return redirect(with_query(redirect_uri, {**params, "state": state, "iss": issuer}), status)


def error_page(
    message: str, *, status: int = 400, headers: dict[str, str] | None = None
) -> Response[bytes]:
    """Shown to the person when the request cannot be sent back to the client."""
    body = (
        '<!doctype html><html lang="en"><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Sign-in refused</title><h1>Sign-in refused</h1><p>{html.escape(message)}</p>"
    ).encode()
    return Response(body, status_code=status, media_type="text/html", headers=headers)
