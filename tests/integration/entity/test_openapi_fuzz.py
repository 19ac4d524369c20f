"""Property-based run over the self-service OpenAPI document (issue 5 acceptance 7): no 5xx
and every answer matches its declared schema (:mod:`tests.harness.fuzz`), as a real person
with every self-service permission and a fresh sign-in. It changes the person's password,
authenticator, photo and sessions as it goes: only its own person's, so it runs on the
shared stack (issue #21: a stack start is most of a minute), each path from a caller
address of its own (the coverage phase's requests without a token would otherwise fill
the address's ``SVC_AUTH_FAIL_PER_IP`` and leave the rest of the run answered 429).

Its stateful phase follows the document's links (issue #21) from the lists of sessions
and connections to ending one, so the person has three sessions and two connected
applications."""

from __future__ import annotations

from pathlib import Path

import pytest

from idp_common.face.engine import models_dir
from tests.harness.fuzz import (
    address_per_path,
    assert_clean,
    assert_stateful,
    run_schemathesis,
)
from tests.harness.records import (
    create_browser_session,
    create_client,
    create_user,
    give_consent,
)
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi

pytestmark = pytest.mark.integration


def test_no_server_error_and_every_answer_matches_its_schema(stack: Stack, tmp_path: Path) -> None:
    person = create_user(stack)
    # What the stateful phase follows its links to: GET /entity/sessions -> DELETE
    # /entity/sessions/{id}, GET /entity/connections -> DELETE /entity/connections/{id}.
    for _ in range(3):
        create_browser_session(stack, person.id)
    for _ in range(2):
        app = create_client(stack)
        give_consent(stack, app.client_id, person.id, ["openid", "profile"])
    api = EntityApi(stack, person)
    try:
        token = api.token(ttl=3600)
    finally:
        api.close()
    # Without the optional face stack /entity/face answers 503 by design
    # (tests/integration/test_face_unavailable.py checks that answer).
    skip = () if models_dir() is not None else ("/entity/face",)
    url = stack.service_url("entity")
    operations = address_per_path(url, "198.18.25")
    run = run_schemathesis(
        url, token, tmp_path, exclude_paths=skip, operations=operations, address=None
    )
    assert_clean(run)
    assert_stateful(run)
