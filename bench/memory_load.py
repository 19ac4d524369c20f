"""The load of the memory benchmark (``bench/memory.py``): a mix of grants and the reads
around them, driven in phases of a given number of grants.

``python -m bench.memory_load``: the job (JSON) on the first line of stdin, then one line
``{"grants": K}`` per phase; for each it drives the mix until K more grants have been
issued and prints one JSON line (what it did, by operation, and the errors by kind). The
agents keep their state from phase to phase (session cookie, refresh token, the last
access token), so the orchestrator samples the services' memory between two phases while
nothing is in flight. An empty line or end of input ends it.

Each agent is one browser and one application, with a keep-alive connection of its own
to each service (no HTTP library: the generator shares the two cores with the services).
A grant is one token response: client_credentials, refresh_token (rotation: the new
refresh token replaces the old) or authorization_code (GET /oauth2/authorize with the
session cookie, then the exchange, PKCE S256). Without a session the code flow starts
with a password sign-in (authorize without a cookie, POST /api/v1/auth/login to the
sign-in service, then authorize again with the new cookie); after ``session_flows`` code
flows the agent logs out (POST /oauth2/logout), which revokes the session's refresh
tokens and has the logout dispatcher post a logout token to the client's back-channel
receiver. After a grant, with the job's shares: userinfo with the agent's last user
access token, introspection of the token just issued, one read of the admin service and
one of the entity service (the agent's person, a token minted by the orchestrator).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import random
import secrets
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import uvloop

from bench.loadgen_http import SAMPLE_CHARS, Answer, Connection, Failure, failure_of, http_request

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
TIMEOUT_S = 60.0  # a sign-in waits behind argon2 on a busy machine


@dataclass
class Phase:
    """One phase: grants reserved before each attempt, so no more than ``target`` are made."""

    target: int
    max_errors: int
    reserved: int = 0
    grants: int = 0
    ops: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    samples: dict[str, str] = field(default_factory=dict)

    def reserve(self) -> bool:
        if self.reserved >= self.target or self.error_count > self.max_errors:
            return False
        self.reserved += 1
        return True

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    def failed(self, kind: str, sample: str) -> None:
        self.errors[kind] += 1
        self.samples.setdefault(kind, sample[:SAMPLE_CHARS])


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def json_of(answer: Answer, what: str, member: bytes) -> dict[str, Any]:
    if answer.status != 200:
        raise failure_of(answer, what)
    if member not in answer.body:
        raise Failure(f"{what}: 200 without {member.decode()}", answer.body.decode("replace"))
    parsed: dict[str, Any] = json.loads(answer.body)
    return parsed


def location_query(answer: Answer, what: str, name: str) -> tuple[str, str]:
    """(path?query of the redirect, the value of ``name`` in its query)."""
    if answer.status not in (302, 303):
        raise failure_of(answer, what)
    parts = urlsplit(answer.headers.get(b"location", b"").decode())
    values = parse_qs(parts.query).get(name)
    if not values:
        raise Failure(f"{what}: redirect without {name}", parts.geturl()[:SAMPLE_CHARS])
    return f"{parts.path}?{parts.query}", values[0]


class Agent:
    def __init__(self, job: dict[str, Any], index: int) -> None:
        self.job = job
        self.rng = random.Random(f"{job['seed']}-{index}")
        person = job["people"][index % len(job["people"])]
        self.email, self.password, self.entity_token = person
        ports = job["ports"]
        self.conns = {name: Connection("127.0.0.1", ports[name]) for name in ports}
        self.hosts = {name: f"127.0.0.1:{port}" for name, port in ports.items()}
        self.cookie: str | None = None
        self.flows = 0  # code flows in the current session
        self.refresh_token: str | None = None
        self.user_access: str | None = None
        self.reads = 0

    async def send(
        self, service: str, method: str, path: str, headers: dict[str, str], body: bytes = b""
    ) -> Answer:
        conn = self.conns[service]
        raw = http_request(method, path, self.hosts[service], headers, body)
        reused = conn.writer is not None
        try:
            return await conn.send(raw)
        except (OSError, asyncio.IncompleteReadError):
            conn.close()
            if not reused:
                raise
            return await conn.send(raw)  # the server closed an idle keep-alive connection

    def token_post(self, form: str) -> tuple[dict[str, str], bytes]:
        return {"Authorization": self.job["basic"], **FORM}, form.encode()

    # --- grants ----------------------------------------------------------------------
    async def client_credentials(self, phase: Phase) -> str:
        headers, body = self.token_post(self.job["cc_form"])
        answer = await self.send("token", "POST", "/oauth2/token", headers, body)
        phase.ops["client_credentials"] += 1
        return str(json_of(answer, "client_credentials", b'"access_token"')["access_token"])

    async def refresh(self, phase: Phase) -> str:
        assert self.refresh_token is not None
        form = f"grant_type=refresh_token&refresh_token={quote(self.refresh_token, safe='')}"
        self.refresh_token = None  # single-use, whatever the answer
        answer = await self.send("token", "POST", "/oauth2/token", *self.token_post(form))
        phase.ops["refresh"] += 1
        return self.user_tokens(json_of(answer, "refresh", b'"refresh_token"'))

    def user_tokens(self, tokens: dict[str, Any]) -> str:
        self.refresh_token = tokens.get("refresh_token")
        self.user_access = str(tokens["access_token"])
        return self.user_access

    async def code_flow(self, phase: Phase) -> str:
        if self.cookie is not None and self.flows >= self.job["session_flows"]:
            await self.logout(phase)
        verifier, challenge = pkce_pair()
        state = secrets.token_urlsafe(8)
        path = f"{self.job['authorize_path']}&code_challenge={challenge}&state={state}"
        path += f"&nonce={secrets.token_urlsafe(8)}"
        if self.cookie is None:
            path = await self.sign_in(path, phase)
        first = await self.send("token", "GET", path, {"Cookie": self.cookie or ""})
        phase.ops["authorize"] += 1
        _, code = location_query(first, "authorize", "code")
        self.flows += 1
        form = self.job["code_form"] + f"&code={quote(code, safe='')}&code_verifier={verifier}"
        answer = await self.send("token", "POST", "/oauth2/token", *self.token_post(form))
        phase.ops["code_exchange"] += 1
        return self.user_tokens(json_of(answer, "code exchange", b'"access_token"'))

    async def sign_in(self, authorize_path: str, phase: Phase) -> str:
        """A password sign-in for ``authorize_path``: the path to authorize again with."""
        first = await self.send("token", "GET", authorize_path, {})
        phase.ops["authorize"] += 1
        _, challenge = location_query(first, "authorize without a session", "challenge")
        body = json.dumps({"challenge": challenge, "email": self.email, "password": self.password})
        headers = {"Content-Type": "application/json"}
        step = await self.send("authui-api", "POST", "/api/v1/auth/login", headers, body.encode())
        phase.ops["sign_in"] += 1
        next_step = json_of(step, "sign-in", b'"redirectTo"')
        cookie = step.headers.get(b"set-cookie", b"").split(b";", 1)[0].decode()
        if not cookie:
            raise Failure("sign-in: 200 without a session cookie", step.body.decode("replace"))
        self.cookie, self.flows = cookie, 0
        parts = urlsplit(str(next_step["redirectTo"]))
        return f"{parts.path}?{parts.query}"

    async def logout(self, phase: Phase) -> None:
        form = f"client_id={quote(self.job['client_id'], safe='')}".encode()
        cookie, self.cookie = self.cookie or "", None
        self.refresh_token = None  # the session's refresh tokens end with it
        answer = await self.send(
            "token", "POST", "/oauth2/logout", {"Cookie": cookie, **FORM}, form
        )
        phase.ops["logout"] += 1
        if answer.status != 303:
            raise failure_of(answer, "logout")

    # --- reads -----------------------------------------------------------------------
    async def reads_after(self, issued: str, phase: Phase) -> None:
        shares = self.job["shares"]
        if self.user_access and self.rng.random() < shares["userinfo"]:
            bearer = {"Authorization": f"Bearer {self.user_access}"}
            answer = await self.send("token", "GET", "/oauth2/userinfo", bearer)
            phase.ops["userinfo"] += 1
            json_of(answer, "userinfo", b'"sub"')
        if self.rng.random() < shares["introspection"]:
            form = f"token={quote(issued, safe='')}&token_type_hint=access_token"
            answer = await self.send("token", "POST", "/oauth2/introspect", *self.token_post(form))
            phase.ops["introspection"] += 1
            json_of(answer, "introspection", b'"active":true')
        for service, token in (("admin", self.job["admin_token"]), ("entity", self.entity_token)):
            if self.rng.random() < shares[service]:
                paths = self.job["read_paths"][service]
                self.reads += 1
                path = paths[self.reads % len(paths)]
                answer = await self.send(service, "GET", path, {"Authorization": f"Bearer {token}"})
                phase.ops[f"{service}_read"] += 1
                if answer.status != 200:
                    raise failure_of(answer, f"{service} GET {path.split('?')[0]}")

    async def grant(self, phase: Phase) -> str:
        """One grant of the mix; the token it issued."""
        shares = self.job["shares"]
        pick = self.rng.random()
        if pick < shares["client_credentials"]:
            issued = await self.client_credentials(phase)
        elif pick < shares["client_credentials"] + shares["refresh"] and self.refresh_token:
            issued = await self.refresh(phase)
        else:  # the code flow, and the refresh share while no refresh token is held
            issued = await self.code_flow(phase)
        phase.grants += 1
        return issued

    async def run(self, phase: Phase) -> None:
        while phase.reserve():
            granted = False
            try:
                issued = await asyncio.wait_for(self.grant(phase), TIMEOUT_S)
                granted = True
                await asyncio.wait_for(self.reads_after(issued, phase), TIMEOUT_S)
            except Failure as exc:
                phase.failed(exc.kind, exc.sample)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
                for conn in self.conns.values():
                    conn.close()
                kind = "timeout" if isinstance(exc, TimeoutError) else type(exc).__name__
                phase.failed(kind, str(exc))
            if not granted:  # the failed attempt gives its grant back
                phase.reserved -= 1


async def drive(job: dict[str, Any], agents: list[Agent], grants: int) -> dict[str, Any]:
    phase = Phase(target=grants, max_errors=max(100, grants // 10))
    started = time.monotonic()
    await asyncio.gather(*(agent.run(phase) for agent in agents))
    return {
        "grants": phase.grants,
        "seconds": time.monotonic() - started,
        "ops": dict(phase.ops),
        "errors": dict(phase.errors),
        "samples": phase.samples,
    }


async def serve(job: dict[str, Any]) -> None:
    agents = [Agent(job, i) for i in range(int(job["connections"]))]
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line.strip():
            return
        result = await drive(job, agents, int(json.loads(line)["grants"]))
        print(json.dumps(result), flush=True)


def main() -> None:
    job = json.loads(sys.stdin.readline())
    uvloop.run(serve(job))


if __name__ == "__main__":
    main()
