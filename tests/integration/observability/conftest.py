"""A stack of its own with traces on (every service exporting to an OTLP receiver in the
test process) and DEBUG logs, shared by this folder's tests."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.harness.otlp import OtlpReceiver
from tests.harness.stack import Stack, running_stack


@dataclass
class Traced:
    stack: Stack
    collector: OtlpReceiver


@pytest.fixture(scope="package")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Traced]:
    with OtlpReceiver() as collector:
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint,
            "OTEL_BSP_SCHEDULE_DELAY": "200",  # export within a fifth of a second
            "SVC_LOG_LEVEL": "DEBUG",
        }
        with running_stack(tmp_path_factory.mktemp("idp-traced"), env) as stack:
            yield Traced(stack, collector)
