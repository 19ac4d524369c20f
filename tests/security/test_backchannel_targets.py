"""Attack 10: back-channel logout URIs as a port scanner of the provider's own network.

``backchannelLogoutUri`` could name any host: ``http://127.0.0.1:6379/``, a private
address, ``169.254.169.254`` (the cloud metadata service), or a name that resolves to one
of them. The logout dispatcher then POSTed there from inside the provider's network, and
the audit log, readable by administrators, reported each attempt's status code and timing:
a port-scan oracle (server-side request forgery) for whoever may register a client.

What must hold now, unless the deployment allows private targets
(``SVC_BACKCHANNEL_ALLOW_PRIVATE``, which the rest of the suite sets for its receivers on
127.0.0.1): registering or changing a client with such a URI is a 422 naming
``backchannelLogoutUri`` and stores nothing; and a client whose URI was stored before (here
written straight into the database), by IP or by a name that resolves to loopback, gets no
POST at all: the receiver records nothing, and the audit row of the attempt says
``status_code`` 0, ``error`` ``forbidden_address``.

The admin service and the logout dispatcher here are real extra processes with the setting
off; the stack's own dispatcher is stopped meanwhile, since dispatchers share the work.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from tests.harness import oidc, records
from tests.harness.api import signed_in_administrator
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e

DISPATCHER = "logout-dispatcher"
OFF = {"SVC_BACKCHANNEL_ALLOW_PRIVATE": "false"}


def admin_headers(stack: Stack) -> dict[str, str]:
    """A real administrator, signed in just now with two factors."""
    _, token = signed_in_administrator(stack)
    return {"Authorization": f"Bearer {token}", "X-Forwarded-For": "198.18.10.1"}


def client_count(stack: Stack) -> int:
    return int(str(records.query(stack, "SELECT count(*) AS n FROM clients")[0]["n"]))


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        yield r


@pytest.fixture(scope="module")
def checking_admin(stack: Stack) -> Iterator[httpx.Client]:
    """An admin service with private targets not allowed."""
    with stack.extra_service("admin", OFF) as url, httpx.Client(base_url=url, timeout=15) as admin:
        yield admin


@pytest.mark.parametrize(
    "target",
    [
        "http://127.0.0.1:{port}/bcl",
        "http://[::1]:{port}/bcl",
        "http://localhost:{port}/bcl",
        "https://169.254.169.254/latest/meta-data/",
        "https://10.0.0.5:8443/bcl",
        "https://[fd00::5]/bcl",
        "https://100.64.0.1/bcl",
        "https://[::ffff:192.168.1.1]/bcl",
    ],
)
def test_registration_refuses_private_targets(
    stack: Stack, checking_admin: httpx.Client, receiver: Receiver, target: str
) -> None:
    uri = target.format(port=receiver.port)
    headers = admin_headers(stack)
    before = client_count(stack)
    body = {
        "name": "scanner",
        "type": "confidential",
        "redirectUris": ["https://rp.example.com/cb"],
        "backchannelLogoutUri": uri,
    }
    created = checking_admin.post("/admin/clients", json=body, headers=headers)
    assert created.status_code == 422, created.text
    assert "backchannelLogoutUri" in [e["field"] for e in created.json()["errors"]]
    assert client_count(stack) == before

    app = records.create_client(stack)  # a client of its own, to change
    patched = checking_admin.patch(
        f"/admin/clients/{app.client_id}", json={"backchannelLogoutUri": uri}, headers=headers
    )
    assert patched.status_code == 422, patched.text
    assert "backchannelLogoutUri" in [e["field"] for e in patched.json()["errors"]]
    stored = records.query(
        stack, "SELECT backchannel_logout_uri FROM clients WHERE client_id = $1", app.client_id
    )
    assert stored == [{"backchannel_logout_uri": None}]


def test_delivery_refuses_stored_private_targets(stack: Stack, receiver: Receiver) -> None:
    by_ip = records.create_client(stack, skip_consent=True, backchannel_logout_uri=receiver.url)
    by_name = records.create_client(
        stack,
        skip_consent=True,
        backchannel_logout_uri=f"http://localhost:{receiver.port}/by-name",
    )
    (own,) = [p for p in stack.processes if p.name == DISPATCHER and p.popen.poll() is None]
    place = stack.processes.index(own)
    own.stop()
    checking = stack.start_service(DISPATCHER, OFF)
    try:
        stack.wait_until_up(checking, "/health/live")
        person = records.create_user(stack)
        with oidc.Browser(stack) as browser:
            first = oidc.Authorization(by_ip)
            issued = oidc.exchange(stack, first, browser.sign_in(first, person))
            browser.reach(oidc.Authorization(by_name))
            _, claims = oidc.verified_claims(stack, issued["id_token"], audience=by_ip.client_id)
            out = browser.post("/oauth2/logout", data={"client_id": by_ip.client_id})
            assert out.status_code in (302, 303), out.text
        rows = records.backchannel_attempts(stack, str(claims["sid"]), 2, timeout=20)
        time.sleep(0.5)
        assert receiver.snapshot() == []  # nothing reached the network
        assert sorted(str(r["target"]) for r in rows) == sorted(
            [by_ip.client_id, by_name.client_id]
        )
        for row in rows:
            assert row["status_code"] == 0, row
            assert row["detail"]["error"] == "forbidden_address", row
            assert row["detail"]["delivered"] is False
    finally:
        checking.stop()
        stack.processes.remove(checking)
        restarted = stack.start_service(DISPATCHER, port=own.port)
        stack.processes.remove(restarted)
        stack.processes[place] = restarted
        stack.wait_until_up(restarted, "/health/live")
