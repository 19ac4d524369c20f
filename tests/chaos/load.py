"""The mixed load: a few requests per second of each kind, in a thread of its own.

Kinds: ``client_credentials``; ``refresh`` (chains that each present only their newest
refresh token, once: a 503 with ``Retry-After`` is retried with the same token, as the
provider promises that works; an answer that may or may not have taken effect, no answer
or a 502/504, retires the chain unused, since presenting that token again would be a real
reuse); ``authorize`` (authorize with a session cookie + code exchange); ``userinfo``;
``sign-in`` (password, through the sign-in API, then more applications with back-channel
receivers reached in the same session); ``logout`` (RP-initiated, of those sessions; a
failed logout is retried with the same cookie, as a person would).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.chaos import flows
from tests.chaos.report import Outcome
from tests.harness.records import TestClient, TestUser

PACE_S = 0.3  # pause between two iterations of one worker
#: A session is logged out this long after its sign-in: the sessions of the last seconds
#: before a fault are logged out during it, while new sign-ins fail.
LOGOUT_AFTER_S = 6.0


Worker = Callable[[], Coroutine[Any, Any, None]]  # one iteration of one kind


@dataclass
class Chain:
    first: str  # the first token: its digest finds the family
    current: str
    presented: int = 0
    retired: str = ""  # why it stopped ("" while in use)


#: Refresh tokens of code exchanges kept to start new chains with.
FRESH_KEPT = 50


@dataclass
class LoadPlan:
    base_url: str
    client: TestClient  # client_credentials, authorize and refresh
    api_scope: str
    cookies: list[str]  # sessions that authorize uses (never logged out)
    refresh_tokens: list[str]  # first tokens of fresh families
    people: list[TestUser]
    first_app: TestClient  # the application a sign-in starts at (a prompt receiver)
    other_apps: list[TestClient]  # reached in the same session
    chains_at_once: int = 2


@dataclass
class Load:
    plan: LoadPlan
    outcomes: list[Outcome] = field(default_factory=list)
    chains: list[Chain] = field(default_factory=list)
    signed_in: list[flows.SignedIn] = field(default_factory=list)
    extra_apps: list[TestClient] = field(default_factory=list)  # fault 6 adds its receivers
    paused: threading.Event = field(default_factory=threading.Event)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _pending_logouts: deque[flows.SignedIn] = field(default_factory=deque)
    _access_token: str = ""
    _fresh: deque[str] = field(default_factory=deque)
    _slots: dict[int, Chain] = field(default_factory=dict)

    # --- control (from the main thread) ----------------------------------------------
    def start(self) -> None:
        self._fresh.extend(self.plan.refresh_tokens)
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)

    def since(self, moment: float) -> list[Outcome]:
        return [o for o in list(self.outcomes) if o.started >= moment]

    def logouts_unfinished(self) -> int:
        return sum(1 for s in list(self.signed_in) if s.logout_tries and not s.logged_out)

    def settle(self, timeout: float) -> None:
        """Pause the load, but let failed logouts be retried until they all went through
        (or ``timeout``), so the invariants are read with nothing in flight."""
        self.paused.set()
        deadline = time.monotonic() + timeout
        while self.logouts_unfinished() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(PACE_S + 1)  # iterations already started finish

    # --- the workers (in the load's thread) --------------------------------------------
    async def _main(self) -> None:
        async with httpx.AsyncClient(
            base_url=self.plan.base_url, timeout=flows.TIMEOUT, follow_redirects=False
        ) as http:
            workers: list[Worker] = [
                lambda: self._client_credentials(http),
                lambda: self._authorize(http),
                lambda: self._userinfo(http),
                self._sign_in,
                self._logout,
            ] + [
                (lambda slot=slot: self._refresh(http, slot))  # type: ignore[misc]
                for slot in range(self.plan.chains_at_once)
            ]
            workers += self.extra_workers(http)
            await asyncio.gather(*(self._loop(worker) for worker in workers))
        for signed in self.signed_in:
            await signed.browser.aclose()

    def extra_workers(self, http: httpx.AsyncClient) -> list[Worker]:
        """More kinds of request, each a loop of its own (a subclass adds them)."""
        return []

    async def _loop(self, once: Callable[[], Coroutine[Any, Any, None]]) -> None:
        while not self._stop.is_set():
            await once()
            await asyncio.sleep(PACE_S)

    async def _idle(self) -> bool:
        if self.paused.is_set():
            await asyncio.sleep(0.1)
            return True
        return False

    def _record(self, outcome: Outcome) -> None:
        if not self.paused.is_set() or outcome.kind == "logout":
            self.outcomes.append(outcome)

    async def _client_credentials(self, http: httpx.AsyncClient) -> None:
        if await self._idle():
            return
        plan = self.plan
        outcome, _ = await flows.run_one(
            "client_credentials",
            lambda: flows.client_credentials(http, plan.client, plan.api_scope),
        )
        self._record(outcome)

    async def _authorize(self, http: httpx.AsyncClient) -> None:
        if await self._idle():
            return
        cookie = self.plan.cookies[len(self.outcomes) % len(self.plan.cookies)]
        outcome, value = await flows.run_one(
            "authorize", lambda: flows.authorize_and_exchange(http, self.plan.client, cookie)
        )
        if outcome.ok:
            self._access_token = str(value["access_token"])
            if "refresh_token" in value and len(self._fresh) < FRESH_KEPT:
                # a family of a real grant: its refresh writes the access token's jti to
                # Redis before the spend commits, the path a Redis fault can break
                self._fresh.append(str(value["refresh_token"]))
        self._record(outcome)

    async def _userinfo(self, http: httpx.AsyncClient) -> None:
        if await self._idle() or not self._access_token:
            await asyncio.sleep(0.1)
            return
        outcome, _ = await flows.run_one(
            "userinfo", lambda: flows.userinfo(http, self._access_token)
        )
        self._record(outcome)

    async def _refresh(self, http: httpx.AsyncClient, slot: int) -> None:
        if await self._idle():
            return
        chain = self._slots.get(slot)
        if chain is None or chain.retired:
            if not self._fresh:
                await asyncio.sleep(0.1)
                return
            token = self._fresh.popleft()
            chain = self._slots[slot] = Chain(first=token, current=token)
            self.chains.append(chain)
        chain.presented += 1
        outcome, value = await flows.run_one(
            "refresh", lambda: flows.refresh(http, self.plan.client, chain.current)
        )
        if outcome.ok:
            chain.current = str(value)
        elif isinstance(value, httpx.TransportError) or (
            isinstance(value, flows.Failed) and value.status in flows.AMBIGUOUS
        ):
            chain.retired = "ambiguous answer: " + outcome.seen
        elif isinstance(value, flows.Failed) and value.status < 500:
            chain.retired = "refused: " + outcome.seen
        self._record(outcome)

    async def _sign_in(self) -> None:
        if await self._idle():
            return
        plan = self.plan
        person = plan.people[len(self.signed_in) % len(plan.people)]
        apps = [*plan.other_apps, *self.extra_apps]
        outcome, value = await flows.run_one(
            "sign-in", lambda: flows.sign_in(plan.base_url, person, plan.first_app, apps)
        )
        if outcome.ok:
            self.signed_in.append(value)
            self._pending_logouts.append(value)
        self._record(outcome)

    async def _logout(self) -> None:
        if not self._pending_logouts:
            await asyncio.sleep(0.1)
            return
        signed = self._pending_logouts[0]
        young = time.monotonic() - signed.signed_in_at < LOGOUT_AFTER_S
        if not signed.logout_tries and (self.paused.is_set() or young):
            await asyncio.sleep(0.1)  # paused: only retries of failed logouts go on
            return
        self._pending_logouts.popleft()
        outcome, _ = await flows.run_one(
            "logout", lambda: flows.logout(signed, self.plan.first_app.client_id)
        )
        if not outcome.ok:
            self._pending_logouts.appendleft(signed)  # the person tries again
        self._record(outcome)
