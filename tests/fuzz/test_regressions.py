"""Every committed fuzz input (the corpus and each crash reproducer) through its target,
without atheris: each gives a value or its documented refusal (see ``targets.py``).

A crash the fuzzer finds is saved under ``crashes/<target>/``; committed with its fix,
it stays here as a regression test. Runs in ``make test`` and ``make check``-sized time
(well under a second per target).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.targets import TARGETS

#: Pillow skips a broken EXIF block with a UserWarning, as it does in the service.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:PIL.TiffImagePlugin")
HERE = Path(__file__).parent
INPUTS = sorted(
    (target, path)
    for target in TARGETS
    for folder in (HERE / "corpus" / target, HERE / "crashes" / target)
    if folder.is_dir()
    for path in folder.iterdir()
    if path.is_file() and not path.name.startswith(".")
)


def test_every_target_has_a_committed_corpus() -> None:
    assert {target for target, _ in INPUTS} == set(TARGETS)


@pytest.mark.parametrize(
    ("target", "path"), INPUTS, ids=[f"{t}/{p.parent.name}/{p.name}" for t, p in INPUTS]
)
def test_a_committed_input_gives_a_value_or_the_documented_refusal(target: str, path: Path) -> None:
    TARGETS[target](path.read_bytes())
