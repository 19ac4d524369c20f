"""The key metrics read at scrape time (``idp_common.web.metrics_sources``)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from idp_common.crypto.keys import generate_key_file, load_key_set
from idp_common.web.metrics_sources import key_time, signing_key_families


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("20261126T100000Z.pem", datetime(2026, 11, 26, 10, 0, 0, tzinfo=UTC).timestamp()),
        ("/var/keys/20260101T000102Z.pem", datetime(2026, 1, 1, 0, 1, 2, tzinfo=UTC).timestamp()),
        ("/nowhere/signing.pem", None),  # no time in the name, no file to read a time from
        ("/nowhere/20261399T100000Z.pem", None),  # digits that are no date
    ],
)
def test_the_time_of_a_key_file(name: str, expected: float | None) -> None:
    assert key_time(name) == expected


def samples(keys_dir: Path, now: float) -> dict[str, float]:
    families = signing_key_families(load_key_set(keys_dir), "token", now)
    return {
        s.name: s.value for f in families for s in f.samples if s.labels == {"service": "token"}
    }


def test_key_age_is_the_signing_keys_named_time_and_every_key_is_counted(tmp_path: Path) -> None:
    now = datetime.now(UTC).replace(microsecond=0)  # key names hold whole seconds
    generate_key_file(tmp_path, now=now - timedelta(days=3))
    generate_key_file(tmp_path, now=now - timedelta(hours=2))
    found = samples(tmp_path, now.timestamp())
    assert found == {
        "idp_signing_key_age_seconds": 2 * 3600,
        "idp_signing_keys_published": 2,
    }


def test_a_hand_named_key_is_aged_by_its_file_time(tmp_path: Path) -> None:
    made = generate_key_file(tmp_path, now=datetime.now(UTC))
    renamed = made.with_name("signing.pem")
    made.rename(renamed)
    os.utime(renamed, (1_000_000, 1_000_000))
    found = samples(tmp_path, 1_000_060.0)
    assert found["idp_signing_key_age_seconds"] == 60
    assert found["idp_signing_keys_published"] == 1
