"""Property-based run over the self-service OpenAPI document (issue 5 acceptance 7): no 5xx
and every answer matches its declared schema (:mod:`tests.harness.fuzz`), as a real person
with every self-service permission and a fresh sign-in, on a stack of its own (it changes
the person's password, authenticator and sessions as it goes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.fuzz import assert_clean, run_schemathesis
from tests.harness.records import create_user
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi

pytestmark = pytest.mark.integration


def test_no_server_error_and_every_answer_matches_its_schema(
    private_stack: Stack, tmp_path: Path
) -> None:
    api = EntityApi(private_stack, create_user(private_stack))
    try:
        token = api.token(ttl=3600)
    finally:
        api.close()
    assert_clean(run_schemathesis(private_stack.service_url("entity"), token, tmp_path))
