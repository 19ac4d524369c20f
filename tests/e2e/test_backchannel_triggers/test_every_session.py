"""Ending every session of a person (password change, the administrator's actions, a reset
by mail) fans out once per session."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.e2e.test_backchannel_triggers.support import (
    NEW_PASSWORD,
    Scene,
    admin_deletes_user,
    admin_disables_user,
    admin_ends_sessions,
    admin_resets_password,
    assert_one_fan_out_each,
    change_own_password,
)
from tests.harness.stack import Stack, start_with_mail_catcher
from tests.integration.signin_fixtures import mail_part, post, signin_client, wait_for_mail

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("end", "reason"),
    [
        pytest.param(change_own_password, "password_changed", id="entity-password-change"),
        pytest.param(admin_ends_sessions, "admin_revoked", id="admin-end-sessions"),
        pytest.param(admin_deletes_user, "user_deleted", id="admin-delete-user"),
        pytest.param(admin_resets_password, "password_reset", id="admin-reset-password"),
        pytest.param(admin_disables_user, "user_disabled", id="admin-disable-user"),
    ],
)
def test_ending_every_session_fans_out_once_per_session(
    scene: Scene, end: Callable[[Scene], None], reason: str
) -> None:
    sessions = [scene.sign_in(), scene.sign_in()]
    end(scene)
    assert_one_fan_out_each(scene, sessions, reason)


def test_a_password_reset_by_mail_fans_out_once_per_session(
    scene: Scene, extra_processes: Stack, tmp_path: Path
) -> None:
    """The reset link goes to the project's mail catcher; a second authui-api that mails
    there is called directly, as the sign-in page's script would call it."""
    mail_dir = tmp_path / "mail"
    authui = start_with_mail_catcher(extra_processes, "authui-api", mail_dir)
    sessions = [scene.sign_in(), scene.sign_in()]
    with signin_client(authui.url) as client:
        asked = post(client, "/password-reset", {"email": scene.person.email})
        assert asked.status_code == 202, asked.text
        (mail,) = wait_for_mail(mail_dir)
        link = next(
            word
            for word in mail_part(mail).split()
            if word.startswith(f"{scene.stack.issuer}/auth/reset?")
        )
        token = parse_qs(urlsplit(link).query)["token"][0]
        done = post(client, "/password-reset/confirm", {"token": token, "password": NEW_PASSWORD})
        assert done.status_code == 204, done.text
    assert_one_fan_out_each(scene, sessions, "password_reset")
