"""The one error mapping: validation failures are 422 problem+json naming the member."""

from __future__ import annotations

import msgspec
import pytest
from litestar import Litestar, post
from litestar.params import JSONBody
from litestar.testing import TestClient

from idp_common.web.problems import PROBLEM_JSON, exception_handlers


class Body(msgspec.Struct, forbid_unknown_fields=True, rename="camel"):
    name: str
    display_name: str = ""


@post("/things")
async def create(data: JSONBody[Body]) -> dict[str, str]:
    return {"name": data.name}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": 1}, "name"),
        ({"name": "a", "displayName": 3}, "displayName"),
        ({"name": "a", "colour": "red"}, "colour"),
        ({}, "name"),
    ],
)
def test_invalid_body_is_422_naming_the_member(body: dict[str, object], field: str) -> None:
    app = Litestar([create], exception_handlers=exception_handlers())
    with TestClient(app) as client:
        response = client.post("/things", json=body)
    assert response.status_code == 422
    assert response.headers["content-type"] == PROBLEM_JSON
    problem = response.json()
    assert problem["status"] == 422
    assert [e["field"] for e in problem["errors"]] == [field]
    assert field in problem["detail"]
