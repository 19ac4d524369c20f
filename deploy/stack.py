#!/usr/bin/env python3
"""Read deploy/stack.toml: the services, their ports and the native stack's settings.

Standard library only (run by scripts/up.sh with the system python3, before any venv):

    python3 deploy/stack.py ports              [token]=8101 [admin]=8102 ... (bash assoc.)
    python3 deploy/stack.py proxy-port         8080
    python3 deploy/stack.py native-env FILE    write FILE (mode 0600) or append what it lacks

``native-env`` fills the ``$NAME`` placeholders from the environment (PROXY_PORT,
DATABASE_URL, REDIS_PORT, KEY_DIR, S3_PORT) and generates SECRETS_KEY and ADMIN_PASSWORD.
tests/deploy imports this module to compare compose.yaml and deploy/kubernetes/ with it.
"""

from __future__ import annotations

import base64
import os
import re
import secrets
import string
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

STACK_FILE = Path(__file__).resolve().parent / "stack.toml"
PASSWORD_ALPHABET = string.ascii_letters + string.digits
_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=")


@dataclass(frozen=True)
class Stack:
    proxy_port: int
    ports: dict[str, int]  # service name -> port, in start order
    native_settings: dict[str, str]  # name -> value template (``$NAME`` placeholders)
    follows: dict[str, list[str]]  # leader -> settings appended only with it

    @property
    def services(self) -> list[str]:
        return list(self.ports)


def load(path: Path = STACK_FILE) -> Stack:
    data = tomllib.loads(path.read_text())
    native = data["native"]
    return Stack(
        proxy_port=int(data["proxy_port"]),
        ports={name: int(port) for name, port in data["ports"].items()},
        native_settings=dict(native["settings"]),
        follows={leader: list(names) for leader, names in native["follows"].items()},
    )


def generated_values() -> dict[str, str]:
    """Fresh secrets for a new var/idp.env (the same shapes scripts/up.sh made before)."""
    key = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
    password = "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(20))
    return {"SECRETS_KEY": key, "ADMIN_PASSWORD": password}


def settings_to_add(stack: Stack, present: set[str]) -> list[str]:
    """Names missing from a settings file; a follower only when its leader is missing too."""
    followers = {name: leader for leader, names in stack.follows.items() for name in names}
    missing = [name for name in stack.native_settings if name not in present]
    return [name for name in missing if name not in followers or followers[name] not in present]


def write_native_env(stack: Stack, target: Path, values: dict[str, str]) -> list[str]:
    """Create ``target`` with every setting, or append the ones it lacks; names added."""
    present: set[str] = set()
    if target.exists():
        for line in target.read_text().splitlines():
            if match := _LINE.match(line):
                present.add(match.group(1))
    names = settings_to_add(stack, present)
    if not names:
        return []
    lines = [
        f"{name}={string.Template(stack.native_settings[name]).substitute(values)}\n"
        for name in names
    ]
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a") as out:
        out.writelines(lines)
    return names


def main(argv: list[str]) -> int:
    stack = load()
    if argv == ["ports"]:
        print(" ".join(f"[{name}]={port}" for name, port in stack.ports.items()))
    elif argv == ["proxy-port"]:
        print(stack.proxy_port)
    elif len(argv) == 2 and argv[0] == "native-env":
        target = Path(argv[1])
        existed = target.exists()
        values = {
            **generated_values(),
            **{
                k: os.environ[k]
                for k in ("PROXY_PORT", "DATABASE_URL", "REDIS_PORT", "KEY_DIR", "S3_PORT")
            },
        }
        added = write_native_env(stack, target, values)
        if added and existed:
            print(f"added to {target}: {', '.join(added)}")
        elif added:
            print(f"wrote {target}")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
