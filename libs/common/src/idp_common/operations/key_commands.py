"""``idp keys generate | rotate | list``: the signing keys in ``SVC_KEY_DIR``.

- ``generate`` writes a key active now: the contract's procedure (part 5), for a first key or
  an emergency. Every process signs with it within ``SVC_KEY_RELOAD_SECONDS``; resource
  servers that cached the JWKS do not know it until their cache expires.
- ``rotate`` writes the next key, active at now + ``SVC_JWKS_CACHE_SECONDS`` +
  ``SVC_JWKS_PROXY_SECONDS`` + ``SVC_KEY_RELOAD_SECONDS`` (or ``--lead``, never shorter),
  so every process publishes it and every cached JWKS (the proxy's, then a resource
  server's) has expired before it signs; then prunes the retired keys whose
  tokens have all expired (:mod:`idp_common.crypto.key_schedule`,
  :mod:`idp_common.operations.key_retention`).
- ``list`` shows each key's state (next / current / retired), activation time and, for a
  retired key, when it may be pruned.

Each algorithm has its own keys and schedule: RS256 at the top of
``SVC_KEY_DIR``, PS256, ES256 and EdDSA in the sub-directory named by the algorithm.
``generate`` and ``rotate`` take ``--alg`` (default RS256) and touch only that
algorithm's place; ``list`` shows every algorithm.

The commands read the same settings as the services: run them with the services'
``SVC_ACCESS_TOKEN_TTL``, ``SVC_JWKS_CACHE_SECONDS`` and ``SVC_KEY_RELOAD_SECONDS``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TextIO

from idp_common.config import Settings
from idp_common.crypto.key_files import KeySetError, free_name, key_files, remove_key_file
from idp_common.crypto.key_schedule import (
    KeyState,
    KeyStatus,
    RotationTimings,
    key_file_stem,
    key_statuses,
    prunable,
    rotation_activation,
)
from idp_common.crypto.keys import (
    JWS_ALGORITHM,
    SigningKey,
    algorithm_directory,
    generate_key_file,
    load_key_set,
    load_signing_key,
    new_private_key_pem,
    write_key_file,
)
from idp_common.operations.key_retention import rotation_timings

Clock = Callable[[], datetime]


def timings_of(settings: Settings) -> RotationTimings:
    return rotation_timings(
        access_token_ttl=settings.access_token_ttl,
        # A resource server may fetch the proxy's copy just before it is renewed.
        jwks_cache_seconds=settings.jwks_cache_seconds + settings.jwks_proxy_seconds,
        reload_seconds=settings.key_reload_seconds,
    )


def generate(
    settings: Settings,
    *,
    now: datetime,
    bits: int,
    if_missing: bool,
    out: TextIO,
    alg: str = JWS_ALGORITHM,
) -> int:
    directory = algorithm_directory(settings.key_dir, alg)
    existing = sorted(directory.glob("*.pem")) if directory.exists() else []
    if if_missing and existing:
        print(f"keys: {len(existing)} {alg} key file(s) in {directory}; none added", file=out)
        return 0
    path = generate_key_file(settings.key_dir, now=now, bits=bits, alg=alg)
    print(
        f"keys: wrote {path}; it signs once every process has re-read the directory "
        f"(within {settings.key_reload_seconds} s, no restart). Resource servers that cached "
        "the JWKS do not know it yet: `idp keys rotate` publishes a key before it signs",
        file=out,
    )
    return 0


def list_keys(settings: Settings, *, now: datetime, out: TextIO) -> int:
    key_set = load_key_set(settings.key_dir)
    for keys in key_set.by_algorithm.values():  # a key's path names its algorithm
        statuses = _statuses(keys, now, timings_of(settings))
        for key, status in zip(keys, statuses, strict=True):
            print(f"{key.file_name}  kid={key.kid}  {_describe(status, now)}", file=out)
    return 0


def rotate(
    settings: Settings,
    *,
    clock: Clock,
    bits: int,
    lead: int | None,
    dry_run: bool,
    out: TextIO,
    alg: str = JWS_ALGORITHM,
) -> int:
    """Write the next key of ``alg``, then prune that algorithm's retired keys; see the
    module text. Exit status 0, or 2 for a lead that is too short."""
    timings = timings_of(settings)
    directory = algorithm_directory(settings.key_dir, alg)
    wanted = None if lead is None else timedelta(seconds=lead)
    if wanted is not None and wanted < timings.lead:
        print(
            f"rotate: --lead {lead} is shorter than SVC_JWKS_CACHE_SECONDS + "
            "SVC_JWKS_PROXY_SECONDS + SVC_KEY_RELOAD_SECONDS = "
            f"{int(timings.lead.total_seconds())} s",
            file=out,
        )
        return 2
    existing = _existing(settings.key_dir, alg)  # a key that cannot be read stops it
    pem = None if dry_run else new_private_key_pem(bits, alg)  # the slow part, before the clock
    now = clock()
    activation = rotation_activation(now, timings, wanted)
    if pem is None:
        path = free_name(directory, key_file_stem(activation))
        print(f"keys: would write {path}, signing from {_when(activation, now)}", file=out)
    else:
        path = write_key_file(directory, pem, activation=activation)
        kid = load_signing_key(str(path), pem, alg).kid
        print(
            f"keys: wrote {path} (kid {kid}), published by every process within "
            f"{settings.key_reload_seconds} s; it signs from {_when(activation, now)}",
            file=out,
        )
    names = sorted([*(p.name for p in existing), path.name])
    _prune(directory, key_statuses(names, now, timings), now, dry_run=dry_run, out=out)
    return 0


def _existing(key_dir: str | Path, alg: str) -> list[Path]:
    """The key files of ``alg`` already there, each checked readable (with the whole key
    directory: a rotation never starts beside a key the services cannot read); none for
    a fresh directory."""
    root = Path(key_dir)
    if not root.exists() or not key_files(root):
        return []
    return [Path(key.file_name) for key in load_key_set(root).by_algorithm.get(alg, ())]


def _prune(
    directory: Path, statuses: list[KeyStatus], now: datetime, *, dry_run: bool, out: TextIO
) -> None:
    due = prunable(statuses, now)
    for status in due:
        path = directory / status.name
        if not dry_run:
            remove_key_file(path)
        verb = "would prune" if dry_run else "pruned"
        print(
            f"keys: {verb} {path} (retired since {_iso(status.retired_since)}; every token "
            "it signed has expired)",
            file=out,
        )
    if not due:
        waiting = [s.prunable_from for s in statuses if s.prunable_from is not None]
        later = f"; the next may be pruned from {_iso(min(waiting))}" if waiting else ""
        print(f"keys: no retired key to prune{later}", file=out)


def _statuses(
    keys: Sequence[SigningKey], now: datetime, timings: RotationTimings
) -> list[KeyStatus]:
    return key_statuses([Path(k.file_name).name for k in keys], now, timings)


def _describe(status: KeyStatus, now: datetime) -> str:
    moment = status.activation
    active = "active always (named by hand)" if moment is None else f"active {_iso(moment)}"
    if status.state is KeyState.CURRENT:
        early = moment is not None and moment > now
        return f"current  {active}  (signs{': no key is active yet' if early else ''})"
    if status.state is KeyState.NEXT and moment is not None:
        return f"next     active {_when(moment, now)}"
    if status.retired_since is None or status.prunable_from is None:
        return f"retired  {active}  prune by hand (its successor is named by hand)"
    horizon = status.prunable_from
    prune = "prunable now" if horizon <= now else f"prunable {_when(horizon, now)}"
    return f"retired  {active}  retired {_iso(status.retired_since)}  {prune}"


def _iso(moment: datetime | None) -> str:
    return "-" if moment is None else moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _when(moment: datetime, now: datetime) -> str:
    """``2026-11-26T10:05:10Z (in 5 min 10 s)``."""
    return f"{_iso(moment)} (in {_duration(moment - now)})"


def _duration(span: timedelta) -> str:
    seconds = max(0, round(span.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [(hours, "h"), (minutes, "min"), (seconds, "s")]
    shown = [f"{value} {unit}" for value, unit in parts if value]
    return " ".join(shown) or "0 s"


__all__ = ["KeySetError", "generate", "list_keys", "rotate", "timings_of"]
