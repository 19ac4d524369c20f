"""A password set with a reset link tells the person (docs/mail-templates.md): the reset
link is mailed in the language the person asked in (they asked for it themselves), the
notice that the password changed in their saved language, else the deployment's, never
the language of the request that set it. Mail goes to the project's own catcher."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.harness.rows import notice_rows
from tests.harness.stack import Stack, start_with_mail_catcher
from tests.integration.signin_fixtures import (
    create_person,
    mail_part,
    post,
    signin_client,
    wait_for_mail,
)

pytestmark = pytest.mark.integration
NEW_PASSWORD = "copper-meadow-sailing-77"
CALLER = "198.51.100.77"
ARABIC = {"Accept-Language": "ar"}


@pytest.fixture
def mailed_authui(extra_processes: Stack, tmp_path: Path) -> tuple[str, Path]:
    """The mail catcher on a free port and an authui-api that sends to it."""
    mail_dir = tmp_path / "mail"
    service = start_with_mail_catcher(extra_processes, "authui-api", mail_dir)
    return service.url, mail_dir


def test_a_reset_by_link_sends_the_password_changed_notice(
    stack: Stack, mailed_authui: tuple[str, Path]
) -> None:
    base, mail_dir = mailed_authui
    person = create_person(stack)
    with signin_client(base, address=CALLER) as client:
        asked = post(client, "/password-reset", {"email": person.email}, headers=ARABIC)
        assert asked.status_code == 202
        (link_mail,) = wait_for_mail(mail_dir)
        assert link_mail["Content-Language"] == "ar"  # the person's own request
        link = next(w for w in mail_part(link_mail).split() if "/auth/reset?" in w)
        token = parse_qs(urlsplit(link).query)["token"][0]
        body = {"token": token, "password": NEW_PASSWORD}
        done = post(client, "/password-reset/confirm", body, headers=ARABIC)
        assert done.status_code == 204 and done.content == b""

    _, notice = wait_for_mail(mail_dir, 2)
    assert notice["To"] == person.email
    assert notice["Content-Language"] == "en"
    assert notice["Subject"] == "The password of your account was changed"
    text = mail_part(notice)
    assert f"IP address: {CALLER}" in text
    assert f"{stack.issuer.rstrip('/')}/auth/reset" in text.split()
    assert token not in text and NEW_PASSWORD not in text

    (row,) = notice_rows(stack, person.id)
    assert (row["action"], row["status_code"], row["target"], str(row["ip"])) == (
        "notice.sent",
        200,
        person.id,
        CALLER,
    )
    assert row["detail"] == {"credential": "password", "change": "changed"}
