"""``idp keys`` (generate, list) and ``idp check-settings``: bad settings refused with every
problem named, good ones accepted."""

from __future__ import annotations

import stat
import time
from pathlib import Path

import pytest

from tests.harness import infra
from tests.integration.test_operator_tool.support import (
    BAD_SETTINGS_TIMEOUT,
    ISSUER,
    Database,
    base_env,
    key_files,
    run_idp,
)

pytestmark = pytest.mark.integration


def test_keys_generate_and_list(db: Database, tmp_path: Path) -> None:
    key_dir = tmp_path / "keys"  # does not exist yet: the tool creates it
    env = base_env(db, key_dir)

    run_idp(env, "keys", "generate", "--if-missing", "--bits", "2048")
    first = key_files(key_dir)
    assert len(first) == 1
    assert stat.S_IMODE((key_dir / first[0]).stat().st_mode) == 0o600

    again = run_idp(env, "keys", "generate", "--if-missing", "--bits", "2048")
    assert key_files(key_dir) == first
    assert "none added" in again.stdout

    run_idp(env, "keys", "generate", "--bits", "2048")
    both = key_files(key_dir)
    assert len(both) == 2
    newest = (set(both) - set(first)).pop()
    assert newest > first[0]
    assert both == [first[0], newest]

    listing = run_idp(env, "keys", "list").stdout.strip().splitlines()
    assert len(listing) == 2, listing
    by_file = {name: next(line for line in listing if name in line) for name in both}
    assert "signs" in by_file[newest]
    assert "signs" not in by_file[first[0]]
    assert all("kid=" in line for line in listing)


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(("serve", "token", "--port", str(infra.free_port())), id="serve-token"),
        pytest.param(("check-settings",), id="check-settings"),
    ],
)
def test_bad_settings_refused_with_every_problem(
    db: Database, tmp_path: Path, command: tuple[str, ...]
) -> None:
    env = base_env(db, tmp_path / "keys", SVC_API_PREFIX="/x", SVC_FORWARDED_ALLOW_IPS="*")
    started = time.monotonic()
    result = run_idp(env, *command, check=False, timeout=BAD_SETTINGS_TIMEOUT)
    assert time.monotonic() - started < BAD_SETTINGS_TIMEOUT
    assert result.returncode != 0
    assert "SVC_API_PREFIX" in result.stderr
    assert "SVC_FORWARDED_ALLOW_IPS" in result.stderr
    assert "'*'" in result.stderr


def test_check_settings_accepts_good_settings(db: Database, tmp_path: Path) -> None:
    result = run_idp(base_env(db, tmp_path / "keys"), "check-settings")
    assert "valid" in result.stdout
    assert ISSUER in result.stdout
