"""Password reset (contract §4 "Sign-in and recovery", part 8 ``RESET_PER_IP``; docs/design.md
"Sign-in": the same answer whatever the address, a single-use link of 30 minutes stored as a
digest and mailed through SMTP, confirming ends all sessions). Mail goes to the project's
own catcher (``idp mail-catcher``) on a free port."""

from __future__ import annotations

import smtplib
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from idp_common.protocol.oidc_core_claims import digest
from tests.harness import infra
from tests.harness.stack import Stack, start_with_mail_catcher
from tests.integration.signin_fixtures import (
    Person,
    audit_rows,
    create_client,
    create_person,
    mail_part,
    new_challenge,
    post,
    sessions_of,
    signin_client,
    sql,
    start_session,
    unique,
    wait_for_mail,
)

pytestmark = pytest.mark.integration
NEW_PASSWORD = "copper-meadow-sailing-77"


def reset_tokens(stack: Stack, person: Person) -> list[tuple[object, ...]]:
    return [
        tuple(r)
        for r in sql(
            stack,
            "SELECT used_at, expires_at - created_at FROM password_reset_tokens WHERE user_id = :u",
            u=person.id,
        )
    ]


def wait_for(check: object, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


def test_known_and_unknown_addresses_get_the_same_answer(stack: Stack) -> None:
    person = create_person(stack)
    base = stack.service_url("authui-api")
    with signin_client(base) as client:
        known = post(client, "/password-reset", {"email": person.email})
        unknown = post(client, "/password-reset", {"email": f"{unique('nobody')}@example.com"})
    assert known.status_code == unknown.status_code == 202
    assert known.content == unknown.content
    assert known.json()["detail"]
    # Date and the request id (one per response, issue 22) differ whatever the address.
    per_response = {"date", "x-request-id"}
    strip = lambda r: sorted((k, v) for k, v in r.headers.items() if k not in per_response)  # noqa: E731
    assert strip(known) == strip(unknown)
    # The stack's SMTP port is closed: the token is stored all the same, the mail is lost,
    # and the answer did not change.
    wait_for(lambda: len(reset_tokens(stack, person)) == 1)
    assert reset_tokens(stack, person)[0][0] is None
    lifetime = reset_tokens(stack, person)[0][1].total_seconds()  # type: ignore[attr-defined]
    assert 1790 <= lifetime <= 1800
    rows = audit_rows(stack, "password_reset.requested", actor=person.id)
    assert len(rows) == 1 and person.email not in str(rows[0])
    anonymous = sql(
        stack,
        "SELECT detail FROM audit_events WHERE action = 'password_reset.requested' "
        "AND actor IS NULL",
    )
    assert anonymous and all(r[0] == {"account": "unknown"} for r in anonymous)


def test_the_11th_request_in_an_hour_is_refused(stack: Stack) -> None:
    with signin_client(stack.service_url("authui-api")) as client:
        codes = [
            post(client, "/password-reset", {"email": f"{unique('x')}@example.com"}).status_code
            for _ in range(10)
        ]
        refused = post(client, "/password-reset", {"email": "any@example.com"})
    assert codes == [202] * 10
    assert refused.status_code == 429
    assert refused.headers["content-type"] == "application/problem+json"
    assert 3500 <= int(refused.headers["retry-after"]) <= 3600


@pytest.fixture
def mailed_authui(extra_processes: Stack, tmp_path: Path) -> tuple[str, Path]:
    """The mail catcher on a free port and an authui-api that sends to it."""
    mail_dir = tmp_path / "mail"
    service = start_with_mail_catcher(extra_processes, "authui-api", mail_dir)
    return service.url, mail_dir


def add_refresh_token(stack: Stack, person: Person, sid: str | None) -> None:
    rp = create_client(stack)
    client_pk = sql(stack, "SELECT id FROM clients WHERE client_id = :c", c=rp.client_id)[0][0]
    sql(
        stack,
        "INSERT INTO refresh_tokens (id, token_digest, family_id, client_pk, user_id, scope, "
        "session_sid, expires_at) VALUES (:id, :d, :f, :c, :u, 'openid', :sid, "
        "now() + interval '1 day') RETURNING id",
        id=uuid.uuid4(),
        d=digest(uuid.uuid4().hex),
        f=uuid.uuid4(),
        c=client_pk,
        u=uuid.UUID(person.id),
        sid=sid,
    )


def test_reset_by_mail_ends_every_session(stack: Stack, mailed_authui: tuple[str, Path]) -> None:
    base, mail_dir = mailed_authui
    person = create_person(stack)
    sessions = [start_session(stack, person)[1] for _ in range(2)]
    for record in sessions:
        add_refresh_token(stack, person, record.sid)
    add_refresh_token(stack, person, None)  # offline token of an expired session
    with signin_client(base) as client:
        assert post(client, "/password-reset", {"email": person.email}).status_code == 202
        (mail,) = wait_for_mail(mail_dir)
        assert mail["To"] == person.email
        assert mail["Subject"] == "Set a new password"
        link = next(
            w for w in mail_part(mail).split() if w.startswith(f"{stack.issuer}/auth/reset?")
        )
        token = parse_qs(urlsplit(link).query)["token"][0]
        weak = post(client, "/password-reset/confirm", {"token": token, "password": "password1"})
        assert weak.status_code == 422
        assert weak.json()["errors"][0]["field"] == "password"
        done = post(client, "/password-reset/confirm", {"token": token, "password": NEW_PASSWORD})
        assert done.status_code == 204
        assert done.content == b""
        again = post(client, "/password-reset/confirm", {"token": token, "password": NEW_PASSWORD})
        assert again.status_code == 422
        assert again.json()["errors"][0]["field"] == "token"

    assert sessions_of(stack, person.id) == []
    ended = sql(
        stack,
        "SELECT subject, payload FROM event_outbox WHERE payload->>'user_id' = :u ORDER BY id",
        u=person.id,
    )
    assert sorted(p["sid"] for _, p in ended) == sorted(s.sid for s in sessions)
    assert {s for s, _ in ended} == {f"{stack.env['SVC_NATS_PREFIX']}.session.ended"}
    assert all(p["reason"] == "password_reset" and p["clients"] == [] for _, p in ended)
    live = sql(
        stack,
        "SELECT count(*) FROM refresh_tokens WHERE user_id = :u AND revoked_at IS NULL",
        u=uuid.UUID(person.id),
    )[0][0]
    assert live == 0
    assert len(audit_rows(stack, "password_reset.completed", actor=person.id)) == 1

    rp = create_client(stack, skip_consent=True)
    with signin_client(base) as client:
        old = {
            "challenge": new_challenge(stack, rp),
            "email": person.email,
            "password": person.password,
        }
        new = {
            "challenge": new_challenge(stack, rp),
            "email": person.email,
            "password": NEW_PASSWORD,
        }
        assert post(client, "/login", old).status_code == 401
        assert post(client, "/login", new).status_code == 200


def test_unknown_address_sends_no_mail(mailed_authui: tuple[str, Path]) -> None:
    base, mail_dir = mailed_authui
    with signin_client(base) as client:
        answer = post(client, "/password-reset", {"email": f"{unique('ghost')}@example.com"})
    assert answer.status_code == 202
    time.sleep(1.0)
    assert list(mail_dir.glob("*.eml")) == []


def test_an_unknown_token_is_refused(stack: Stack) -> None:
    with signin_client(stack.service_url("authui-api")) as client:
        answer = post(
            client, "/password-reset/confirm", {"token": "nope", "password": NEW_PASSWORD}
        )
    assert answer.status_code == 422
    assert answer.json()["code"] == "auth.reset_token_invalid"


def test_the_mail_catcher_writes_eml_files(extra_processes: Stack, tmp_path: Path) -> None:
    port = infra.free_port()
    command = [
        sys.executable,
        "-m",
        "idp_common.operations.cli",
        "mail-catcher",
        "--port",
        str(port),
    ]
    extra_processes.spawn(
        "mail-catcher", [*command, "--dir", str(tmp_path)], port, extra_processes.env
    )
    deadline = time.monotonic() + 20
    while True:
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=2) as smtp:
                smtp.sendmail("a@example.com", ["b@example.com"], b"Subject: hi\r\n\r\nbody\r\n")
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    (message,) = wait_for_mail(tmp_path)
    assert message["Subject"] == "hi"
    assert message["X-Envelope-To"] == "b@example.com"
