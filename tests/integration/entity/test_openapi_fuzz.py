"""Property-based run over the self-service OpenAPI document (issue 5 acceptance 7): no 5xx
and every answer matches its declared schema (:mod:`tests.harness.fuzz`), as a real person
with every self-service permission and a fresh sign-in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.fuzz import assert_clean, run_schemathesis
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi

pytestmark = pytest.mark.integration


def test_no_server_error_and_every_answer_matches_its_schema(
    stack: Stack, entity_api: EntityApi, tmp_path: Path
) -> None:
    token = entity_api.token(ttl=3600)
    assert_clean(run_schemathesis(stack.service_url("entity"), token, tmp_path))
