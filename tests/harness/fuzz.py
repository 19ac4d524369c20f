"""Schemathesis over a service's own OpenAPI document (issues 4 and 5: no 5xx, and no
answer that breaks the schema the document declares for it).

It reads ``/openapi.json`` and sends generated requests, valid and invalid, to every
operation with the given token; ``not_a_server_error`` fails on any 5xx and
``response_schema_conformance`` on any body that breaks its declared schema. A fixed seed
makes a failure repeatable; nothing is written into the checkout.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
CHECKS = "not_a_server_error,response_schema_conformance"
SEED = "20261121"


def run_schemathesis(
    base_url: str,
    token: str,
    report_dir: Path,
    *,
    max_examples: int = 25,
    exclude_paths: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """``exclude_paths``: operations left out (their exact path)."""
    excluded = [arg for path in exclude_paths for arg in ("--exclude-path", path)]
    command = [
        str(SCHEMATHESIS),
        "run",
        f"{base_url}/openapi.json",
        "--url",
        base_url,
        "--checks",
        CHECKS,
        "--header",
        f"Authorization: Bearer {token}",
        "--header",
        "X-Forwarded-For: 198.18.250.250",
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
