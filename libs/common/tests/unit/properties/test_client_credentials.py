"""Properties of client authentication parsing (RFC 6749 §2.3.1, ``parse_client_credentials``):
``client_secret_basic`` credentials are form-encoded, then base64: any id and secret
round-trip, and any ``Authorization`` header gives credentials or the documented error."""

from __future__ import annotations

import base64
from urllib.parse import quote_plus

from hypothesis import example, given
from hypothesis import strategies as st

from idp_common.protocol.rfc6749_errors import InvalidClient, InvalidRequest
from libs.common.tests.unit.properties.support import FAST
from token_service.protocol.rfc6749_client_auth import (
    MAX_CLIENT_ID_LENGTH,
    MAX_SECRET_LENGTH,
    ClientCredentials,
    parse_client_credentials,
)

TEXT = st.text(st.characters(codec="utf-8"), max_size=40)


def _basic(client_id: str, secret: str) -> str:
    pair = f"{quote_plus(client_id)}:{quote_plus(secret)}".encode()
    return "Basic " + base64.b64encode(pair).decode()


@FAST
@given(TEXT.filter(bool), TEXT)
def test_basic_credentials_round_trip(client_id: str, secret: str) -> None:
    assert parse_client_credentials(_basic(client_id, secret), None, None) == ClientCredentials(
        client_id, secret, "client_secret_basic"
    )


@FAST
@given(
    st.none()
    | st.text(max_size=80)
    | st.binary(max_size=60).map(lambda b: "Basic " + base64.b64encode(b).decode()),
    st.none() | TEXT,
    st.none() | TEXT,
)
@example("Basic", None, None)
@example("basic  Og==", None, None)
@example("Basic " + base64.b64encode(b"\xff:x").decode(), None, None)
def test_any_request_gives_credentials_or_the_documented_error(
    authorization: str | None, client_id: str | None, client_secret: str | None
) -> None:
    try:
        credentials = parse_client_credentials(authorization, client_id, client_secret)
    except (InvalidClient, InvalidRequest):
        return
    assert credentials.client_id and len(credentials.client_id) <= MAX_CLIENT_ID_LENGTH
    assert credentials.secret is None or len(credentials.secret) <= MAX_SECRET_LENGTH
    if credentials.used_basic:
        assert not client_secret  # never two methods at once (§2.3)
        assert not client_id or client_id == credentials.client_id
