"""Attack 15: IPv6 callers got one rate-limit bucket per address.

Every per-address limit (failed bearer authentications, the token endpoint, the sign-in
API, password-reset mails) counted the caller's exact address. An IPv6 subscriber is
routinely handed a whole /64 (2^64 addresses) and can use a new source address for every
request, so each attempt found a fresh, empty bucket and no per-address limit ever bit.

Now an IPv6 address counts for its /64, in the one limiter every service uses; IPv4 stays
per address, and the audit log still records the full address. The caller sends from
127.0.0.1 (the stack's trusted proxy) with ``X-Forwarded-For``, as nginx does.
"""

from __future__ import annotations

import ipaddress
import secrets
import uuid

import httpx
import pytest

from tests.harness import tokens
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration

PATH = "/admin/audit"


def a_fresh_64() -> str:
    """A documentation /64 (2001:db8::/32) of this test run only: ``2001:db8:xxxx:yyyy``."""
    return f"2001:db8:{secrets.randbelow(0xFFFF):x}:{secrets.randbelow(0xFFFF):x}"


def bad_token(client: httpx.Client, address: str) -> int:
    headers = {"Authorization": "Bearer not.a.token", "X-Forwarded-For": address}
    return client.get(PATH, headers=headers).status_code


def test_many_addresses_of_one_64_share_one_limit(stack: Stack) -> None:
    limit = int(stack.env["SVC_AUTH_FAIL_PER_IP"])  # failed authentications per minute
    prefix = a_fresh_64()
    with httpx.Client(base_url=stack.service_url("admin"), timeout=10) as admin:
        codes = [bad_token(admin, f"{prefix}:{i:x}:{i:x}:{i:x}:{i + 1:x}") for i in range(limit)]
        assert codes == [401] * limit
        # The next address of the same /64 finds the bucket full.
        refused = admin.get(
            PATH,
            headers={"Authorization": "Bearer not.a.token", "X-Forwarded-For": f"{prefix}::beef"},
        )
        assert refused.status_code == 429, refused.text
        assert int(refused.headers["retry-after"]) >= 1
        # Another /64 is another caller.
        assert bad_token(admin, f"{a_fresh_64()}::1") == 401


def test_ipv4_stays_per_address(stack: Stack) -> None:
    limit = int(stack.env["SVC_AUTH_FAIL_PER_IP"])
    network = f"198.18.{secrets.randbelow(250)}"
    with httpx.Client(base_url=stack.service_url("admin"), timeout=10) as admin:
        assert [bad_token(admin, f"{network}.{i + 1}") for i in range(limit + 2)] == [401] * (
            limit + 2
        )


def test_the_audit_keeps_the_full_address(stack: Stack) -> None:
    subject = f"caller-{uuid.uuid4().hex[:10]}"
    address = f"{a_fresh_64()}:1:2:3:4"
    token = tokens.mint(stack.key_dir, issuer=stack.issuer, scopes=["openid"], subject=subject)
    with httpx.Client(base_url=stack.service_url("admin"), timeout=10) as admin:
        denied = admin.get(
            PATH, headers={"Authorization": f"Bearer {token}", "X-Forwarded-For": address}
        )
        assert denied.status_code == 403
        reader = tokens.mint(stack.key_dir, issuer=stack.issuer, scopes=["idp:audit:read"])
        rows = admin.get(
            PATH,
            params={"action": "access.denied", "actor": subject},
            headers={"Authorization": f"Bearer {reader}", "X-Forwarded-For": "198.18.0.1"},
        ).json()["items"]
    assert [row["ip"] for row in rows] == [str(ipaddress.ip_address(address))]
