"""Reading the settings from the environment: every value parsed, every rule checked,
every problem reported at once (:class:`~idp_common.config.settings.SettingsError`)."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, get_origin

import msgspec

from idp_common.config.rules import unsafe_defaults, validate
from idp_common.config.settings import PREFIX, Settings, SettingsError

log = logging.getLogger("idp_common.config")


def _parse_list(raw: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in raw.split(",") if part.strip())


_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off", ""})


def _parse_bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(raw)


_PARSERS: dict[type, Callable[[str], Any]] = {
    str: str,
    int: int,
    float: float,
    bool: _parse_bool,
    tuple: _parse_list,
}


def _field_kind(annotation: Any) -> type:
    if get_origin(annotation) is tuple:
        return tuple
    return annotation if annotation in (int, float, bool) else str


def _read_raw(name: str, env: Mapping[str, str], problems: list[str]) -> str | None:
    key = PREFIX + name.upper()
    file_key = key + "_FILE"
    if env.get(file_key):  # an empty *_FILE counts as unset
        try:
            return Path(env[file_key]).read_text().strip()
        except OSError as exc:
            problems.append(f"{file_key}: cannot read {env[file_key]!r} ({exc.strerror})")
            return None
    return env.get(key)


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read, parse and validate settings; raise :class:`SettingsError` listing every problem."""
    source = os.environ if env is None else env
    problems: list[str] = []
    values: dict[str, Any] = {}
    for field in msgspec.structs.fields(Settings):
        raw = _read_raw(field.name, source, problems)
        if raw is None:
            continue
        kind = _field_kind(field.type)
        try:
            values[field.name] = _PARSERS[kind](raw)
        except ValueError:
            problems.append(f"{PREFIX}{field.name.upper()}: expected {kind.__name__}, got {raw!r}")
    if "env" in values and values["env"] not in ("dev", "prod"):
        problems.append(f"SVC_ENV: must be 'dev' or 'prod', got {values.pop('env')!r}")
    # Unparseable values fall back to defaults so that every other rule is still checked.
    settings = Settings(**values)
    problems.extend(validate(settings))
    if problems:
        raise SettingsError(problems)
    for warning in unsafe_defaults(settings):
        log.warning("settings: %s", warning)
    return settings
