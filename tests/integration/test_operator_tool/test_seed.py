"""``idp seed``: the provider's API, scopes, administrator role and console client, and a
second seed that changes nothing."""

from __future__ import annotations

import pytest

from idp_common.protocol.constants import (
    ADMIN_SCOPES,
    IDP_SCOPE_DESCRIPTIONS,
    OIDC_SCOPES,
    SELF_SERVICE_SCOPES,
)
from tests.integration.test_operator_tool.support import (
    CATALOGUE_TABLES,
    IDP_SCOPES,
    ISSUER,
    Cli,
    Database,
    numbers,
    scopes_of_client,
    scopes_of_role,
)

pytestmark = pytest.mark.integration


def test_second_seed_changes_nothing(db: Database, cli: Cli, seeded: str) -> None:
    cli("seed")  # whatever ran before, the catalogue is now complete
    before = db.snapshot(CATALOGUE_TABLES)
    assert all(before.values()), before  # every table holds rows

    again = cli("seed")

    assert db.snapshot(CATALOGUE_TABLES) == before
    counts = numbers(again.stdout)
    assert counts, again.stdout
    assert all(n == 0 for n in counts), f"second seed added something: {again.stdout}"


def test_seeded_idp_api(db: Database, seeded: str) -> None:
    rows = db.fetch("SELECT name, audience FROM apis")
    assert [(r["name"], r["audience"]) for r in rows] == [("idp", f"{ISSUER}/api")]


def test_seeded_idp_scopes(db: Database, seeded: str) -> None:
    api_id = db.fetchval("SELECT id FROM apis WHERE name = 'idp'")
    rows = db.fetch("SELECT value, description, api_id FROM scopes WHERE value LIKE 'idp:%'")
    seeded_scopes = {r["value"]: r for r in rows}
    assert set(seeded_scopes) == set(IDP_SCOPES)
    for value in IDP_SCOPES:
        row = seeded_scopes[value]
        assert row["api_id"] == api_id, value
        assert row["description"].strip(), value
        assert row["description"] == IDP_SCOPE_DESCRIPTIONS[value]


def test_standard_oidc_scopes_have_no_api(db: Database, seeded: str) -> None:
    rows = db.fetch("SELECT value, api_id, description FROM scopes WHERE api_id IS NULL")
    assert {r["value"] for r in rows} == set(OIDC_SCOPES)
    assert {"openid", "profile", "email", "offline_access"} == set(OIDC_SCOPES)
    assert all(r["description"].strip() for r in rows)


def test_administrator_role_holds_exactly_the_admin_scopes(db: Database, seeded: str) -> None:
    assert db.fetchval("SELECT count(*) FROM roles WHERE name = 'administrator'") == 1
    assert scopes_of_role(db, "administrator") == set(ADMIN_SCOPES)
    assert not scopes_of_role(db, "administrator") & set(SELF_SERVICE_SCOPES)


def test_console_client(db: Database, seeded: str) -> None:
    rows = db.fetch(
        "SELECT type, redirect_uris, post_logout_redirect_uris, grant_types, "
        "backchannel_logout_uri FROM clients WHERE client_id = 'console'"
    )
    assert len(rows) == 1
    console = rows[0]
    assert console["type"] == "public"
    assert console["redirect_uris"] == [f"{ISSUER}/console/callback"]
    assert console["post_logout_redirect_uris"] == [f"{ISSUER}/console/"]
    assert "authorization_code" in console["grant_types"]
    assert "client_credentials" not in console["grant_types"]  # a public client
    assert (
        db.fetchval(
            "SELECT count(*) FROM client_secrets cs JOIN clients c ON c.id = cs.client_pk "
            "WHERE c.client_id = 'console'"
        )
        == 0
    )
    every_idp_scope = {
        r["value"] for r in db.fetch("SELECT value FROM scopes WHERE value LIKE 'idp:%'")
    }
    assert every_idp_scope >= set(IDP_SCOPES)
    assert scopes_of_client(db, "console") == {"openid", "profile", "email"} | every_idp_scope


def test_new_scopes_go_to_administrator_on_the_next_seed(
    db: Database, cli: Cli, seeded: str
) -> None:
    """Spec §9 rule 5: a release that adds permissions re-seeds; administrator gets them."""
    missing_scope = ADMIN_SCOPES[-1]  # as if the older catalogue did not have it
    missing_grant = ADMIN_SCOPES[0]  # the scope exists, the role does not hold it
    assert missing_scope != missing_grant
    db.execute("DELETE FROM scopes WHERE value = $1", missing_scope)
    db.execute(
        "DELETE FROM role_scopes "
        "WHERE role_id = (SELECT id FROM roles WHERE name = 'administrator') "
        "AND scope_id = (SELECT id FROM scopes WHERE value = $1)",
        missing_grant,
    )
    held = scopes_of_role(db, "administrator")
    assert missing_scope not in held
    assert missing_grant not in held
    assert missing_scope not in scopes_of_client(db, "console")

    result = cli("seed")

    # One scope, two grants, one console scope added back.
    assert sorted(numbers(result.stdout)) == [1, 1, 2], result.stdout
    assert scopes_of_role(db, "administrator") == set(ADMIN_SCOPES)
    assert (
        db.fetchval(
            "SELECT s.description FROM scopes s JOIN apis a ON a.id = s.api_id "
            "WHERE s.value = $1 AND a.name = 'idp'",
            missing_scope,
        )
        == IDP_SCOPE_DESCRIPTIONS[missing_scope]
    )
    assert missing_scope in scopes_of_client(db, "console")
