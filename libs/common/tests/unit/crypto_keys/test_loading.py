"""idp_common.crypto.keys: loading the key directory and refusing bad key files by name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from idp_common.crypto.keys import (
    KeySetError,
    load_key_set,
    load_signing_key,
)
from libs.common.tests.unit.crypto_keys.support import (
    KEY_A,
    KEY_B,
    ec_pem,
    encrypted_pem,
    independent_thumbprint,
    pkcs1,
    pkcs8,
    public_only_pem,
    small_rsa_pem,
)


def test_load_orders_by_file_name_and_newest_signs(tmp_path: Path) -> None:
    (tmp_path / "20260102T000000Z.pem").write_bytes(pkcs8(KEY_A))
    (tmp_path / "20250101T000000Z.pem").write_bytes(pkcs1(KEY_B))  # PKCS#1 is accepted too
    (tmp_path / "README.txt").write_text("not a key")
    (tmp_path / ".hidden.pem").write_text("ignored")
    (tmp_path / "sub.pem").mkdir()  # a directory is ignored

    key_set = load_key_set(tmp_path)

    assert [Path(k.file_name).name for k in key_set.keys] == [
        "20250101T000000Z.pem",
        "20260102T000000Z.pem",
    ]
    assert key_set.signing_key.kid == independent_thumbprint(KEY_A)
    assert key_set.keys[0].kid == independent_thumbprint(KEY_B)


def test_load_accepts_str_path(tmp_path: Path) -> None:
    (tmp_path / "k.pem").write_bytes(pkcs8(KEY_A))
    assert load_key_set(str(tmp_path)).signing_key.kid == independent_thumbprint(KEY_A)


def test_missing_directory_refused(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(KeySetError, match="does not exist") as info:
        load_key_set(missing)
    assert str(missing) in str(info.value)


def test_directory_without_key_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(KeySetError, match="no signing key"):
        load_key_set(tmp_path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(lambda: b"not a pem at all", "not a readable PEM private key", id="garbage"),
        pytest.param(lambda: b"", "not a readable PEM private key", id="empty"),
        pytest.param(public_only_pem, "not a readable PEM private key", id="public-key"),
        pytest.param(ec_pem, "not an RSA private key", id="ec-key"),
        pytest.param(small_rsa_pem, "1024 bits is too small", id="rsa-1024"),
        pytest.param(encrypted_pem, "encrypted keys are not supported", id="encrypted"),
    ],
)
def test_bad_key_file_refused_naming_the_file(
    tmp_path: Path, content: Callable[[], bytes], message: str
) -> None:
    (tmp_path / "a-good.pem").write_bytes(pkcs8(KEY_A))
    bad = tmp_path / "b-bad.pem"
    bad.write_bytes(content())
    with pytest.raises(KeySetError) as info:
        load_key_set(tmp_path)
    assert str(bad) in str(info.value)
    assert message in str(info.value)


def test_load_signing_key_names_the_file() -> None:
    with pytest.raises(KeySetError, match=r"^some/file\.pem: "):
        load_signing_key("some/file.pem", b"junk")
