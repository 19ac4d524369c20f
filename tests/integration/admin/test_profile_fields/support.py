"""Helpers shared by the ``/admin/profile-fields`` tests: unique keys, creation, groups."""

from __future__ import annotations

import uuid
from typing import Any

from tests.harness.records import query
from tests.integration.admin.contract import AdminApi

BASE = "/admin/profile-fields"


def new_key(prefix: str = "f") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def create(api: AdminApi, **body: Any) -> dict[str, Any]:
    body.setdefault("key", new_key())
    body.setdefault("label", "A field")
    resp = api.post(BASE, json=body)
    assert resp.status_code == 201, resp.text
    created: dict[str, Any] = resp.json()
    return created


def make_group(api: AdminApi) -> str:
    rows = query(api.stack, "INSERT INTO groups (name) VALUES ($1) RETURNING id", new_key("g"))
    return str(rows[0]["id"])
