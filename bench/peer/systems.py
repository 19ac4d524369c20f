"""The systems of the side-by-side run and the six rows, each measured the same way for
every system: wrk (``bench/lua/request.lua``) for the fixed requests, ``bench/loadgen.py``
for the refresh chains and the code flow, the same concurrency and windows."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from bench import records as rec
from bench.cpu import ClassMeter, ProcessClass
from bench.measure import FORM, Result, WrkRequest, gen_row, wrk_row
from bench.peer import node
from tests.harness.records import pkce_pair

#: (key, label, unit) of the rows, in the order they are measured.
ROWS = (
    ("client_credentials", "client_credentials", "req/s"),
    ("jwks", "JWKS", "req/s"),
    ("introspection", "introspection", "req/s"),
    ("userinfo", "userinfo", "req/s"),
    ("refresh", "refresh with rotation", "req/s"),
    ("code_flow", "code flow, authorize + exchange", "flows/s"),
)
#: The rows the Python floor (bench/peer/floor.py) takes part in: those that sign.
FLOOR_ROWS = frozenset({"client_credentials", "refresh", "code_flow"})
FLOOR_REDIRECT = "http://127.0.0.1/floor/cb"
#: Single-use tokens each connection may fall back on after a failed refresh, per run.
SPARE_REFRESH = 16
#: What a code flow's token answer must hold to count (on every system).
TOKEN_EXPECT = ["access_token", "id_token", "refresh_token"]


@dataclass
class System:
    key: str  # ours, ours_direct, peer_mem, peer_pg
    label: str
    port: int  # where the load goes (the proxy's server block, or the token service)
    classes: dict[str, ProcessClass]
    basic: str  # Authorization of the client_secret_basic client
    cc_body: str
    access_token: str  # for introspection and userinfo
    refresh_tokens: Callable[[int], list[str]]  # n fresh tokens, each first of its family
    refresh_extra: str
    code_job: dict[str, Any]
    rows: frozenset[str] | None = None  # the rows it takes part in (None: all)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def measures(self, row: str) -> bool:
        return self.rows is None or row in self.rows

    def host_job(self) -> dict[str, Any]:
        return {"host": "127.0.0.1", "port": self.port, "host_header": f"127.0.0.1:{self.port}"}


@dataclass
class Measurement:
    row: str
    system: str
    run: int
    result: Result
    cpu_seconds: dict[str, float] = field(default_factory=dict)


def code_job(
    client_id: str, secret: str, redirect_uri: str, scope: str, resource: str | None
) -> dict[str, Any]:
    """GET /oauth2/authorize with the connection's session cookie, then POST /oauth2/token
    with client_secret_post and PKCE S256 (``bench/loadgen_operations.code_flow``)."""
    verifier, challenge = pkce_pair()
    extra = f"&resource={quote(resource, safe='')}" if resource else ""
    authorize = (
        f"/oauth2/authorize?response_type=code&client_id={quote(client_id)}"
        f"&redirect_uri={quote(redirect_uri, safe='')}&scope={quote(scope)}"
        f"&code_challenge={challenge}&code_challenge_method=S256{extra}"
    )
    token_body = (
        f"grant_type=authorization_code&redirect_uri={quote(redirect_uri, safe='')}"
        f"&code_verifier={verifier}&client_id={quote(client_id, safe='')}"
        f"&client_secret={quote(secret, safe='')}{extra}"
    )
    return {"authorize_path": authorize, "token_body": token_body, "token_expect": TOKEN_EXPECT}


def measure(row: str, system: System, opts: argparse.Namespace, run: int, conc: int) -> Measurement:
    label = dict((key, text) for key, text, _ in ROWS)[row]
    # the base Meter's "this run" (so that oth cpu is the rest of the machine): the
    # system's processes and its database's backends
    roots = [pid for kind in system.classes.values() for pid in kind.roots]
    databases = system.classes["postgres"].databases
    meter = ClassMeter(
        roots, databases[0] if databases else "(no database)", classes=system.classes
    )
    basic = {"Authorization": system.basic, "Content-Type": FORM}
    fixed = {
        "client_credentials": WrkRequest(
            "/oauth2/token", "POST", basic, system.cc_body, '"access_token"'
        ),
        "jwks": WrkRequest("/.well-known/jwks.json", expect='"keys"'),
        "introspection": WrkRequest(
            "/oauth2/introspect",
            "POST",
            basic,
            f"token={system.access_token}&token_type_hint=access_token",
            '"active":true',
        ),
        "userinfo": WrkRequest(
            "/oauth2/userinfo",
            headers={"Authorization": f"Bearer {system.access_token}"},
            expect='"sub"',
        ),
    }
    if row in fixed:
        result = wrk_row(row, label, system.base, fixed[row], conc, opts, meter)
    elif row == "refresh":
        job = {
            **system.host_job(),
            "scenario": "refresh_chain",
            "authorization": system.basic,
            "refresh_extra": system.refresh_extra,
            "timeout": 10.0,
        }
        pool = system.refresh_tokens(conc + SPARE_REFRESH)
        result, _ = gen_row(row, label, "req/s", job, conc, opts, meter, pool)
    else:
        job = {**system.host_job(), **system.code_job, "scenario": "code_flow", "timeout": 10.0}
        result, _ = gen_row(row, label, "flows/s", job, conc, opts, meter)
    return Measurement(row, system.key, run, result, meter.seconds)


def ours_code_job(fixtures: rec.Fixtures) -> dict[str, Any]:
    client = fixtures.client
    job = code_job(
        client.client_id, client.secret or "", client.redirect_uri, rec.REFRESH_SCOPE, None
    )
    job["cookies"] = [s.cookie for s in fixtures.sessions]
    return job


def peer_code_job(peer: node.Peer) -> dict[str, Any]:
    scope = node.CODE_SCOPE
    job = code_job(node.POST_CLIENT, peer.secret, node.REDIRECT_URI, scope, peer.resource)
    job["cookies"] = peer.session_cookies
    return job
