"""Unit tests of idp_common.protocol.standard_webhooks: the signature against
the Standard Webhooks reference library, the secret's form, where a webhook may go, and
the retry schedule."""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime

import pytest
import standardwebhooks

from idp_common.protocol.standard_webhooks import (
    decode_secret,
    delivery_headers,
    encode_secret,
    retry_delay,
    sign,
    target_problem,
)

KEY = bytes(range(32))
SECRET = encode_secret(KEY)
BODY = b'{"id":"evt_1","type":"user.created","data":{"user_id":"u"}}'


def test_secret_is_whsec_base64_of_the_key() -> None:
    assert "whsec_" + base64.b64encode(KEY).decode() == SECRET
    assert decode_secret(SECRET) == KEY
    with pytest.raises(ValueError):
        encode_secret(b"short")
    for bad in ("", "whsec_", "sk_abc", "whsec_not base64!"):
        with pytest.raises(ValueError):
            decode_secret(bad)


def test_signature_is_the_reference_librarys() -> None:
    at = 1_700_000_000
    ours = sign(KEY, "evt_1", at, BODY)
    theirs = standardwebhooks.Webhook(SECRET).sign(
        "evt_1", datetime.fromtimestamp(at, UTC), BODY.decode()
    )
    assert ours == theirs
    assert ours.startswith("v1,")


def test_the_reference_library_verifies_our_headers() -> None:
    headers = delivery_headers(KEY, "evt_2", int(time.time()), BODY)
    assert set(headers) == {"webhook-id", "webhook-timestamp", "webhook-signature"}
    assert standardwebhooks.Webhook(SECRET).verify(BODY, headers)["id"] == "evt_1"
    tampered = BODY.replace(b"u", b"v")
    with pytest.raises(standardwebhooks.webhooks.WebhookVerificationError):
        standardwebhooks.Webhook(SECRET).verify(tampered, headers)
    with pytest.raises(standardwebhooks.webhooks.WebhookVerificationError):
        standardwebhooks.Webhook(encode_secret(bytes(32))).verify(BODY, headers)


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.example.com/in",
        "https://hooks.example.com:8443/in?tenant=1",
        "https://[2001:4860:4860::8888]/x",
    ],
)
def test_public_https_targets(url: str) -> None:
    assert target_problem(url, allow_private=False) is None


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://hooks.example.com/in", "https"),
        ("ftp://hooks.example.com/in", "https"),
        ("https://", "https"),
        ("/relative", "https"),
        ("https://user:pw@hooks.example.com/", "user name"),
        ("https://user@hooks.example.com/", "user name"),
        ("https://hooks.example.com/#frag", "fragment"),
        ("https://hooks.example.com/ x", "whitespace"),
        ("https://hooks.example.com:99999/", "valid"),
        ("https://example.com/" + "a" * 2000, "2000"),
        ("https://127.0.0.1/", "loopback"),
        ("https://10.1.2.3/", "private"),
        ("https://169.254.169.254/latest", "link-local"),
        ("https://localhost/", "loopback"),
        ("https://[::1]/", "loopback"),
        ("https://0x7f.1/", "loopback"),
    ],
)
def test_refused_targets(url: str, words: str) -> None:
    problem = target_problem(url, allow_private=False)
    assert problem is not None and words in problem, problem


def test_private_targets_when_allowed_and_http_only_there() -> None:
    assert target_problem("http://127.0.0.1:8080/hooks", allow_private=True) is None
    assert target_problem("https://10.0.0.5/hooks", allow_private=True) is None
    problem = target_problem("http://hooks.example.com/", allow_private=True)
    assert problem is not None and "https" in problem
    problem = target_problem("https://u:p@127.0.0.1/", allow_private=True)
    assert problem is not None and "user name" in problem


def test_retry_delay_doubles_up_to_the_cap_with_bounded_jitter() -> None:
    plain = [retry_delay(n, base=5, cap=3600, random=0.0) for n in range(1, 12)]
    assert plain == [5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600]
    assert retry_delay(1, base=5, cap=3600, random=1.0) == pytest.approx(5.5)
    assert retry_delay(500, base=5, cap=3600, random=0.5) == pytest.approx(3780)
    assert retry_delay(0, base=5, cap=3600, random=0.0) == 5
