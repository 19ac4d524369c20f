"""The peer: node-oidc-provider in a node cluster (``bench/peer/server.mjs``), installed from
the lock file, started beside the run's stack, and the records its rows start from, made
through its own endpoints (sign-ins through its interaction API, tokens from real flows)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from bench.measure import say
from tests.harness import infra
from tests.harness.process import Process
from tests.harness.stack import Stack

HERE = Path(__file__).resolve().parent
NODE = HERE / "node_modules/.bin/node"
REDIRECT_URI = "http://127.0.0.1:9/cb"
API_SCOPE = "bench:read"
CODE_SCOPE = f"openid profile email {API_SCOPE}"
REFRESH_SCOPE = f"openid profile email offline_access {API_SCOPE}"
USERINFO_SCOPE = "openid profile email"
#: The clients of server.mjs: one authenticates with client_secret_basic (client_credentials,
#: introspection, refresh, as the token service's rows do), one with client_secret_post (the
#: code flow row, as the token service's).
BASIC_CLIENT = "bench-basic"
POST_CLIENT = "bench-post"


def ensure_installed() -> None:
    """``npm ci`` from the lock file when node_modules is missing (like scripts/lib.sh does
    for the frontends): oidc-provider, pg and Node 22 LTS, the runtime oidc-provider 9
    supports (it warns on Node 20)."""
    if NODE.exists() and (HERE / "node_modules/oidc-provider/package.json").exists():
        return
    say("installing the peer (npm ci in bench/peer: oidc-provider, pg, Node 22)")
    subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=HERE, check=True, timeout=600
    )


def versions() -> dict[str, str]:
    """The versions the run used, read from the installed packages."""

    def version(package: str) -> str:
        path = HERE / "node_modules" / package / "package.json"
        return str(json.loads(path.read_text())["version"])

    node = subprocess.run([str(NODE), "--version"], capture_output=True, text=True, check=True)
    return {
        "node": node.stdout.strip(),
        "oidc-provider": version("oidc-provider"),
        "pg": version("pg"),
    }


@dataclass
class Peer:
    """One peer cluster: its adapter, its workers' ports and, once set up, its records."""

    adapter: str  # "mem" or "pg"
    issuer: str  # the proxy's server block for this peer
    ports: list[int]
    secret: str
    db_name: str | None = None
    process: Process | None = None
    session_cookies: list[str] = field(default_factory=list)
    refresh_tokens: list[str] = field(default_factory=list)
    userinfo_token: str = ""

    @property
    def resource(self) -> str:
        return self.issuer + "/bench-api"

    @property
    def basic(self) -> str:
        pair = f"{BASIC_CLIENT}:{self.secret}".encode()
        return "Basic " + base64.b64encode(pair).decode()

    @property
    def direct(self) -> str:
        """A worker's own port (setup only; the rows go through the proxy)."""
        return f"http://127.0.0.1:{self.ports[0]}"


def new_peer(adapter: str, issuer: str, workers: int, run_id: str) -> Peer:
    ports = [infra.free_port() for _ in range(workers)]
    db_name = f"idp_peer_{run_id}" if adapter == "pg" else None
    return Peer(adapter, issuer, ports, secrets.token_urlsafe(24), db_name)


def start(stack: Stack, peer: Peer, accounts: int, account_store: str = "db") -> None:
    """The cluster, as a process of ``stack`` (stopped with it, its process group killed)."""
    env = {
        "PEER_ADAPTER": peer.adapter,
        "PEER_ISSUER": peer.issuer,
        "PEER_PORTS": ",".join(str(p) for p in peer.ports),
        "PEER_CLIENT_SECRET": peer.secret,
        "PEER_RESOURCE": peer.resource,
        "PEER_ACCOUNTS": str(accounts),
        "PEER_REDIRECT_URI": REDIRECT_URI,
        "PEER_ACCOUNT_STORE": account_store,
        "NODE_ENV": "production",
    }
    if peer.db_name is not None:
        infra.run(infra.create_database(peer.db_name))
        env["PEER_DATABASE_URL"] = infra.PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + peer.db_name
    command = [str(NODE), str(HERE / "server.mjs")]
    peer.process = stack.spawn(f"peer-{peer.adapter}", command, peer.ports[0], env)
    for port in peer.ports:
        process = Process(peer.process.name, peer.process.popen, peer.process.log_path, port)
        stack.wait_until_up(process, "/.well-known/jwks.json")


