"""The issue's yardstick: a bare Litestar route that signs one RS256 JWT, under Granian.

Issue 3 names its targets for a machine where this route does "about 4,300/s". Machines
differ (the same 2 cores have measured 2.5 times slower at RSA), so the benchmark serves
this route with the services' Granian settings and worker count, measures it in the same
run, and scales the issue's targets by ``measured / 4,300``.

Nothing of the provider runs here: one POST route, claims built inline, joserfc signing
with the run's newest 2048-bit key on the event loop (no thread hop), and a JSON answer.

Run: ``python -m bench.bare_sign KEY_DIR PORT WORKERS``.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from typing import Any

from granian import Granian
from granian.constants import Interfaces
from joserfc import jwt
from litestar import Litestar, post

from idp_common.crypto.keys import load_key_set

#: The figure the issue quotes for this route on its machine.
ISSUE_BARE_RATE = 4300.0


def app() -> Litestar:
    key = load_key_set(os.environ["BENCH_KEY_DIR"]).signing_key

    @post("/sign", sync_to_thread=False, status_code=200)
    def sign() -> dict[str, Any]:
        now = int(time.time())
        claims = {
            "iss": "http://127.0.0.1/bench",
            "sub": str(uuid.uuid4()),
            "aud": "bench",
            "iat": now,
            "exp": now + 600,
            "jti": uuid.uuid4().hex,
        }
        header = {"alg": "RS256", "kid": key.kid, "typ": "at+jwt"}
        return {"access_token": jwt.encode(header, claims, key.key)}

    return Litestar([sign])


def serve(target: str, interface: Interfaces, argv: list[str]) -> int:
    """Serve the app factory ``target`` on 127.0.0.1 with ``argv`` = KEY_DIR PORT WORKERS
    (the key directory reaches the factory as ``BENCH_KEY_DIR``)."""
    key_dir, port, workers = argv
    os.environ["BENCH_KEY_DIR"] = key_dir
    Granian(
        target,
        factory=True,
        interface=interface,
        address="127.0.0.1",
        port=int(port),
        workers=int(workers),
        log_access=False,
    ).serve()
    return 0


def main(argv: list[str]) -> int:
    return serve("bench.bare_sign:app", Interfaces.ASGI, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
