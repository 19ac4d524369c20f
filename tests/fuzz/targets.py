"""The fuzz targets: one function per entry point that reads untrusted bytes.

Each takes the fuzzer's bytes, drives the product code the way a request would, and
lets through only what the entry point documents: a value or its documented refusal. Any
other exception escapes, which the fuzzer (``tests/fuzz/run.py``) reports as a crash and
the regression test (``tests/fuzz/test_regressions.py``) as a failure. Neither needs
atheris to import this module.

- ``jwt``: bearer access tokens (``verify_jwt``, RFC 9068) and ``id_token_hint``
  (``verify_id_token_hint``); refusals ``InvalidToken`` and ``InvalidIdTokenHint``.
- ``form``: the token endpoint's ``application/x-www-form-urlencoded`` body
  (``parse_form_body``), the authorize parameters read from a query string
  (``single_values``, ``parse_request``) and the ``Authorization: Basic`` header
  (``parse_client_credentials``); refusals ``OAuth2Error`` and ``UntrustedRequest``.
- ``image``: the face upload (``check_pixel_count`` on the event loop, then ``decode``
  in the model process, as the engine does) and the profile photo (``clean_photo``);
  refusals ``FaceRejected`` and ``ImageRejected``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from functools import cache
from typing import Final
from urllib.parse import parse_qs

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from idp_common.avatars.images import FORMATS, ImageRejected, clean_photo
from idp_common.crypto.jwt import TYP_ACCESS_TOKEN, InvalidToken, verify_jwt
from idp_common.crypto.keys import KeySet, SigningKey
from idp_common.face.errors import FaceRejected
from idp_common.face.header import check_pixel_count
from idp_common.protocol.oidc_authorize import (
    ALL_PARAMETERS,
    UntrustedRequest,
    match_redirect_uri,
    parse_request,
    refuse_repeated,
    single_values,
)
from idp_common.protocol.oidc_id_token_hint import InvalidIdTokenHint, verify_id_token_hint
from idp_common.protocol.rfc6749_errors import OAuth2Error
from token_service.forms import TokenRequest, field_names, parse_form_body
from token_service.protocol.rfc6749_client_auth import parse_client_credentials

ISSUER: Final = "https://id.example.com"
AUDIENCE: Final = "https://id.example.com/api"
CLIENT_ID: Final = "app-1"
NOW: Final = 1_800_000_000
#: In a ``jwt`` input, replaced by the kid of the fuzzing key (which is made per run), so
#: that committed inputs reach the signature check.
KID_PLACEHOLDER: Final = b"@kid@"
TOKEN_FIELDS: Final = field_names(TokenRequest)
#: A smaller pixel bound than production's keeps each execution fast; the code path is
#: the same.
FUZZ_MAX_PIXELS: Final = 4_000_000


@cache
def _key() -> tuple[rsa.RSAPrivateKey, KeySet, str]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    signing = SigningKey.from_private_key("fuzz.pem", private)
    return private, KeySet((signing,)), signing.kid


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _token_of(data: bytes) -> str:
    """The first byte chooses how the rest becomes a token: as text (0), as up to three
    segments separated by ``.`` that are base64url-encoded here (1), or as the payload
    of a token this run's key signs, with header type ``at+jwt`` (2) or ``JWT`` (3)."""
    private, _, kid = _key()
    mode, rest = (data[0] % 4, data[1:]) if data else (0, b"")
    rest = rest.replace(KID_PLACEHOLDER, kid.encode())
    if mode == 0:
        return rest.decode("utf-8", "replace")
    if mode == 1:
        return ".".join(_b64(part) for part in rest.split(b".", 2))
    typ = TYP_ACCESS_TOKEN if mode == 2 else "JWT"
    header = json.dumps({"alg": "RS256", "kid": kid, "typ": typ}).encode()
    signing_input = f"{_b64(header)}.{_b64(rest)}"
    signature = private.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{_b64(signature)}"


def fuzz_jwt(data: bytes) -> None:
    token = _token_of(data)
    _, keys, _ = _key()
    try:
        claims = verify_jwt(
            token, keys, issuer=ISSUER, audience=AUDIENCE, now=NOW, typ=TYP_ACCESS_TOKEN
        )
    except InvalidToken:
        pass
    else:
        assert claims["iss"] == ISSUER and claims["exp"] > NOW
    for client_id in (None, CLIENT_ID):
        try:
            hint = verify_id_token_hint(token, keys, issuer=ISSUER, now=NOW, client_id=client_id)
        except InvalidIdTokenHint:
            continue
        assert hint.subject and (client_id is None or hint.client_id == client_id)


def fuzz_form(data: bytes) -> None:
    try:
        form = parse_form_body(data, TOKEN_FIELDS)
    except OAuth2Error:
        pass
    else:
        assert set(form) <= TOKEN_FIELDS and all(form.values())
    _authorize_query(data)
    try:
        parse_client_credentials("Basic " + base64.b64encode(data).decode(), None, None)
        parse_client_credentials(data.decode("latin-1"), None, None)
    except OAuth2Error:
        pass


def _authorize_query(data: bytes) -> None:
    """The authorize endpoint's checks, on the parameters of ``data`` read as a query."""
    try:
        query = data.decode("utf-8")
    except UnicodeDecodeError:
        return  # an ASGI server hands the app text; the bytes never get this far
    params = parse_qs(query, keep_blank_values=True, max_num_fields=None)
    try:
        values, repeated = single_values({name: params.get(name, []) for name in ALL_PARAMETERS})
        redirect_uri = match_redirect_uri(["https://app.example/cb"], values.get("redirect_uri"))
        refuse_repeated(repeated)
        parse_request(values, client_id=CLIENT_ID, redirect_uri=redirect_uri, public_client=True)
    except (UntrustedRequest, OAuth2Error):
        pass


_IMAGE_TYPES: Final = tuple(FORMATS)


def fuzz_image(data: bytes) -> None:
    try:
        check_pixel_count(data, FUZZ_MAX_PIXELS)
        _face_decode(data)
    except FaceRejected:
        pass
    content_type = _IMAGE_TYPES[len(data) % len(_IMAGE_TYPES)]
    try:
        photo = clean_photo(data, content_type, max_pixels=FUZZ_MAX_PIXELS)
    except ImageRejected:
        return
    assert photo.width * photo.height <= FUZZ_MAX_PIXELS and photo.content_type == content_type


def _face_decode(data: bytes) -> None:
    """The model process's decode (needs the face group's numpy: ``uv sync --group face``)."""
    from idp_common.face.images import decode  # noqa: PLC0415  (numpy: optional group)

    decode(data)


TARGETS: Final[dict[str, Callable[[bytes], None]]] = {
    "jwt": fuzz_jwt,
    "form": fuzz_form,
    "image": fuzz_image,
}
