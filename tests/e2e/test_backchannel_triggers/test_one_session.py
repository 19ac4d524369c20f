"""Ending one session (logout, another person signing in in the same browser) fans out once;
the same person signing in again ends nothing."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from tests.e2e.test_backchannel_triggers.support import (
    SETTLE_SECONDS,
    ForcedSignIn,
    Scene,
    Session,
    assert_one_fan_out_each,
    end_own_session,
    log_out_by_get,
    log_out_by_get_with_hint,
    log_out_by_post,
    outbox_payloads,
)
from tests.harness import oidc, records

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("end", "reason"),
    [
        pytest.param(log_out_by_get, "logout", id="logout-get"),
        pytest.param(log_out_by_get_with_hint, "logout", id="logout-get-id-token-hint"),
        pytest.param(log_out_by_post, "logout", id="logout-post"),
        pytest.param(end_own_session, "entity_revoked", id="entity-delete-session"),
    ],
)
def test_ending_one_session_fans_out_once(
    scene: Scene, end: Callable[[Scene, Session], None], reason: str
) -> None:
    session = scene.sign_in()
    end(scene, session)
    assert_one_fan_out_each(scene, [session], reason)


def test_another_person_signing_in_in_the_same_browser_ends_the_previous_session_once(
    scene: Scene,
) -> None:
    previous = scene.sign_in()
    other = records.create_user(scene.stack)
    authorization = ForcedSignIn(scene.app)
    code = previous.browser.sign_in(authorization, other)
    id_token = oidc.exchange(scene.stack, authorization, code)["id_token"]
    _, claims = oidc.verified_claims(scene.stack, id_token, audience=scene.app.client_id)
    assert claims["sub"] == other.id and claims["sid"] != previous.sid
    assert_one_fan_out_each(scene, [previous], "replaced")
    assert records.session_exists(scene.stack, claims["sid"])  # the new one lives on
    assert outbox_payloads(scene.stack, claims["sid"]) == []


def test_the_same_person_signing_in_again_ends_nothing(scene: Scene) -> None:
    """A re-authentication continues the session under a new id (issue #19, attack 18)."""
    previous = scene.sign_in()
    current = scene.sign_in(previous.browser)
    assert current.sid != previous.sid
    time.sleep(SETTLE_SECONDS)
    assert scene.receiver.snapshot() == []
    assert outbox_payloads(scene.stack, previous.sid) == []
    assert not records.session_exists(scene.stack, previous.sid)
    assert records.session_exists(scene.stack, current.sid)
