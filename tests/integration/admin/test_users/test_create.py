"""``POST /admin/users``: what is stored, audited and refused."""

from __future__ import annotations

from typing import Any

import pytest

from idp_common.crypto.passwords import verify_password
from tests.harness.records import (
    query,
)
from tests.harness.stack import Stack
from tests.integration.admin.contract import (
    AdminApi,
    assert_guarded,
    assert_problem,
)
from tests.integration.admin.test_users.support import (
    GOOD_PASSWORD,
    USER_KEYS,
    WRITE,
    new_user,
    password_hash,
    tag,
)

pytestmark = pytest.mark.integration


def test_create_user_answers_201_stores_an_argon2id_hash_and_audits(
    admin_api: AdminApi, stack: Stack
) -> None:
    t = tag()
    body = {
        "email": f"New-{t}@Example.com",
        "username": f"new-{t}",
        "displayName": "New Person",
        "password": GOOD_PASSWORD,
    }
    response = admin_api.post("/admin/users", json=body)
    assert response.status_code == 201, response.text
    user = response.json()
    assert set(user) == USER_KEYS
    assert user["email"] == body["email"]  # the spelling typed is kept
    assert user["username"] == body["username"]
    assert user["displayName"] == "New Person"
    assert user["emailVerified"] is False and user["disabled"] is False
    assert GOOD_PASSWORD not in response.text
    stored = password_hash(stack, user["id"])
    assert stored is not None and stored.startswith("$argon2id$")
    assert verify_password(stored, GOOD_PASSWORD)
    rows = admin_api.audit_rows(user["id"])
    assert [(r["action"], r["status_code"], r["actor"]) for r in rows] == [
        ("user.create", 201, admin_api.actor)
    ]
    assert GOOD_PASSWORD not in str(rows)


def test_create_user_guard(admin_api: AdminApi) -> None:
    body = {"email": f"g-{tag()}@example.com", "password": GOOD_PASSWORD}
    assert_guarded(admin_api, "POST", "/admin/users", WRITE, json=body)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"email": "not-an-address", "password": GOOD_PASSWORD}, "email"),
        ({"email": "a@nodot", "password": GOOD_PASSWORD}, "email"),
        ({"email": "a b@example.com", "password": GOOD_PASSWORD}, "email"),
        ({"password": GOOD_PASSWORD}, "email"),
        ({"email": "{t}@example.com"}, "password"),
        ({"email": "{t}@example.com", "password": "short"}, "password"),
        ({"email": "{t}@example.com", "password": "password123!"}, "password"),
        ({"email": "{t}@example.com", "password": GOOD_PASSWORD, "username": ""}, "username"),
        ({"email": "{t}@example.com", "password": GOOD_PASSWORD, "username": "a b"}, "username"),
        ({"email": "{t}@example.com", "password": GOOD_PASSWORD, "role": "x"}, "role"),
        ({"email": "{t}@example.com", "password": GOOD_PASSWORD, "displayName": 3}, "displayName"),
    ],
)
def test_create_user_refuses_bad_input_naming_the_field(
    admin_api: AdminApi, stack: Stack, body: dict[str, Any], field: str
) -> None:
    t = tag()
    body = {k: v.replace("{t}", t) if isinstance(v, str) else v for k, v in body.items()}
    response = admin_api.post("/admin/users", json=body)
    assert_problem(response, 422, field=field)
    if "email" in body:
        assert not query(stack, "SELECT 1 FROM users WHERE email = $1", body["email"])


def test_create_user_refuses_a_password_containing_the_email(admin_api: AdminApi) -> None:
    t = tag()
    response = admin_api.post(
        "/admin/users",
        json={"email": f"zebra{t}@example.com", "password": f"my zebra{t} secret"},
    )
    assert_problem(response, 422, field="password")
    assert "email" in response.json()["errors"][0]["message"]


def test_create_user_refuses_a_taken_email_or_username_case_insensitively(
    admin_api: AdminApi, stack: Stack
) -> None:
    user = new_user(admin_api)
    again = admin_api.post(
        "/admin/users", json={"email": user["email"].upper(), "password": GOOD_PASSWORD}
    )
    assert_problem(again, 409, field="email")
    assert "email" in again.json()["detail"]
    same_name = admin_api.post(
        "/admin/users",
        json={
            "email": f"other-{tag()}@example.com",
            "username": user["username"].upper(),
            "password": GOOD_PASSWORD,
        },
    )
    assert_problem(same_name, 409, field="username")
    assert "username" in same_name.json()["detail"]
    rows = query(stack, "SELECT 1 FROM users WHERE lower(email) = lower($1)", user["email"])
    assert len(rows) == 1
