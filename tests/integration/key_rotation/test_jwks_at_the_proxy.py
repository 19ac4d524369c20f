"""Issue #24, item 3: the proxy serves the JWKS the token service publishes.

A token service with a key directory of its own, re-read every second, behind a proxy of
its own; the service tells the proxy to keep the JWKS one second
(``SVC_JWKS_PROXY_SECONDS=1``, sent as ``X-Accel-Expires``). Checked: the answer
carries the service's ``ETag`` and ``Cache-Control`` and each request's own
``X-Request-Id``; ``If-None-Match`` gets a 304 without a body; a key written into the
directory is published through the proxy within the reload interval plus the proxy's
second (a changed tag), and the last key set is still served while the service is down.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from idp_common.crypto.keys import load_key_set, new_private_key_pem, write_key_file
from tests.harness.stack import Stack
from tests.integration.key_rotation.support import own_key_dir

pytestmark = pytest.mark.integration

PROXY_SECONDS = 1  # SVC_JWKS_PROXY_SECONDS
RELOAD = 1  # SVC_KEY_RELOAD_SECONDS
SLACK = 2.0  # a loaded machine's read and request times


def kids(response: httpx.Response) -> set[str]:
    return {key["kid"] for key in response.json()["keys"]}


def test_the_proxy_serves_revalidates_and_follows_the_published_key_set(
    extra_processes: Stack, tmp_path: Path
) -> None:
    stack = extra_processes
    key_dir = own_key_dir(stack, tmp_path)
    env = {
        "SVC_KEY_DIR": str(key_dir),
        "SVC_KEY_RELOAD_SECONDS": str(RELOAD),
        "SVC_JWKS_PROXY_SECONDS": str(PROXY_SECONDS),
    }
    token = stack.start_service("token", env)
    stack.wait_until_up(token)
    proxy = stack.start_proxy(
        name="jwks-proxy",
        upstreams={"token": [token.port]},
    )
    stack.wait_until_up(proxy, "/console/")
    url = proxy.url + "/.well-known/jwks.json"

    first = httpx.get(url)
    assert first.status_code == 200
    assert kids(first) == {k.kid for k in load_key_set(key_dir).keys}
    tag = first.headers["etag"]
    assert tag.startswith('"') and tag.endswith('"')
    assert first.headers["cache-control"].replace(" ", "") in (
        "public,max-age=300",
        "max-age=300,public",
    )
    direct = httpx.get(token.url + "/.well-known/jwks.json")
    assert direct.headers["etag"] == tag and direct.content == first.content
    assert direct.headers["x-accel-expires"] == str(PROXY_SECONDS)
    assert "x-accel-expires" not in first.headers  # for nginx only

    again = httpx.get(url)
    assert again.status_code == 200 and again.headers["etag"] == tag
    assert len(again.headers.get_list("x-request-id")) == 1
    assert again.headers["x-request-id"] != first.headers["x-request-id"]

    for header in (tag, f"W/{tag}", f'"other", {tag}'):
        unchanged = httpx.get(url, headers={"If-None-Match": header})
        assert unchanged.status_code == 304, header
        assert unchanged.content == b"" and unchanged.headers["etag"] == tag
    assert httpx.get(url, headers={"If-None-Match": '"other"'}).status_code == 200

    # A next key, published before it signs: through the proxy within a few seconds.
    written = write_key_file(
        key_dir, new_private_key_pem(), activation=datetime.now(UTC) + timedelta(minutes=10)
    )
    new_kid = next(k.kid for k in load_key_set(key_dir).keys if k.file_name == str(written))
    began = time.monotonic()
    deadline = began + RELOAD + PROXY_SECONDS + SLACK
    seen = httpx.get(url)
    while new_kid not in kids(seen) and time.monotonic() < deadline:
        time.sleep(0.1)
        seen = httpx.get(url)
    waited = time.monotonic() - began
    assert new_kid in kids(seen), f"not published through the proxy after {waited:.1f} s"
    assert seen.headers["etag"] != tag
    assert httpx.get(url, headers={"If-None-Match": tag}).status_code == 200

    # The token service stops: the proxy keeps answering with the last key set.
    token.stop()
    time.sleep(PROXY_SECONDS + 0.5)
    stale = httpx.get(url)
    assert stale.status_code == 200, stale.text
    assert new_kid in kids(stale)
