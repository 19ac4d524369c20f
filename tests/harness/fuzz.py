"""Schemathesis over a service's own OpenAPI document (issues 4, 5 and 21: no 5xx, and no
answer that breaks the schema the document declares for it).

It reads ``/openapi.json`` and sends generated requests, valid and invalid, to every
operation; ``not_a_server_error`` fails on any 5xx and ``response_schema_conformance`` on
any body that breaks its declared schema. A fixed seed makes a failure repeatable; nothing
is written into the checkout.

Credentials and real values reach the generated requests through a ``schemathesis.toml``
written next to the reports (:class:`Operations`): headers and HTTP Basic per operation,
and dictionaries of real values (a client's id, a live challenge, a refresh token) that
the generator uses for a share of the requests it makes, so that they get past
authentication and lookups into the code behind them.

Phases: ``examples``, ``coverage``, ``fuzzing`` and ``stateful``; the stateful phase runs
only when the document has links (declared, or inferred by schemathesis from response
schemas, path parameters and ``Location`` headers) and the report then shows
``Stateful`` with a count of scenarios.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
CHECKS = "not_a_server_error,response_schema_conformance"
SEED = "20261121"
ALL_PHASES = ("examples", "coverage", "fuzzing", "stateful")


def _toml(value: object) -> str:
    """A TOML value (JSON's strings, numbers and arrays are TOML's too)."""
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


@dataclass(frozen=True)
class Operation:
    """One ``[[operations]]`` entry: the operations whose path matches ``path_regex``.

    ``values`` binds a parameter (``query.name``, ``body.field``, ``path.name``) to real
    values, used for ``share`` of the requests (the rest stay generated)."""

    path_regex: str
    headers: Mapping[str, str] = field(default_factory=dict)
    basic: tuple[str, str] | None = None
    values: Mapping[str, Sequence[str]] = field(default_factory=dict)
    share: float = 0.6


@dataclass
class Operations:
    """The ``schemathesis.toml`` of a run."""

    operations: list[Operation] = field(default_factory=list)

    def render(self) -> str:
        dictionaries: list[str] = []
        entries: list[str] = []
        for number, op in enumerate(self.operations):
            bindings: dict[str, object] = {}
            for parameter, values in op.values.items():
                name = f"op{number}_{parameter.replace('.', '_')}"
                dictionaries.append(f"[dictionaries.{name}]\nvalues = {_toml(list(values))}\n")
                bindings[parameter] = {"dictionary": name, "probability": op.share}
            lines = ["[[operations]]", f"include-path-regex = {_toml(op.path_regex)}"]
            if op.headers:
                lines.append(f"headers = {_toml(op.headers)}")
            if bindings:
                lines.append(f"parameters = {_toml(bindings)}")
            if op.basic:
                user, password = op.basic
                lines.append(f"auth.basic = {_toml({'username': user, 'password': password})}")
            entries.append("\n".join(lines) + "\n")
        return "\n".join(dictionaries + entries)


def address_per_path(base_url: str, network: str) -> Operations:
    """Each path of the service's document called from an address of its own
    (``network`` + ``.n``): per-address limits (failed authentications, a minute's
    requests) then count one path's requests, not the whole run's."""
    document = httpx.get(f"{base_url}/openapi.json", timeout=20).json()
    return Operations(
        [
            Operation(f"^{re.escape(path)}$", headers={"X-Forwarded-For": f"{network}.{number}"})
            for number, path in enumerate(document["paths"], start=1)
        ]
    )


def run_schemathesis(
    base_url: str,
    token: str | None,
    report_dir: Path,
    *,
    max_examples: int = 25,
    exclude_paths: tuple[str, ...] = (),
    phases: Sequence[str] = ALL_PHASES,
    operations: Operations | None = None,
    address: str | None = "198.18.250.250",
) -> subprocess.CompletedProcess[str]:
    """``token``: a bearer token for every operation (None: only what ``operations``
    gives); ``exclude_paths``: operations left out (their exact path); ``address``: the
    caller address the service sees (``X-Forwarded-For``), so the fuzzer's requests fill
    per-address limits of their own (None: each operation's own, from ``operations``;
    a header given here would override theirs)."""
    excluded = [arg for path in exclude_paths for arg in ("--exclude-path", path)]
    bearer = ["--header", f"Authorization: Bearer {token}"] if token else []
    forwarded = ["--header", f"X-Forwarded-For: {address}"] if address else []
    report_dir.mkdir(parents=True, exist_ok=True)
    config = report_dir / "schemathesis.toml"
    config.write_text((operations or Operations()).render())
    command = [
        str(SCHEMATHESIS),
        "--config-file",
        str(config),
        "run",
        f"{base_url}/openapi.json",
        "--url",
        base_url,
        "--checks",
        CHECKS,
        *bearer,
        *forwarded,
        "--phases",
        ",".join(phases),
        "--max-examples",
        str(max_examples),
        "--seed",
        SEED,
        "--request-timeout",
        "20",
        "--generation-database",
        "none",
        "--report-dir",
        str(report_dir),
        *excluded,
    ]
    # its crash cache goes to the working directory: keep it out of the checkout
    return subprocess.run(
        command, capture_output=True, text=True, timeout=900, check=False, cwd=report_dir
    )


def assert_clean(run: subprocess.CompletedProcess[str]) -> None:
    print(run.stdout[-2500:])
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "generated" in run.stdout and "passed" in run.stdout, run.stdout[-3000:]


def assert_stateful(run: subprocess.CompletedProcess[str]) -> None:
    """The stateful phase ran and followed at least one link (``API Links: N covered``)."""
    match = re.search(r"API Links:\s+(\d+) covered", run.stdout)
    assert match is not None, "no stateful phase:\n" + run.stdout[-3000:]
    assert int(match.group(1)) > 0, "the stateful phase followed no link:\n" + run.stdout[-3000:]
