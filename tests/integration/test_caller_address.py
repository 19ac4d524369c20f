"""Caller address (contract §5): ``X-Forwarded-For`` is believed only from a trusted sender.

The stack trusts 127.0.0.1 only. Clients bound to other loopback addresses
(127.0.0.2...) are real, untrusted senders. The address is observed where it is used:
in the audit record of a refusal and in the per-address limit on failed authentications.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from tests.harness import tokens
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration
AUDIT_READ = "idp:audit:read"


@contextmanager
def client_from(address: str, base_url: str) -> Iterator[httpx.Client]:
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=base_url, transport=transport, timeout=10) as client:
        yield client


def refused_audit_ip(stack: Stack, client: httpx.Client, forwarded_for: str | None) -> str:
    """Get a 403 for a fresh subject and return the ``ip`` its audit row recorded."""
    subject = f"caller-{uuid.uuid4().hex[:10]}"
    token = tokens.mint(stack.key_dir, issuer=stack.issuer, scopes=["openid"], subject=subject)
    headers = {"Authorization": f"Bearer {token}"}
    if forwarded_for is not None:
        headers["X-Forwarded-For"] = forwarded_for
    assert client.get("/admin/audit", headers=headers).status_code == 403
    reader = tokens.mint(stack.key_dir, issuer=stack.issuer, scopes=[AUDIT_READ])
    rows = httpx.get(
        stack.service_url("admin") + "/admin/audit",
        params={"action": "access.denied", "actor": subject},
        headers={"Authorization": f"Bearer {reader}"},
    ).json()["items"]
    assert len(rows) == 1
    ip: str = rows[0]["ip"]
    return ip


def test_untrusted_sender_forwarded_for_is_ignored(stack: Stack) -> None:
    with client_from("127.0.0.2", stack.service_url("admin")) as client:
        assert refused_audit_ip(stack, client, "203.0.113.50") == "127.0.0.2"
        assert refused_audit_ip(stack, client, None) == "127.0.0.2"


def test_trusted_sender_sets_the_caller_address(stack: Stack) -> None:
    with client_from("127.0.0.1", stack.service_url("admin")) as client:
        assert refused_audit_ip(stack, client, "203.0.113.51") == "203.0.113.51"
        assert refused_audit_ip(stack, client, "2001:db8::7") == "2001:db8::7"


@pytest.mark.parametrize("header", ["203.0.113.52, 10.0.0.1", "not-an-address", ""])
def test_trusted_sender_must_send_exactly_one_address(stack: Stack, header: str) -> None:
    with client_from("127.0.0.1", stack.service_url("admin")) as client:
        assert refused_audit_ip(stack, client, header) == "127.0.0.1"


def test_through_the_proxy_the_audit_shows_the_real_client(stack: Stack) -> None:
    """nginx (trusted, on 127.0.0.1) replaces any client-sent header with one address."""
    with client_from("127.0.0.3", stack.proxy_url) as client:
        assert refused_audit_ip(stack, client, "203.0.113.99") == "127.0.0.3"


def bad_token_requests(client: httpx.Client, count: int, forwarded_for: list[str]) -> list[int]:
    codes = []
    for i in range(count):
        headers = {
            "Authorization": "Bearer not-a-token",
            "X-Forwarded-For": forwarded_for[i % len(forwarded_for)],
        }
        codes.append(client.get("/admin/audit", headers=headers).status_code)
    return codes


def test_trusted_forwarded_for_selects_the_rate_limit_bucket(stack: Stack) -> None:
    limit = int(stack.env["SVC_AUTH_FAIL_PER_IP"])
    with client_from("127.0.0.1", stack.service_url("admin")) as client:
        first = f"198.51.100.{uuid.uuid4().int % 200 + 1}"
        codes = bad_token_requests(client, limit + 1, [first])
        assert codes == [401] * limit + [429]
        limited = client.get("/admin/audit", headers={"X-Forwarded-For": first})
        assert limited.status_code == 429
        assert int(limited.headers["retry-after"]) > 0
        other = f"192.0.2.{uuid.uuid4().int % 200 + 1}"
        assert bad_token_requests(client, 1, [other]) == [401]


def test_untrusted_sender_cannot_escape_the_limit_by_rotating_the_header(stack: Stack) -> None:
    limit = int(stack.env["SVC_AUTH_FAIL_PER_IP"])
    rotating = [f"203.0.113.{i}" for i in range(1, 60)]
    with client_from("127.0.0.4", stack.service_url("admin")) as client:
        codes = bad_token_requests(client, limit + 2, rotating)
    assert codes == [401] * limit + [429, 429]
