"""Each back-channel POST is counted by outcome (``idp_backchannel_deliveries_total``):
the answer's status class, ``timeout`` or ``error``; against real HTTP servers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from idp_common.observability import metrics
from logout_dispatcher.delivery import new_http_client, post_logout_token
from tests.harness import infra
from tests.harness.receivers import Receiver

pytestmark = pytest.mark.integration

TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzaWQiOiJzIn0.c2lnbmF0dXJl"


@pytest.fixture(autouse=True)
def counting() -> Iterator[None]:
    metrics.configure(enabled=True, service="logout-dispatcher")
    yield
    metrics.configure(enabled=False, service="")


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with new_http_client(allow_private=True) as client:
        yield client


def deliveries() -> dict[str, float]:
    metrics.flush()  # what a service's worker does every second
    found: dict[str, float] = {}
    for family in metrics.REGISTRY.collect():
        for sample in family.samples:
            if (
                sample.name == "idp_backchannel_deliveries_total"
                and sample.labels["service"] == "logout-dispatcher"
            ):
                found[sample.labels["status_class"]] = sample.value
    return found


async def test_each_outcome_is_counted_in_its_class(http: httpx.AsyncClient) -> None:
    before = deliveries()
    with Receiver(status=204) as ok, Receiver(status=500) as broken, Receiver(status=400) as bad:
        for receiver in (ok, ok, broken, bad):
            await post_logout_token(http, receiver.url, TOKEN)
    refused = await post_logout_token(http, f"http://127.0.0.1:{infra.closed_port()}/b", TOKEN)
    assert refused.error == "connect"
    after = deliveries()
    added = {key: after.get(key, 0) - before.get(key, 0) for key in after}
    assert {key: n for key, n in added.items() if n} == {"2xx": 2, "5xx": 1, "4xx": 1, "error": 1}


async def test_an_application_that_never_answers_is_a_timeout(http: httpx.AsyncClient) -> None:
    before = deliveries().get("timeout", 0)
    with Receiver(hang=True) as silent:
        attempt = await post_logout_token(http, silent.url, TOKEN)
    assert attempt.error == "timeout"
    assert deliveries()["timeout"] == before + 1
