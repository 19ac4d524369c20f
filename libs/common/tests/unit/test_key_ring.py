"""idp_common.web.key_ring: a process re-reads the key directory, takes a new set only
whole, keeps the old one when a read fails (one warning naming the file) and never stops
re-reading."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from idp_common.crypto.keys import KeySetError
from idp_common.web.key_ring import KeyRing, directory_fingerprint
from libs.common.tests.unit.crypto_keys.support import KEY_A, KEY_B, independent_thumbprint, pkcs8

KEY_C = rsa.generate_private_key(public_exponent=65537, key_size=2048)
FIRST, SECOND, THIRD = "20261120T000000Z.pem", "20261121T000000Z.pem", "20261122T000000Z.pem"


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    directory = tmp_path / "keys"
    directory.mkdir()
    (directory / FIRST).write_bytes(pkcs8(KEY_A))
    return directory


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger="idp.keys")
    return caplog


def kids(ring: KeyRing) -> list[str]:
    return [key.kid for key in ring.current().keys]


def warnings(logs: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in logs.records if r.levelno >= logging.WARNING]


def test_a_new_key_file_is_taken_and_an_unchanged_directory_is_not_parsed_again(
    keys: Path,
) -> None:
    ring = KeyRing.open(keys, reload_seconds=1)
    before = ring.current()
    assert ring.reload() is False
    assert ring.current() is before  # same object: nothing was parsed
    (keys / SECOND).write_bytes(pkcs8(KEY_B))
    assert ring.reload() is True
    assert kids(ring) == [independent_thumbprint(KEY_A), independent_thumbprint(KEY_B)]
    (keys / FIRST).unlink()  # pruned
    assert ring.reload() is True
    assert kids(ring) == [independent_thumbprint(KEY_B)]


def test_a_broken_file_keeps_the_whole_old_set_with_one_warning_naming_it(
    keys: Path, logs: pytest.LogCaptureFixture
) -> None:
    ring = KeyRing.open(keys, reload_seconds=1)
    (keys / SECOND).write_bytes(pkcs8(KEY_B))
    broken = keys / THIRD
    broken.write_bytes(pkcs8(KEY_C)[:200])  # half copied
    for _ in range(3):
        assert ring.reload() is False
    assert kids(ring) == [independent_thumbprint(KEY_A)]  # not a partial set with SECOND
    assert len(warnings(logs)) == 1, warnings(logs)
    assert str(broken) in warnings(logs)[0]
    assert "keeping the 1 key(s) read before" in warnings(logs)[0]

    broken.write_bytes(pkcs8(KEY_C))  # the copy completes
    assert ring.reload() is True
    assert len(kids(ring)) == 3
    assert any("reads well again" in r.getMessage() for r in logs.records)
    assert len(warnings(logs)) == 1


def test_a_vanished_or_unlistable_directory_keeps_the_set(
    keys: Path, logs: pytest.LogCaptureFixture
) -> None:
    ring = KeyRing.open(keys, reload_seconds=1)
    shutil.rmtree(keys)
    assert ring.reload() is False
    assert ring.reload() is False
    assert kids(ring) == [independent_thumbprint(KEY_A)]
    assert len(warnings(logs)) == 1
    assert "does not exist" in warnings(logs)[0]
    keys.mkdir()
    assert ring.reload() is False  # empty: "no signing key", a new problem, a new warning
    assert len(warnings(logs)) == 2
    assert "no signing key" in warnings(logs)[1]


def test_a_kubernetes_secret_update_is_seen(tmp_path: Path) -> None:
    """kubelet writes a Secret into a new hidden directory and swaps the ``..data`` link;
    the key files are links through it, so their names stay and their targets change."""
    volume = tmp_path / "secret"
    volume.mkdir()
    first = volume / "..2026_11_26_09_00_00.1"
    first.mkdir()
    (first / FIRST).write_bytes(pkcs8(KEY_A))
    (volume / "..data").symlink_to(first.name)
    (volume / FIRST).symlink_to(f"..data/{FIRST}")
    ring = KeyRing.open(volume, reload_seconds=1)
    assert kids(ring) == [independent_thumbprint(KEY_A)]

    second = volume / "..2026_11_26_09_05_00.2"
    second.mkdir()
    (second / FIRST).write_bytes(pkcs8(KEY_A))
    (second / SECOND).write_bytes(pkcs8(KEY_B))
    (volume / "..data_tmp").symlink_to(second.name)
    os.replace(volume / "..data_tmp", volume / "..data")
    (volume / SECOND).symlink_to(f"..data/{SECOND}")
    shutil.rmtree(first)

    assert ring.reload() is True
    assert kids(ring) == [independent_thumbprint(KEY_A), independent_thumbprint(KEY_B)]


def test_a_file_made_readable_again_is_read_again(keys: Path) -> None:
    """chmod changes neither size nor modification time; the status-change time moves,
    so a key file whose mode an operator fixed is parsed on the next read."""
    before = directory_fingerprint(keys)
    (keys / FIRST).chmod(0o000)
    assert directory_fingerprint(keys) != before
    (keys / FIRST).chmod(0o600)


def test_open_refuses_a_directory_without_keys(tmp_path: Path) -> None:
    with pytest.raises(KeySetError, match="no signing key"):
        KeyRing.open(tmp_path, reload_seconds=1)


async def test_the_background_task_picks_up_a_change_and_outlives_errors(
    keys: Path, logs: pytest.LogCaptureFixture
) -> None:
    class FailingOnce(KeyRing):
        failed = False

        def reload(self) -> bool:
            if not self.failed:
                self.failed = True
                raise RuntimeError("surprise")
            return super().reload()

    opened = KeyRing.open(keys, reload_seconds=0.05)
    ring = FailingOnce(keys, opened.current(), (), reload_seconds=0.05)
    async with ring.reloading(None):
        (keys / SECOND).write_bytes(pkcs8(KEY_B))
        for _ in range(100):
            if len(kids(ring)) == 2:
                break
            await asyncio.sleep(0.05)
    assert ring.failed
    assert len(kids(ring)) == 2
    assert any("RuntimeError: surprise" in message for message in warnings(logs))
