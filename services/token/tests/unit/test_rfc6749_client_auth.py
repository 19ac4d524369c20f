"""RFC 6749 §2.3 client authentication parsing and the constant-time secret check."""

from __future__ import annotations

import base64
import hashlib

import pytest

from idp_common.protocol.rfc6749_errors import InvalidClient, InvalidRequest
from token_service.protocol.rfc6749_client_auth import parse_client_credentials, secret_matches


def basic(raw: str) -> str:
    return "Basic " + base64.b64encode(raw.encode()).decode()


@pytest.mark.parametrize(
    ("header", "client_id", "secret", "expected"),
    [
        (basic("app:s3cret"), None, None, ("app", "s3cret", "client_secret_basic")),
        (basic("app%3A1:s%2Bc+r"), None, None, ("app:1", "s+c r", "client_secret_basic")),
        (basic("app:s"), "app", None, ("app", "s", "client_secret_basic")),
        (None, "app", "s", ("app", "s", "client_secret_post")),
        (None, "app", None, ("app", None, "none")),
        ("Bearer abc", "app", None, ("app", None, "none")),
    ],
)
def test_parse(
    header: str | None, client_id: str | None, secret: str | None, expected: tuple[object, ...]
) -> None:
    got = parse_client_credentials(header, client_id, secret)
    assert (got.client_id, got.secret, got.method) == expected


@pytest.mark.parametrize(
    ("header", "client_id", "secret", "error"),
    [
        (basic("app:s"), None, "s", InvalidRequest),
        (basic("app:s"), "other", None, InvalidRequest),
        ("Basic !!!", None, None, InvalidClient),
        (basic("no-colon"), None, None, InvalidClient),
        (basic(":s"), None, None, InvalidClient),
        (None, None, None, InvalidClient),
        (None, None, "s", InvalidClient),
    ],
)
def test_refusals(
    header: str | None, client_id: str | None, secret: str | None, error: type[Exception]
) -> None:
    with pytest.raises(error):
        parse_client_credentials(header, client_id, secret)


def test_basic_failure_carries_challenge() -> None:
    with pytest.raises(InvalidClient) as caught:
        parse_client_credentials("Basic !!!", None, None)
    assert caught.value.headers["WWW-Authenticate"] == 'Basic realm="idp"'


def test_secret_matches() -> None:
    stored = hashlib.sha256(b"s3cret").digest()
    assert secret_matches("s3cret", stored)
    assert not secret_matches("s3cret!", stored)
    assert not secret_matches("s3cret", None)
