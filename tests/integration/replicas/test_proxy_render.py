"""proxy/render.py with several replicas per service: every one in its upstream block, the
retry policy (what nginx may send again and what never), and the timeouts a drain needs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness.stack import NGINX, ROOT


def render(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "proxy/render.py"), "--run-dir", str(tmp_path), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def config(tmp_path: Path, *args: str) -> str:
    result = render(tmp_path, *args)
    assert result.returncode == 0, result.stderr
    return Path(result.stdout.strip()).read_text()


def upstream(text: str, name: str) -> list[str]:
    block = re.search(rf"upstream {name} \{{(.*?)\}}", text, re.S)
    assert block, name
    return [line.strip() for line in block.group(1).strip().splitlines()]


def test_every_replica_given_is_in_its_upstream_block(tmp_path: Path) -> None:
    text = config(
        tmp_path,
        *("--token", "127.0.0.1:8101", "--token", "127.0.0.1:8111,127.0.0.1:8121"),
        *("--authui", "127.0.0.1:8104, 127.0.0.1:8114"),
    )
    assert upstream(text, "token_service") == [
        "server 127.0.0.1:8101 max_fails=1 fail_timeout=2s;",
        "server 127.0.0.1:8111 max_fails=1 fail_timeout=2s;",
        "server 127.0.0.1:8121 max_fails=1 fail_timeout=2s;",
        "keepalive 32;",
        "keepalive_timeout 2s;",
    ]
    assert upstream(text, "authui_service")[:2] == [
        "server 127.0.0.1:8104 max_fails=1 fail_timeout=2s;",
        "server 127.0.0.1:8114 max_fails=1 fail_timeout=2s;",
    ]
    # Not named: the one replica of `make up`.
    assert upstream(text, "admin_service")[0].startswith("server 127.0.0.1:8102 ")
    check = subprocess.run([NGINX, "-t", "-q", "-c", str(tmp_path / "nginx.conf")],
                           capture_output=True, text=True, check=False)  # fmt: skip
    assert check.returncode == 0, check.stderr


def test_one_address_per_service_still_works(tmp_path: Path) -> None:
    text = config(tmp_path, "--token", "token:8101", "--entity", "[::1]:8103")
    assert upstream(text, "token_service")[0] == "server token:8101 max_fails=1 fail_timeout=2s;"
    assert upstream(text, "entity_service")[0] == "server [::1]:8103 max_fails=1 fail_timeout=2s;"


def test_only_failures_before_an_answer_are_retried_and_never_a_sent_post(
    tmp_path: Path,
) -> None:
    directives = [
        line.split("#", 1)[0].strip()
        for line in config(tmp_path).splitlines()
        if line.split("#", 1)[0].strip()
    ]
    assert "proxy_next_upstream error timeout;" in directives
    assert "proxy_next_upstream_tries 3;" in directives
    assert "proxy_next_upstream_timeout 5s;" in directives
    assert "proxy_connect_timeout 2s;" in directives
    # Which failures go to another replica: never a sent POST, never a 5xx answer. (The
    # JWKS cache's proxy_cache_use_stale names http_50x: it serves a kept copy, it does
    # not send the request again.)
    retries = [d for d in directives if d.startswith("proxy_next_upstream")]
    assert not [d for d in retries if "non_idempotent" in d or "http_50" in d]
    assert len([d for d in directives if d.startswith("proxy_next_upstream ")]) == 1


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (("--token", "127.0.0.1:8101; return 200"), "is not an upstream address"),
        (("--token", ""), "is not an upstream address"),
        (("--admin", "127.0.0.1"), "is not an upstream address"),
        (("--drain-seconds", "2"), "--upstream-keepalive-timeout 2 must be below"),
        (("--drain-seconds", "3", "--upstream-fail-timeout", "4"), "must not exceed"),
    ],
)
def test_what_render_refuses(tmp_path: Path, args: tuple[str, ...], problem: str) -> None:
    result = render(tmp_path, *args)
    assert result.returncode != 0
    assert problem in result.stderr


def test_timeouts_within_the_drain_are_accepted(tmp_path: Path) -> None:
    text = config(
        tmp_path,
        *("--drain-seconds", "2", "--upstream-keepalive-timeout", "1"),
        *("--upstream-fail-timeout", "1"),
    )
    assert "keepalive_timeout 1s;" in upstream(text, "token_service")
