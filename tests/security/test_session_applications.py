"""Attack 7: lost update of a session's applications.

Issuing a code recorded the application in the browser session by rewriting the session's
whole JSON in Redis (read, append, write back). Two codes issued at the same moment for two
applications both read the list without the other and each wrote back its own: one
application vanished from the session. It then never received its back-channel logout
token, so a person signing out stayed signed in there (and its refresh tokens, tied to the
session's sid, were the only thing still revoked).

Here one browser session asks ``/oauth2/authorize`` for codes for many applications at
once; afterwards every one of them must be recorded: in the person's session list
(``GET /entity/sessions``) and in the ``session.ended`` event that logout writes.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from tests.harness import infra, records, tokens
from tests.harness.oidc import Authorization, query_of
from tests.harness.stack import Stack

# many requests at once, each holding a database connection: runs alone (scripts/test.sh)
pytestmark = [pytest.mark.integration, pytest.mark.alone]
APPLICATIONS = 16


def test_codes_issued_at_once_record_every_application(stack: Stack) -> None:
    apps = [records.create_client(stack, skip_consent=True) for _ in range(APPLICATIONS)]
    person = records.create_user(stack)
    cookie, session = records.create_browser_session(stack, person.id)

    async def authorize_all() -> list[dict[str, str]]:
        base = stack.service_url("token")
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            answers = await asyncio.gather(
                *(
                    client.get(
                        "/oauth2/authorize",
                        params=Authorization(app).params("openid"),
                        headers={"Cookie": f"svc_session={cookie}"},
                    )
                    for app in apps
                )
            )
        return [query_of(answer.headers.get("location", "")) for answer in answers]

    issued = infra.run(authorize_all())
    assert all("code" in values for values in issued), issued
    expected = sorted(app.client_id for app in apps)

    bearer = tokens.mint(
        stack.key_dir, issuer=stack.issuer, scopes=SELF_SERVICE_SCOPES, subject=person.id
    )
    listed = httpx.get(
        stack.service_url("entity") + "/entity/sessions",
        headers={"Authorization": f"Bearer {bearer}"},
        timeout=20,
    )
    assert listed.status_code == 200, listed.text
    (item,) = listed.json()["items"]
    shown = sorted(a["clientId"] for a in item["applications"])
    assert shown == expected, f"{len(shown)} of {APPLICATIONS} applications recorded"

    ended = httpx.get(
        stack.service_url("token") + "/oauth2/logout",
        headers={"Cookie": f"svc_session={cookie}"},
        timeout=20,
    )
    assert ended.status_code == 302, ended.text
    rows = records.query(
        stack,
        "SELECT payload::text AS payload FROM event_outbox WHERE payload->>'sid' = $1",
        session.sid,
    )
    assert len(rows) == 1
    assert sorted(json.loads(str(rows[0]["payload"]))["clients"]) == expected
