"""A profile photo end to end (issue 5 acceptance 3): set through the self-service API,
released as the ``picture`` claim to a real RP (Authlib) signed in with ``profile``,
fetched without a token at that URL through the proxy, then removed.

The token service reads a person through a cache of a few seconds, so a changed photo
shows in the claims after at most that long: the checks wait for it.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from PIL import Image

from tests.e2e.test_profile_claims import tokens_and_userinfo
from tests.harness import records
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi

pytestmark = pytest.mark.e2e

PATH = "/entity/profile/photo"
CACHE_WAIT = 10.0  # seconds: above the token service's person cache


def claims_until(
    stack: Stack,
    app: records.TestClient,
    person: records.TestUser,
    done: Callable[[dict[str, Any]], bool],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Sign in (``openid profile``) until both the ID token and userinfo satisfy ``done``."""
    deadline = time.monotonic() + CACHE_WAIT
    while True:
        id_claims, userinfo = tokens_and_userinfo(stack, app, person, "openid profile")
        if (done(id_claims) and done(userinfo)) or time.monotonic() > deadline:
            return id_claims, userinfo
        time.sleep(1)


def test_photo_is_released_as_picture_served_publicly_and_removed(stack: Stack) -> None:
    person = records.create_user(stack)
    app = records.create_client(stack, redirect_uri="http://127.0.0.1:9/callback")
    api = EntityApi(stack, person)
    try:
        id_claims, userinfo = tokens_and_userinfo(stack, app, person, "openid profile")
        assert "picture" not in id_claims and "picture" not in userinfo

        out = io.BytesIO()
        Image.new("RGB", (64, 64), (250, 200, 0)).save(out, "JPEG")
        headers = {"Authorization": f"Bearer {api.token()}", "Content-Type": "image/jpeg"}
        resp = httpx.put(f"{stack.proxy_url}{PATH}", content=out.getvalue(), headers=headers)
        assert resp.status_code == 200, resp.text
        url = resp.json()["picture"]
        assert url.startswith(f"{stack.issuer}/media/avatars/")

        id_claims, userinfo = claims_until(stack, app, person, lambda c: "picture" in c)
        assert id_claims["picture"] == url
        assert userinfo["picture"] == url

        served = httpx.get(url)  # the issuer is the proxy; no token
        assert served.status_code == 200, served.text
        assert served.headers["content-type"] == "image/jpeg"
        assert "max-age" in served.headers["cache-control"]
        assert Image.open(io.BytesIO(served.content)).size == (64, 64)

        gone = httpx.delete(f"{stack.proxy_url}{PATH}", headers=headers)
        assert gone.status_code == 204, gone.text
        assert httpx.get(url).status_code == 404

        id_claims, userinfo = claims_until(stack, app, person, lambda c: "picture" not in c)
        assert "picture" not in id_claims
        assert "picture" not in userinfo
    finally:
        api.close()
