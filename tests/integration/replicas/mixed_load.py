"""The mixed load of the replica tests: ``make chaos``'s load (tests/chaos/load.py:
client credentials, refresh chains, authorize + code exchange, userinfo, password
sign-ins into two applications with back-channel receivers, logouts) plus reads of the
administration API and of the self-service API, so every service behind the proxy is hit.

Each iteration records when it started and ended (``Outcome.started``/``ended``), which
is what tells a request that was in flight at a given moment from one that started after.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import httpx

from bench import records as bench_records
from idp_common.protocol.constants import ADMIN_SCOPES, SELF_SERVICE_SCOPES
from tests.chaos import flows
from tests.chaos.load import Load, LoadPlan, Worker
from tests.chaos.report import Outcome
from tests.harness import infra, records, tokens
from tests.harness.api import create_administrator
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack

#: The kinds of the load (each a loop of its own).
LOAD_KINDS = frozenset(
    {"client_credentials", "refresh", "authorize", "userinfo", "sign-in", "logout", "admin",
     "entity"}
)  # fmt: skip
#: Kinds that reach the token service: all but the API reads (sign-in and logout go
#: through /oauth2/authorize, the code exchange and /oauth2/logout), and the burst.
TOKEN_KINDS = (LOAD_KINDS - {"admin", "entity"}) | {"burst"}
TOKEN_TTL = 3600  # the bearer tokens of the API reads outlive the module


async def _read(http: httpx.AsyncClient, path: str, token: str) -> None:
    answer = await http.get(path, headers={"Authorization": f"Bearer {token}"})
    flows.expect(answer, 200).json()


@dataclass
class ApiReaders:
    admin_token: str
    person_token: str


class MixedLoad(Load):
    """The chaos load with two more kinds: ``admin`` (GET /admin/clients) and ``entity``
    (GET /entity/profile), each with a token of a real person."""

    def __init__(self, plan: LoadPlan, readers: ApiReaders) -> None:
        super().__init__(plan)
        self.readers = readers

    def extra_workers(self, http: httpx.AsyncClient) -> list[Worker]:
        return [
            lambda: self._api_read(http, "admin", "/admin/clients?limit=5"),
            lambda: self._api_read(http, "entity", "/entity/profile"),
        ]

    async def _api_read(self, http: httpx.AsyncClient, kind: str, path: str) -> None:
        if await self._idle():
            return
        token = self.readers.admin_token if kind == "admin" else self.readers.person_token
        outcome, _ = await flows.run_one(kind, lambda: _read(http, path, token))
        self._record(outcome)


def build_load(stack: Stack, receiver: Receiver) -> MixedLoad:
    """Clients, people, sessions and first refresh tokens in ``stack`` (as ``make chaos``
    makes them), the applications' back-channel URIs on ``receiver``."""
    fixtures = bench_records.create_fixtures(stack, users=2, sessions=4)
    cookies = [s.cookie for s in fixtures.sessions]

    def app(path: str) -> records.TestClient:
        url = receiver.url_for(path)
        return records.create_client(stack, skip_consent=True, backchannel_logout_uri=url)

    plan = LoadPlan(
        base_url=stack.proxy_url,
        client=fixtures.client,
        api_scope=bench_records.API_SCOPE,
        cookies=cookies,
        refresh_tokens=infra.run(
            flows.first_refresh_tokens(stack.proxy_url, fixtures.client, cookies, 30)
        ),
        people=[records.create_user(stack) for _ in range(3)],
        first_app=app("/first"),
        other_apps=[app("/second")],
    )
    administrator = create_administrator(stack, ADMIN_SCOPES)
    person = records.create_user(stack)
    readers = ApiReaders(
        admin_token=_token(stack, administrator, ADMIN_SCOPES),
        person_token=_token(stack, person.id, SELF_SERVICE_SCOPES),
    )
    return MixedLoad(plan, readers)


def _token(stack: Stack, subject: str, scopes: Iterable[str]) -> str:
    return tokens.mint(
        stack.key_dir, issuer=stack.issuer, scopes=scopes, subject=subject, ttl=TOKEN_TTL
    )


async def _burst(plan: LoadPlan, n: int, outcomes: list[Outcome]) -> None:
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=0)
    async with httpx.AsyncClient(
        base_url=plan.base_url, timeout=flows.TIMEOUT, limits=limits
    ) as http:

        async def one() -> None:
            outcome, _ = await flows.run_one(
                "burst", lambda: flows.client_credentials(http, plan.client, plan.api_scope)
            )
            outcomes.append(outcome)

        await asyncio.gather(*(one() for _ in range(n)))


def burst(plan: LoadPlan, n: int) -> tuple[threading.Thread, list[Outcome]]:
    """``n`` client_credentials token requests sent at once (kind ``burst``), in a thread
    of their own: many POSTs in flight on every token replica at the same moment. The
    list fills as they are answered."""
    outcomes: list[Outcome] = []
    thread = threading.Thread(target=lambda: asyncio.run(_burst(plan, n, outcomes)))
    thread.start()
    return thread, outcomes


def between(load: Load, start: float, end: float) -> list[Outcome]:
    """The iterations that ran (if only in part) between ``start`` and ``end``."""
    return [o for o in list(load.outcomes) if o.started <= end and o.ended >= start]


def counts(outcomes: Iterable[Outcome]) -> str:
    """``kind sent/failed`` for each kind, and what the failures saw."""
    sent: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for outcome in outcomes:
        sent[outcome.kind] += 1
        if not outcome.ok:
            failed[outcome.kind] += 1
            seen[outcome.seen] += 1
    kinds = ", ".join(f"{k} {sent[k]}/{failed[k]}" for k in sorted(sent))
    total = f"{sum(sent.values())} sent, {sum(failed.values())} failed"
    return f"{total} (sent/failed: {kinds}; failures saw: {dict(seen) or 'nothing'})"


def settle(load: Load, seconds: float = 20) -> None:
    """Pause the load; failed logouts are retried meanwhile (as a person would)."""
    load.settle(seconds)
    time.sleep(0.5)
