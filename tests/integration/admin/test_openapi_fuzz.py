"""Property-based run over the admin OpenAPI document (issue 4 acceptance 6): no 5xx and
every answer matches its declared schema (:mod:`tests.harness.fuzz`), with a token holding
every admin permission, on a stack of its own: its stateful phase follows links and may
change anything, the seeded administrator role included."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.harness import tokens
from tests.harness.api import TWO_FACTOR_SIGN_IN, create_administrator
from tests.harness.fuzz import assert_clean, run_schemathesis
from tests.harness.stack import Stack
from tests.integration.admin.contract import ALL_ADMIN_SCOPES

pytestmark = pytest.mark.integration


def test_no_server_error_and_every_answer_matches_its_schema(
    private_stack: Stack, tmp_path: Path
) -> None:
    stack = private_stack
    # A real administrator who signed in with two factors: the grant and credential
    # routes then run to their end (past SVC_RECENT_SIGN_IN_MAX_AGE they answer 403).
    token = tokens.mint(
        stack.key_dir,
        issuer=stack.issuer,
        scopes=ALL_ADMIN_SCOPES,
        subject=create_administrator(stack, ALL_ADMIN_SCOPES),
        ttl=3600,
        auth_time=int(time.time()),
        **TWO_FACTOR_SIGN_IN,
    )
    assert_clean(run_schemathesis(stack.service_url("admin"), token, tmp_path))
