"""One nginx in front of the token service and of each peer (both pay the proxy).

The configuration is the project's (``proxy/render.py``, the per-address limits raised out
of the way, as ``bench/replicas.py`` does). Each peer gets a copy of the token service's
``server`` block on a port of its own, with ``token_service`` replaced by an upstream of
the peer's workers: a copy of ``token_service``'s upstream block (the same ``keepalive``
and ``keepalive_timeout``), its servers replaced, plus ``hash $connection`` so that every
request of one client connection goes to one worker (the mem adapter is per process; see
bench/README.md). Copying rather than writing the blocks again keeps every proxy setting
of the two sides the same, today and after the template changes; only our JWKS cache is
left out of the peer's copy (:func:`without_jwks_cache`).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.harness.process import Process
from tests.harness.replicas import upstream_args
from tests.harness.stack import NGINX, ROOT, Stack

#: The proxy's own per-address limits, raised out of the way (one address sends it all).
UNLIMITED = (
    *("--signin-rate", "1000000r/s", "--signin-burst", "1000000"),
    *("--authorize-rate", "1000000r/s", "--authorize-burst", "1000000"),
)


def block(text: str, opening: str) -> tuple[int, int]:
    """Start and end (after the closing brace) of the block that ``opening`` begins; braces
    inside single-quoted strings (the JSON bodies of ``return``) are skipped."""
    start = text.index(opening)
    depth, quoted = 0, False
    for i in range(start + len(opening) - 1, len(text)):
        char = text[i]
        if char == "'":
            quoted = not quoted
        elif not quoted and char == "{":
            depth += 1
        elif not quoted and char == "}":
            depth -= 1
            if depth == 0:
                return start, i + 1
    raise ValueError(f"unbalanced block {opening!r}")


def peer_blocks(conf: str, name: str, listen: str, ports: list[int]) -> str:
    """The upstream and server blocks of one peer, copied from the token service's."""
    start, end = block(conf, "upstream token_service {")
    upstream = conf[start:end].replace("upstream token_service", f"upstream {name}")
    upstream = re.sub(r"\n\s*server [^;]+;", "", upstream)
    servers = "".join(f"\n        server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;" for p in ports)
    upstream = upstream.replace("{", "{\n        hash $connection;" + servers, 1)
    start, end = block(conf, "\n    server {")
    server = conf[start:end].replace("http://token_service;", f"http://{name};")
    server, count = re.subn(r"listen [^;]+;", f"listen {listen};", server, count=1)
    if count != 1:
        raise ValueError("no listen directive in the server block")
    return f"\n    {upstream}\n{without_jwks_cache(server)}\n"


def without_jwks_cache(server: str) -> str:
    """The server block without our JWKS location: the proxy's cache of the key set is a
    lever of ours (docs/performance.md "JWKS at the proxy"), which node-oidc-provider does
    not ship, so its JWKS is proxied like its other ``/.well-known/`` answers."""
    start, end = block(server, "location = /.well-known/jwks.json {")
    return server[:start] + server[end:]


def start(stack: Stack, port: int, peers: dict[str, tuple[int, list[int]]]) -> Process:
    """nginx on ``port`` for the token service, and for each peer ``name → (port, worker
    ports)`` a server block on its port."""
    run_dir = stack.work_dir / f"bench-proxy-{port}"
    render = [
        sys.executable,
        str(ROOT / "proxy/render.py"),
        *("--run-dir", str(run_dir), "--listen", f"127.0.0.1:{port}", "--foreground"),
        *upstream_args(stack, {}),
        *("--avatar-max-bytes", stack.env["SVC_AVATAR_MAX_BYTES"]),
        *UNLIMITED,
    ]
    path = Path(subprocess.run(render, check=True, capture_output=True, text=True).stdout.strip())
    conf = path.read_text()
    extra = "".join(
        peer_blocks(conf, f"peer_{name}", f"127.0.0.1:{listen}", workers)
        for name, (listen, workers) in peers.items()
    )
    closing = conf.rstrip().rindex("}")  # the end of the http block
    path.write_text(conf[:closing] + extra + conf[closing:])
    subprocess.run([NGINX, "-t", "-q", "-c", str(path)], check=True, capture_output=True)
    return stack.spawn("bench-proxy", [NGINX, "-c", str(path)], port, {})
