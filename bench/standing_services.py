"""The services ``bench/standing_cost.py`` compares: one from this tree ("after") and one
from another checkout ("before", ``--before DIR``), on one stack's settings, keys, database
and Redis prefix.

A "before" service is ``DIR/.venv/bin/python -m idp_common.operations.cli serve NAME``
with its working directory in ``DIR``, ``DIR/.venv/bin`` first on ``PATH`` and no
``PYTHONPATH``, so nothing of this tree is imported. Three checks say so, and fail the run
otherwise:

- an import print: that interpreter, in that environment, imports ``idp_common`` and the
  services from ``DIR``;
- ``/proc``: the service's master and workers run that interpreter, in ``DIR``;
- over HTTP: the token of an ended session is still answered by the "before" code and
  refused by this tree's (see ``bench/standing_records.py``).

The database is migrated by this tree (its head, 0018 at the time of writing, adds
``users.credentials_changed_at`` (NULL) and ``clients.disabled`` (DEFAULT false)). An older
release serves a schema ahead of its own: its readiness names the database ``ahead`` and
stays ready (``idp_common.web.health``), because a rollout migrates before new replicas
start and the old ones keep serving.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.measure import ROOT
from tests.harness import infra
from tests.harness.process import Process, children
from tests.harness.stack import Stack

AFTER, BEFORE = "after", "before"
#: Python modules the compared services run; each must come from its side's tree.
MODULES = ("idp_common", "token_service", "entity_service")
_IMPORT_PRINT = (
    "import importlib, json; "
    f"print(json.dumps({{m: importlib.import_module(m).__file__ for m in {MODULES!r}}}))"
)


@dataclass(frozen=True)
class Checkout:
    """A tree whose services run: its folder and the interpreter of its environment."""

    root: Path
    python: Path

    @classmethod
    def this_tree(cls) -> Checkout:
        return cls(ROOT, ROOT / ".venv/bin/python")

    @classmethod
    def before(cls, folder: str) -> Checkout:
        root = Path(folder).resolve()
        python = root / ".venv/bin/python"
        if not python.exists():
            raise SystemExit(
                f"{python} is missing: run `uv sync --frozen` in {root} (bench/README.md)"
            )
        if root == ROOT:
            raise SystemExit("--before names this tree itself")
        return cls(root, python)

    def commit(self) -> str:
        """The checkout's commit, with ``+changes`` when tracked files differ from it."""
        git = ["git", "-C", str(self.root)]
        head = subprocess.run(
            [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        dirty = subprocess.run(
            [*git, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        return f"{head or '?'}{' +changes' if dirty else ''}"

    def environment(self, settings: dict[str, str]) -> dict[str, str]:
        """This process's environment with ``settings``, made to run this checkout: its
        ``.venv/bin`` first on ``PATH``, no other tree's, no ``PYTHONPATH``."""
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
        }
        venv_bin = str(self.python.parent)
        others = [
            entry
            for entry in env.get("PATH", "").split(os.pathsep)
            if entry and not entry.endswith("/.venv/bin")
        ]
        env["PATH"] = os.pathsep.join([venv_bin, *others])
        env["VIRTUAL_ENV"] = str(self.python.parent.parent)
        return {**env, **settings}

    def imports(self, settings: dict[str, str]) -> dict[str, str]:
        """Where this checkout's interpreter, in its environment, finds :data:`MODULES`;
        SystemExit when one comes from elsewhere."""
        out = subprocess.run(
            [str(self.python), "-c", _IMPORT_PRINT],
            env=self.environment(settings),
            cwd=self.root,
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            raise SystemExit(f"{self.python} cannot import the services:\n{out.stderr[-2000:]}")
        found: dict[str, str] = json.loads(out.stdout.strip().splitlines()[-1])
        strays = {m: f for m, f in found.items() if not Path(f).resolve().is_relative_to(self.root)}
        if strays:
            raise SystemExit(f"{self.python} imports from outside {self.root}: {strays}")
        return found

    def start(self, stack: Stack, name: str, overrides: dict[str, str], workers: int) -> Process:
        """``idp serve NAME`` of this checkout on a free port (added to ``stack.processes``,
        so that removing the stack stops it)."""
        port = infra.free_port()
        command = [str(self.python), "-m", "idp_common.operations.cli", "serve", name]
        command += ["--port", str(port), "--workers", str(workers)]
        log_path = stack.work_dir / "logs" / f"{name}-{port}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("wb") as log:
            popen = subprocess.Popen(
                command,
                env=self.environment({**stack.env, **overrides}),
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.root,
                start_new_session=True,
            )
        process = Process(name, popen, log_path, port)
        stack.processes.append(process)
        return process

    def check_process(self, process: Process) -> int:
        """The service's master and workers run this checkout's interpreter in its folder
        (``/proc``); SystemExit otherwise. Returns how many processes were checked."""
        pids = [process.popen.pid, *sorted(children(process.popen.pid))]
        for pid in pids:
            try:
                cwd = Path(os.readlink(f"/proc/{pid}/cwd")).resolve()
                argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
            except OSError as exc:
                raise SystemExit(f"{process.name} ({pid}): /proc unreadable ({exc})") from exc
            if cwd != self.root or Path(argv0) != self.python:
                raise SystemExit(
                    f"{process.name} ({pid}) runs {argv0} in {cwd}, not {self.python} in "
                    f"{self.root}"
                )
        return len(pids)


def ended_token_status(process: Process, path: str, token: str) -> int:
    """The status ``GET path`` answers with the ended session's token."""
    answer = httpx.get(process.url + path, headers={"Authorization": f"Bearer {token}"}, timeout=10)
    return answer.status_code
