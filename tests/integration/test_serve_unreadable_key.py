"""``idp serve`` with a key file it cannot read: one line naming the file, exit 1.

Found by ``make chaos`` (fault 7): with workers respawned (a killed worker is replaced),
a worker that failed to load the key set at start-up was respawned again and again,
printing a traceback each time, and the service never started nor exited. Every service
holds the key set, so ``idp serve`` now loads it once before starting Granian.

The test runs as root, which ignores file modes: the process runs without the
capabilities that let root do so, as an unprivileged service account would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness import infra
from tests.harness.stack import ROOT, Stack

pytestmark = pytest.mark.integration

NO_BYPASS = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


def test_an_unreadable_key_file_stops_the_start_with_one_line_naming_it(
    stack: Stack, tmp_path: Path
) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    for key in sorted(stack.key_dir.glob("*.pem")):
        shutil.copy2(key, keys / key.name)
    unreadable = sorted(keys.glob("*.pem"))[-1]
    unreadable.chmod(0o000)
    prefix = NO_BYPASS if os.geteuid() == 0 else []
    command = [*prefix, sys.executable, "-m", "idp_common.operations.cli", "serve", "token",
               "--port", str(infra.free_port())]  # fmt: skip
    process = subprocess.Popen(
        command,
        env={**os.environ, **stack.env, "SVC_KEY_DIR": str(keys)},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        pytest.fail(f"still running after 60 s:\n{output[-2000:]}")
    assert process.returncode == 1, output
    assert "Traceback" not in output, output
    lines = [line for line in output.splitlines() if line.strip()]
    assert lines == [f"serve: {unreadable}: cannot read key file (Permission denied)"], output
