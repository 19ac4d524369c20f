"""Issue #22, acceptance 2: ``idp keys rotate`` while a resource API validates every token.

Two token-service replicas (one with two Granian workers) share a key directory of their
own, with time compressed by settings: the JWKS is cacheable for 4 s
(``SVC_JWKS_CACHE_SECONDS``) and every process re-reads the directory every second
(``SVC_KEY_RELOAD_SECONDS``), so a rotated key signs 5 s after ``idp keys rotate`` instead
of 310 s. A resource API in this process (PyJWT's ``PyJWKClient``, caching the JWKS for the
same 4 s, fetched round-robin from the replicas) validates every access token the replicas
issue, round-robin too, while the key is rotated twice.

The resource API never refetches on an unknown ``kid`` within its cache lifetime (its
cooldown equals the lifetime), so zero failures shows that the new key was published long
enough before it signed, not that the client recovered by refetching.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from idp_common.crypto.key_schedule import activation_of
from idp_common.crypto.keys import load_key_set
from tests.harness.process import children
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.key_rotation.support import (
    JwksSampler,
    ResourceApi,
    TokenLoad,
    own_key_dir,
)

# under load and timed: runs alone, after the parallel part (scripts/test.sh)
pytestmark = [pytest.mark.integration, pytest.mark.alone]

CACHE = 4  # SVC_JWKS_CACHE_SECONDS, and the resource API's cache lifetime
RELOAD = 1  # SVC_KEY_RELOAD_SECONDS
#: How late, at most, a worker may publish a key written by ``idp keys rotate`` beyond
#: the reload interval: the read itself, on a loaded machine.
SLACK = 0.5


def rotate(stack: Stack, env: dict[str, str], key_dir: Path) -> tuple[str, str, datetime, str]:
    """``idp keys rotate``; (new file name, its kid, its activation time, the output)."""
    before = {p.name for p in key_dir.glob("*.pem")}
    result = stack.idp("keys", "rotate", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    (name,) = {p.name for p in key_dir.glob("*.pem")} - before
    activation = activation_of(name)
    assert activation is not None
    kid = next(k.kid for k in load_key_set(key_dir).keys if Path(k.file_name).name == name)
    return name, kid, activation, result.stdout


def wait_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.time()))


def test_rotating_the_signing_key_under_load_fails_no_validation(
    extra_processes: Stack, tmp_path: Path
) -> None:
    stack = extra_processes
    key_dir = own_key_dir(stack, tmp_path)
    first_kid = load_key_set(key_dir).signing_key.kid
    env = {
        "SVC_KEY_DIR": str(key_dir),
        "SVC_JWKS_CACHE_SECONDS": str(CACHE),
        "SVC_KEY_RELOAD_SECONDS": str(RELOAD),
        "SVC_JWKS_PROXY_SECONDS": "0",  # the replicas are reached directly, no proxy
        "SVC_TOKEN_PER_IP": "1000000",  # the whole load comes from one address (its own)
        "SVC_LOG_LEVEL": "INFO",  # the replicas' logs name every re-read
    }
    scope = tf.unique("reports:read")
    audience = tf.create_api(stack, [scope])
    machine = tf.create_client(stack, scopes=[scope], grant_types=["client_credentials"])
    assert machine.secret is not None
    began = time.time()
    replicas = [stack.start_service("token", env, workers=2), stack.start_service("token", env)]
    for replica in replicas:
        stack.wait_until_up(replica)
    processes = {r.url: {r.popen.pid, *children(r.popen.pid)} for r in replicas}
    assert [len(pids) for pids in processes.values()] == [3, 2]  # masters and workers

    up = time.time()
    urls = [r.url for r in replicas]
    api = ResourceApi([url + "/.well-known/jwks.json" for url in urls], lifespan=CACHE)
    load = TokenLoad(
        urls,
        machine.client_id,
        machine.secret,
        scope,
        stack.issuer,
        audience,
        api,
        address=tf.fresh_address(),
    )
    sampler = JwksSampler(urls)
    threads = [threading.Thread(target=load.run), threading.Thread(target=sampler.run)]
    started = time.time()
    for thread in threads:
        thread.start()
    try:
        time.sleep(3)  # tokens of the first key, JWKS cached by the resource API
        _, second_kid, second_at, output = rotate(stack, env, key_dir)
        wait_until(second_at.timestamp() + CACHE + 2)  # past one more cache lifetime
        third_name, third_kid, third_at, later = rotate(stack, env, key_dir)
        wait_until(third_at.timestamp() + 3)
    finally:
        load.stop()
        sampler.stop()
        for thread in threads:
            thread.join(60)
    ended = time.time()

    # Every token issued by either replica validated, and there were many, from both.
    failures = [i for i in load.issued if i.error is not None]
    assert failures == [], failures[:5]
    assert {i.replica for i in load.issued} == set(urls)
    by_kid = {
        kid: [i for i in load.issued if i.kid == kid] for kid in (first_kid, second_kid, third_kid)
    }
    assert all(len(tokens) >= 10 for tokens in by_kid.values()), {
        k: len(v) for k, v in by_kid.items()
    }
    assert {i.kid for i in load.issued} == set(by_kid)

    # Each key signed exactly from its activation time on, in every worker of every replica.
    second, third = second_at.timestamp(), third_at.timestamp()
    for issued in load.issued:
        expected = (
            first_kid if issued.iat < second else second_kid if issued.iat < third else third_kid
        )
        assert issued.kid == expected, (issued, second_at, third_at)

    # The rotations announced those times, and the second one pruned nothing: the keys
    # retired seconds ago signed tokens that live for ten more minutes.
    assert f"it signs from {second_at:%Y-%m-%dT%H:%M:%SZ}" in output
    assert "keys: no retired key to prune" in later
    assert third_name in {p.name for p in key_dir.glob("*.pem")}
    assert len(list(key_dir.glob("*.pem"))) == 4

    # Every JWKS served published the first key (its tokens live 10 minutes), and each new
    # key from one reload interval after it was written, a cache lifetime before it signed.
    assert sampler.errors == []
    assert {s.url for s in sampler.served} == set(urls)
    assert all(first_kid in s.kids for s in sampler.served)
    directives = {
        tuple(sorted(s.cache_control.replace(" ", "").split(","))) for s in sampler.served
    }
    assert directives == {(f"max-age={CACHE}", "public")}
    for kid, activation in ((second_kid, second), (third_kid, third)):
        published_by = activation - CACHE + SLACK  # every worker of every replica
        for url in urls:
            later = [s for s in sampler.served if s.url == url and s.started >= published_by]
            assert later, (url, kid)
            missing = [s for s in later if kid not in s.kids]
            assert missing == [], (url, kid, activation, missing[:3])

    # The resource API fetched the JWKS only when its cache expired, never for an unknown kid.
    assert [f for f in api.fetches if f.refresh] == []
    assert len(api.fetches) <= (ended - started) / CACHE + 2
    assert {f.url for f in api.fetches} == {url + "/.well-known/jwks.json" for url in urls}

    print(  # the figures of the run, for the note (pytest -s)
        f"replicas up in {up - began:.1f} s; run {ended - started:.1f} s; "
        f"{len(load.issued)} tokens validated ({', '.join(str(len(v)) for v in by_kid.values())} "
        f"by the three keys); {len(sampler.served)} JWKS sampled; the resource API fetched "
        f"the JWKS {len(api.fetches)} times, {sum(f.refresh for f in api.fetches)} forced"
    )

    # No replica restarted: the same master and workers all along.
    for replica in replicas:
        assert replica.popen.poll() is None
        assert {replica.popen.pid, *children(replica.popen.pid)} == processes[replica.url]