def stop(stack: Stack, peer: Peer) -> list[int]:
    """Stop the cluster and drop its database (safe to call twice); the requests each
    worker answered (it says so in its log as it stops), setup included."""
    counts: list[int] = []
    if peer.process is not None:
        peer.process.stop()
        if peer.process in stack.processes:
            stack.processes.remove(peer.process)
        log = peer.process.log_tail(200)
        counts = [int(m.group(1)) for m in re.finditer(r"peer worker \d+: (\d+) requests", log)]
        peer.process = None
    if peer.db_name is not None:
        infra.run(infra.drop_database(peer.db_name))
    return counts


def end_setup(peer: Peer) -> None:
    """The mem cluster stops copying writes between its workers (adapters.mjs)."""
    if peer.process is not None and peer.adapter == "mem":
        peer.process.popen.send_signal(signal.SIGUSR2)


# --- records made through the peer's own endpoints --------------------------------------------
def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    return verifier, challenge.rstrip(b"=").decode()


@dataclass
class Flow:
    """What one interactive code flow gave: the session cookie and the token answer."""

    cookie: str
    tokens: dict[str, object]


def _follow_to_code(http: httpx.Client, first: httpx.Response) -> str:
    """Follow the peer's redirects (authorize → interaction → resume) to the code."""
    answer = first
    for _ in range(6):
        if answer.status_code not in (302, 303):
            raise RuntimeError(f"peer setup: {answer.status_code} {answer.text[:300]!r}")
        location = answer.headers["location"]
        if location.startswith(REDIRECT_URI):
            query = parse_qs(urlsplit(location).query)
            if "code" not in query:
                raise RuntimeError(f"peer setup: redirect without code: {location[:300]}")
            return query["code"][0]
        answer = http.get(location)
    raise RuntimeError("peer setup: too many redirects")


def interactive_flow(
    base: str, peer: Peer, person: str, scope: str, *, resource: bool, client: str = BASIC_CLIENT
) -> Flow:
    """Sign ``person`` in through the interaction (a new session and a new grant for
    ``client``), then exchange the code at the token endpoint."""
    verifier, challenge = pkce_pair()
    params = {
        "response_type": "code",
        "client_id": client,
        "redirect_uri": REDIRECT_URI,
        "scope": scope,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "login_hint": person,
        "state": secrets.token_urlsafe(8),
    }
    if "offline_access" in scope:
        params["prompt"] = "consent"
    if resource:
        params["resource"] = peer.resource
    with httpx.Client(base_url=base, timeout=10) as http:
        code = _follow_to_code(http, http.get("/oauth2/authorize?" + urlencode(params)))
        cookie = "; ".join(
            f"{c.name}={c.value}" for c in http.cookies.jar if c.name.startswith("_session")
        )
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT_URI,
            "code_verifier": verifier,
        }
        if resource:
            form["resource"] = peer.resource
        headers = {}
        if client == BASIC_CLIENT:
            headers["Authorization"] = peer.basic
        else:
            form |= {"client_id": client, "client_secret": peer.secret}
        answer = http.post("/oauth2/token", data=form, headers=headers)
    if answer.status_code != 200:
        raise RuntimeError(f"peer setup: token {answer.status_code} {answer.text[:300]!r}")
    return Flow(cookie, answer.json())


def set_up(peer: Peer, base: str, sessions: int, refresh_tokens: int, people: int) -> None:
    """Sessions for the code flow (one per connection, each with a grant of the code flow's
    scopes and the API), refresh tokens (each from its own sign-in and grant, as the token
    service's are each the first of their family), and one access token for userinfo and
    introspection (opaque: oidc-provider keeps a token without a resource server for the
    userinfo endpoint, and refuses to introspect its JWT ones)."""
    for i in range(sessions):
        person = f"person-{i % people}"
        flow = interactive_flow(base, peer, person, CODE_SCOPE, resource=True, client=POST_CLIENT)
        if not flow.cookie:
            raise RuntimeError("peer setup: no session cookie after a sign-in")
        peer.session_cookies.append(flow.cookie)
    for i in range(refresh_tokens):
        flow = interactive_flow(base, peer, f"person-{i % people}", REFRESH_SCOPE, resource=True)
        token = flow.tokens.get("refresh_token")
        if not isinstance(token, str):
            raise RuntimeError(f"peer setup: no refresh token in {sorted(flow.tokens)}")
        peer.refresh_tokens.append(token)
    flow = interactive_flow(base, peer, "person-0", USERINFO_SCOPE, resource=False)
    token = flow.tokens.get("access_token")
    if not isinstance(token, str):
        raise RuntimeError("peer setup: no access token for userinfo")
    peer.userinfo_token = token
