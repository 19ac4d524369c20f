"""Chromium's virtual authenticator, driven through the DevTools protocol (the ``WebAuthn``
domain), for the passkey browser tests (issue #26).

A WebAuthn relying party id must be a domain: no browser accepts an IP address. The suite's
stacks use ``http://127.0.0.1:PORT`` as their issuer, so the passkey tests run a stack of
their own whose issuer is ``http://localhost:PORT`` (a secure context for the browser,
like any loopback origin) and drive the pages at that origin: :func:`localhost_stack`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import CDPSession, Page

from tests.harness.stack import Stack, new_stack, remove_stack, start_stack


@contextmanager
def localhost_stack(base_dir: Path) -> Iterator[Stack]:
    """A stack whose issuer names ``localhost`` (its RP id), removed afterwards. HTTP tests
    may keep using ``stack.proxy_url`` (127.0.0.1); the browser must use ``stack.issuer``."""
    stack = new_stack(base_dir)
    stack.env["SVC_ISSUER"] = f"http://localhost:{stack.proxy_port}"
    try:
        start_stack(stack)
        yield stack
    finally:
        remove_stack(stack)


class VirtualAuthenticator:
    """A platform authenticator (internal transport, CTAP 2) that holds discoverable
    credentials, verifies the person and answers without a prompt."""

    def __init__(self, page: Page, *, user_verified: bool = True) -> None:
        self.cdp: CDPSession = page.context.new_cdp_session(page)
        self.cdp.send("WebAuthn.enable", {"enableUI": False})
        options = {
            "protocol": "ctap2",
            "ctap2Version": "ctap2_1",
            "transport": "internal",
            "hasResidentKey": True,
            "hasUserVerification": True,
            "isUserVerified": user_verified,
            "automaticPresenceSimulation": True,
        }
        answer = self.cdp.send("WebAuthn.addVirtualAuthenticator", {"options": options})
        self.authenticator_id: str = answer["authenticatorId"]

    def credentials(self) -> list[dict[str, Any]]:
        """What the authenticator holds: id, rpId, userHandle, signCount, backup flags."""
        answer = self.cdp.send(
            "WebAuthn.getCredentials", {"authenticatorId": self.authenticator_id}
        )
        return list(answer["credentials"])

    def set_presence(self, present: bool) -> None:
        """Whether the person touches the authenticator when asked. Off, a ceremony waits;
        a page that offers passkeys through autofill (conditional mediation) would else
        be answered at once, as if the person picked the suggestion."""
        self.cdp.send(
            "WebAuthn.setAutomaticPresenceSimulation",
            {"authenticatorId": self.authenticator_id, "enabled": present},
        )

    def set_user_verified(self, verified: bool) -> None:
        self.cdp.send(
            "WebAuthn.setUserVerified",
            {"authenticatorId": self.authenticator_id, "isUserVerified": verified},
        )

    def remove(self) -> None:
        self.cdp.send(
            "WebAuthn.removeVirtualAuthenticator", {"authenticatorId": self.authenticator_id}
        )
