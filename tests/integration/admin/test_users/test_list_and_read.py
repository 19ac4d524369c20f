"""``GET /admin/users`` (prefix filter, paging) and ``GET /admin/users/{user_id}``."""

from __future__ import annotations

import pytest

from tests.integration.admin.contract import (
    MISSING_ID,
    AdminApi,
    assert_guarded,
    assert_problem,
)
from tests.integration.admin.test_users.support import (
    GOOD_PASSWORD,
    READ,
    USER_KEYS,
    new_user,
    tag,
)

pytestmark = pytest.mark.integration


def test_list_users_filters_by_case_insensitive_prefix_and_pages(admin_api: AdminApi) -> None:
    t = tag()
    emails = [f"pfx{t}-{i}@example.com" for i in range(3)]
    for i, email in enumerate(emails):
        body = {"email": email.upper() if i == 1 else email, "password": GOOD_PASSWORD}
        assert admin_api.post("/admin/users", json=body).status_code == 201
    response = admin_api.get("/admin/users", params={"email": f"PFX{t}"}, scopes=[READ])
    assert response.status_code == 200, response.text
    page = response.json()
    assert [u["email"].lower() for u in page["items"]] == emails
    assert page["nextCursor"] is None
    assert set(page["items"][0]) == USER_KEYS

    seen, cursor = [], None
    while True:
        params = {"email": f"pfx{t}", "limit": 1, **({"cursor": cursor} if cursor else {})}
        body = admin_api.get("/admin/users", params=params).json()
        assert len(body["items"]) <= 1
        seen += [u["email"].lower() for u in body["items"]]
        cursor = body["nextCursor"]
        if cursor is None:
            break
    assert seen == emails


def test_list_users_treats_like_wildcards_in_the_prefix_literally(admin_api: AdminApi) -> None:
    t = tag()
    literal = new_user(admin_api, email=f"w{t}%_x@example.com", username=f"u{t}_%z")
    new_user(admin_api, email=f"w{t}abx@example.com", username=f"u{t}abz")
    by_email = admin_api.get("/admin/users", params={"email": f"w{t}%_"}).json()
    assert [u["id"] for u in by_email["items"]] == [literal["id"]]
    by_name = admin_api.get("/admin/users", params={"username": f"U{t}_%"}).json()
    assert [u["id"] for u in by_name["items"]] == [literal["id"]]
    assert len(admin_api.get("/admin/users", params={"email": f"w{t}"}).json()["items"]) == 2


def test_list_users_guard_and_bad_paging(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "GET", "/admin/users", READ)
    assert_problem(admin_api.get("/admin/users", params={"limit": 0}), 422)
    assert_problem(admin_api.get("/admin/users", params={"limit": 201}), 422)
    assert_problem(admin_api.get("/admin/users", params={"cursor": "bm9wZQ"}), 422, field="cursor")


def test_get_user(admin_api: AdminApi) -> None:
    user = new_user(admin_api)
    response = admin_api.get(f"/admin/users/{user['id']}", scopes=[READ])
    assert response.status_code == 200
    assert response.json() == user
    assert_guarded(admin_api, "GET", f"/admin/users/{user['id']}", READ)
    assert_problem(admin_api.get(f"/admin/users/{MISSING_ID}"), 404)
    assert_problem(admin_api.get("/admin/users/not-a-uuid"), 404)
