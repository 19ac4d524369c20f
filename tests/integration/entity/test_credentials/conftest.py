"""Fixtures of the ``/entity/credentials`` tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness.stack import Stack, start_with_mail_catcher


@pytest.fixture
def mailed_entity(extra_processes: Stack, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The mail catcher on a free port and an entity service that sends to it."""
    mail_dir = tmp_path / "mail"
    service = start_with_mail_catcher(extra_processes, "entity", mail_dir)
    yield service.url, mail_dir
