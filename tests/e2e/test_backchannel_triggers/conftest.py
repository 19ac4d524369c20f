"""Fixtures of the back-channel trigger tests: a scene of signed-in applications."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from tests.e2e.test_backchannel_triggers.support import (
    RECEIVER_PATH,
    Scene,
)
from tests.harness import records
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack


@pytest.fixture
def scene(stack: Stack) -> Iterator[Scene]:
    with Receiver() as receiver, ExitStack() as browsers:
        app = records.create_client(
            stack, skip_consent=True, backchannel_logout_uri=receiver.url_for(RECEIVER_PATH)
        )
        yield Scene(stack, receiver, app, records.create_user(stack), browsers)
