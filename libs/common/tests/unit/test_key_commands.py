"""``idp keys generate | rotate | list`` (idp_common.operations.key_commands) on a temporary
directory with a fixed clock: what is written, what is pruned, and what is printed."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from idp_common.config import Settings
from idp_common.crypto.keys import KeySetError, load_key_set
from idp_common.operations import key_commands
from libs.common.tests.unit.crypto_keys.support import KEY_A, KEY_B, pkcs8

T0 = datetime(2026, 11, 26, 10, 0, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
FIRST = "20261126T100000Z.pem"
ROTATED = "20261126T110510Z.pem"  # rotated at 11:00:00: 300 s cache + 10 s reload later
#: The first key stops signing at 11:05:10; it may go 10 + 600 + 86 400 + 300 s later.
FIRST_PRUNABLE = datetime(2026, 11, 27, 11, 20, 20, tzinfo=UTC)


def run(
    command: str,
    settings: Settings,
    now: datetime,
    *,
    lead: int | None = None,
    dry_run: bool = False,
    status: int = 0,
) -> str:
    out = io.StringIO()
    if command == "generate":
        code = key_commands.generate(settings, now=now, bits=2048, if_missing=False, out=out)
    elif command == "list":
        code = key_commands.list_keys(settings, now=now, out=out)
    else:
        code = key_commands.rotate(
            settings, clock=lambda: now, bits=2048, lead=lead, dry_run=dry_run, out=out
        )
    assert code == status, out.getvalue()
    return out.getvalue()


def files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    return tmp_path / "keys"


@pytest.fixture
def settings(keys: Path) -> Settings:
    # No proxy in front (its seconds are added to the lead: test_the_proxy_adds_its_seconds).
    return Settings(key_dir=str(keys), jwks_proxy_seconds=0)


def test_generate_writes_a_key_active_now(settings: Settings, keys: Path) -> None:
    out = run("generate", settings, T0)
    assert files(keys) == [FIRST]
    assert out == (
        f"keys: wrote {keys / FIRST}; it signs once every process has re-read the directory "
        "(within 10 s, no restart). Resource servers that cached the JWKS do not know it "
        "yet: `idp keys rotate` publishes a key before it signs\n"
    )


def test_rotate_writes_the_next_key_and_list_shows_the_states(
    settings: Settings, keys: Path
) -> None:
    run("generate", settings, T0)
    out = run("rotate", settings, T0 + HOUR)
    assert files(keys) == [FIRST, ROTATED]
    kid = next(k.kid for k in load_key_set(keys).keys if k.file_name.endswith(ROTATED))
    assert out.splitlines() == [
        f"keys: wrote {keys / ROTATED} (kid {kid}), published by every process within 10 s; "
        "it signs from 2026-11-26T11:05:10Z (in 5 min 10 s)",
        "keys: no retired key to prune",
    ]

    kids = {Path(k.file_name).name: k.kid for k in load_key_set(keys).keys}
    during = run("list", settings, T0 + HOUR + timedelta(seconds=60))
    assert during.splitlines() == [
        f"{keys / FIRST}  kid={kids[FIRST]}  current  active 2026-11-26T10:00:00Z  (signs)",
        f"{keys / ROTATED}  kid={kids[ROTATED]}  next     active 2026-11-26T11:05:10Z "
        "(in 4 min 10 s)",
    ]
    after = run("list", settings, T0 + 2 * HOUR)
    assert after.splitlines() == [
        f"{keys / FIRST}  kid={kids[FIRST]}  retired  active 2026-11-26T10:00:00Z  "
        "retired 2026-11-26T11:05:10Z  prunable 2026-11-27T11:20:20Z (in 23 h 20 min 20 s)",
        f"{keys / ROTATED}  kid={kids[ROTATED]}  current  active 2026-11-26T11:05:10Z  (signs)",
    ]


def test_rotate_prunes_a_retired_key_only_past_its_horizon(settings: Settings, keys: Path) -> None:
    run("generate", settings, T0)
    run("rotate", settings, T0 + HOUR)
    early = run("rotate", settings, FIRST_PRUNABLE - timedelta(seconds=1))
    assert FIRST in files(keys)
    assert early.splitlines()[-1] == (
        "keys: no retired key to prune; the next may be pruned from 2026-11-27T11:20:20Z"
    )
    assert len(files(keys)) == 3

    due = run("rotate", settings, FIRST_PRUNABLE)
    assert FIRST not in files(keys)
    assert len(files(keys)) == 3  # the rotated key still signs; two next keys wait
    assert due.splitlines()[-1] == (
        f"keys: pruned {keys / FIRST} (retired since 2026-11-26T11:05:10Z; every token it "
        "signed has expired)"
    )
    listing = run("list", settings, FIRST_PRUNABLE)
    assert "prunable now" not in listing


def test_dry_run_changes_nothing(settings: Settings, keys: Path) -> None:
    run("generate", settings, T0)
    run("rotate", settings, T0 + HOUR)
    before = files(keys)
    out = run("rotate", settings, FIRST_PRUNABLE, dry_run=True)
    assert files(keys) == before
    assert out.splitlines() == [
        f"keys: would write {keys / '20261127T112530Z.pem'}, signing from "
        "2026-11-27T11:25:30Z (in 5 min 10 s)",
        f"keys: would prune {keys / FIRST} (retired since 2026-11-26T11:05:10Z; every token "
        "it signed has expired)",
    ]


def test_a_lead_shorter_than_cache_and_reload_is_refused(settings: Settings, keys: Path) -> None:
    run("generate", settings, T0)
    out = run("rotate", settings, T0 + HOUR, lead=309, status=2)
    assert out == (
        "rotate: --lead 309 is shorter than SVC_JWKS_CACHE_SECONDS + SVC_JWKS_PROXY_SECONDS + "
        "SVC_KEY_RELOAD_SECONDS "
        "= 310 s\n"
    )
    assert files(keys) == [FIRST]


def test_a_longer_lead_covers_a_slow_secret_propagation(settings: Settings, keys: Path) -> None:
    run("generate", settings, T0)
    out = run("rotate", settings, T0 + HOUR, lead=400)
    assert files(keys) == [FIRST, "20261126T110640Z.pem"]
    assert "it signs from 2026-11-26T11:06:40Z (in 6 min 40 s)" in out


def test_the_settings_set_the_timings(keys: Path) -> None:
    settings = Settings(
        key_dir=str(keys), jwks_cache_seconds=4, jwks_proxy_seconds=0, key_reload_seconds=1
    )
    run("generate", settings, T0)
    out = run("rotate", settings, T0)
    assert files(keys) == [FIRST, "20261126T100005Z.pem"]
    assert "it signs from 2026-11-26T10:00:05Z (in 5 s)" in out


def test_the_proxy_adds_its_seconds(keys: Path) -> None:
    settings = Settings(
        key_dir=str(keys), jwks_cache_seconds=4, jwks_proxy_seconds=3, key_reload_seconds=1
    )
    run("generate", settings, T0)
    out = run("rotate", settings, T0)
    assert files(keys) == [FIRST, "20261126T100008Z.pem"]
    assert "it signs from 2026-11-26T10:00:08Z (in 8 s)" in out


def test_rotate_stops_on_a_key_it_cannot_read(settings: Settings, keys: Path) -> None:
    run("generate", settings, T0)
    (keys / "20261126T100001Z.pem").write_text("not a key")
    with pytest.raises(KeySetError, match=r"20261126T100001Z\.pem: not a readable PEM"):
        run("rotate", settings, T0 + HOUR)
    assert files(keys) == [FIRST, "20261126T100001Z.pem"]


def test_rotate_on_a_fresh_directory_writes_the_first_key(settings: Settings, keys: Path) -> None:
    run("rotate", settings, T0)
    assert files(keys) == ["20261126T100510Z.pem"]
    listing = run("list", settings, T0)
    assert "current  active 2026-11-26T10:05:10Z  (signs: no key is active yet)" in listing


def test_hand_named_keys_are_listed_and_never_pruned(settings: Settings, keys: Path) -> None:
    keys.mkdir()
    (keys / "a.pem").write_bytes(pkcs8(KEY_A))
    (keys / "b.pem").write_bytes(pkcs8(KEY_B))
    listing = run("list", settings, T0 + timedelta(days=30)).splitlines()
    assert listing[0].endswith(
        "retired  active always (named by hand)  prune by hand (its successor is named by hand)"
    )
    assert listing[1].endswith("current  active always (named by hand)  (signs)")
    # A timed key sorts before a.pem and b.pem, active always: it could never sign.
    with pytest.raises(KeySetError, match=r"keys/a\.pem: sorts after"):
        run("rotate", settings, T0 + timedelta(days=30))
    assert files(keys) == ["a.pem", "b.pem"]
