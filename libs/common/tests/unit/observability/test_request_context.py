"""Request ids (idp_common.observability.request_context): a caller's well-formed
``X-Request-Id`` is kept, anything else replaced by a new one; the id is bound while the
request runs and returned in the answer."""

from __future__ import annotations

import re
from typing import Any

import pytest
from litestar import Litestar, get
from litestar.middleware.base import DefineMiddleware
from litestar.testing import TestClient

from idp_common.observability.request_context import (
    RequestContext,
    current_request_id,
    request_id_of,
)

NEW = re.compile(r"[0-9a-f]{32}")


@pytest.mark.parametrize("sent", [b"0123456789abcdef0123456789abcdef", b"lb-7f.3a:42", b"x" * 64])
def test_a_well_formed_id_is_kept(sent: bytes) -> None:
    assert request_id_of([(b"x-request-id", sent)]) == sent.decode()


@pytest.mark.parametrize(
    "sent", [b"", b"two words", b"x" * 65, b'a"b', b"a\nb", "é".encode(), b"a,b", b"{}"]
)
def test_anything_else_is_replaced_by_a_new_id(sent: bytes) -> None:
    made = request_id_of([(b"x-request-id", sent)])
    assert NEW.fullmatch(made) and made != sent.decode(errors="replace")


def test_no_id_gets_a_new_one_each_time() -> None:
    first, second = request_id_of([]), request_id_of([(b"accept", b"*/*")])
    assert NEW.fullmatch(first) and NEW.fullmatch(second) and first != second


def app() -> Litestar:
    @get("/seen/{name:str}", sync_to_thread=False)
    def seen(name: str) -> dict[str, Any]:
        return {"name": name, "request_id": current_request_id()}

    return Litestar([seen], middleware=[DefineMiddleware(RequestContext)])


def test_the_id_is_bound_during_the_request_and_returned() -> None:
    with TestClient(app()) as client:
        kept = client.get("/seen/a", headers={"X-Request-Id": "edge-1"})
        made = client.get("/seen/b", headers={"X-Request-Id": "not ok"})
    assert kept.json() == {"name": "a", "request_id": "edge-1"}
    assert kept.headers["x-request-id"] == "edge-1"
    assert NEW.fullmatch(made.headers["x-request-id"])
    assert made.json()["request_id"] == made.headers["x-request-id"]
    assert current_request_id() is None  # unbound after the request
