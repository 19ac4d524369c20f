"""idp_common.crypto.keys: generating key files (UTC names in creation order)."""

from __future__ import annotations

import stat
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from idp_common.crypto.keys import (
    KeySetError,
    generate_key_file,
    load_key_set,
)
from libs.common.tests.unit.crypto_keys.support import (
    KEY_A,
    NOW,
    pkcs8,
)


def test_generate_creates_private_directory_and_file(tmp_path: Path) -> None:
    directory = tmp_path / "keys" / "nested"
    path = generate_key_file(directory, now=NOW, bits=2048)

    assert path == directory / "20261121T063500Z.pem"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    key_set = load_key_set(directory)
    assert key_set.signing_key.file_name == str(path)
    assert list(directory.iterdir()) == [path]  # no temporary file left behind


def test_generate_uses_utc_for_the_name(tmp_path: Path) -> None:
    plus_two = timezone(timedelta(hours=2))
    path = generate_key_file(
        tmp_path, now=datetime(2026, 11, 21, 8, 35, tzinfo=plus_two), bits=2048
    )
    assert path.name == "20261121T063500Z.pem"


def test_generated_names_sort_in_creation_order(tmp_path: Path) -> None:
    first = generate_key_file(tmp_path, now=NOW, bits=2048)
    same_second = generate_key_file(tmp_path, now=NOW, bits=2048)
    later = generate_key_file(tmp_path, now=NOW + timedelta(seconds=1), bits=2048)

    assert same_second.name == "20261121T063500Z_001.pem"
    key_set = load_key_set(tmp_path)
    assert [k.file_name for k in key_set.keys] == [str(first), str(same_second), str(later)]
    assert key_set.signing_key.file_name == str(later)


def test_generate_refuses_when_an_existing_key_would_stay_newest(tmp_path: Path) -> None:
    (tmp_path / "zzz.pem").write_bytes(pkcs8(KEY_A))
    with pytest.raises(KeySetError, match=r"zzz\.pem"):
        generate_key_file(tmp_path, now=NOW, bits=2048)


def test_generate_refuses_naive_time_and_small_keys(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="timezone"):
        generate_key_file(tmp_path, now=datetime(2026, 1, 1), bits=2048)
    with pytest.raises(ValueError, match="2048"):
        generate_key_file(tmp_path, now=NOW, bits=1024)
