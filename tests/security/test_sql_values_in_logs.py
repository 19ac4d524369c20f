"""Attack 13: unexpected errors were logged with the SQL statement's values.

An unexpected database error (a bug, a constraint the code did not expect, a trigger) is a
500, logged with its stack so an operator can fix it. SQLAlchemy's message of such an
error carried the statement's parameters (``[parameters: ('someone@example.com', ...)]``):
emails, password hashes, token digests went into the service logs, which are shipped,
kept and read far more widely than the database. PostgreSQL's own error text can carry
values too: a check or not-null violation says ``DETAIL: Failing row contains (...)``,
the whole row, a password hash included.

The attack is provoked for real in the stack's own database: a test-only trigger refuses
the insert of one canary email (an error the code does not expect, so a 500), and a
test-only check constraint refuses the password row of one canary person. Each is
dropped in ``finally``. The service's log must hold the error line and neither the
canary email nor any password hash.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.harness import records
from tests.harness.api import signed_in_administrator
from tests.harness.stack import Process, Stack

pytestmark = pytest.mark.integration

HASH_MARK = "$argon2id$"


def admin_log(stack: Stack) -> Process:
    (process,) = [p for p in stack.processes if p.name == "admin" and p.popen.poll() is None]
    return process


def log_since(process: Process, offset: int) -> str:
    return process.log_path.read_bytes()[offset:].decode("utf-8", errors="replace")


def wait_for(process: Process, offset: int, needle: str) -> str:
    """The log written since ``offset`` once it holds ``needle`` (or after 5 s)."""
    deadline = time.monotonic() + 5
    while True:
        text = log_since(process, offset)
        if needle in text or time.monotonic() > deadline:
            return text
        time.sleep(0.1)


@pytest.fixture
def admin(stack: Stack) -> Iterator[httpx.Client]:
    _, token = signed_in_administrator(stack)
    headers = {"Authorization": f"Bearer {token}", "X-Forwarded-For": "198.18.13.13"}
    with httpx.Client(base_url=stack.service_url("admin"), headers=headers, timeout=20) as c:
        yield c


def test_statement_parameters_stay_out_of_the_log(stack: Stack, admin: httpx.Client) -> None:
    canary = f"canary-{uuid.uuid4().hex[:12]}@example.com"
    name = f"refuse_{uuid.uuid4().hex[:8]}"
    records.query(
        stack,
        f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$"
        f" BEGIN IF NEW.email = '{canary}' THEN"
        "  RAISE EXCEPTION 'refused by a test trigger'; END IF; RETURN NEW; END $$",
    )
    process = admin_log(stack)
    offset = process.log_path.stat().st_size
    try:
        records.query(
            stack,
            f"CREATE TRIGGER {name} BEFORE INSERT ON users FOR EACH ROW EXECUTE FUNCTION {name}()",
        )
        body = {"email": canary, "password": "a long enough passphrase 13", "username": canary[:20]}
        answer = admin.post("/admin/users", json=body)
    finally:
        records.query(stack, f"DROP TRIGGER IF EXISTS {name} ON users")
        records.query(stack, f"DROP FUNCTION IF EXISTS {name}()")
    assert answer.status_code == 500, answer.text
    assert canary not in answer.text
    text = wait_for(process, offset, "refused by a test trigger")
    assert "unhandled error on POST /admin/users" in text, text[-3000:]
    assert "refused by a test trigger" in text
    assert canary not in text, "the canary email reached the log"
    assert canary[:20] not in text, "the canary username reached the log"
    assert HASH_MARK not in text, "a password hash reached the log"


def test_the_servers_failing_row_stays_out_of_the_log(stack: Stack, admin: httpx.Client) -> None:
    person = records.create_user(stack)
    name = f"refuse_{uuid.uuid4().hex[:8]}"
    process = admin_log(stack)
    offset = process.log_path.stat().st_size
    records.query(
        stack,
        f"ALTER TABLE password_credentials ADD CONSTRAINT {name}"
        f" CHECK (user_id <> '{person.id}') NOT VALID",
    )
    try:
        answer = admin.post(
            f"/admin/users/{person.id}/reset-password",
            json={"password": "another long passphrase 13"},
        )
    finally:
        records.query(stack, f"ALTER TABLE password_credentials DROP CONSTRAINT IF EXISTS {name}")
    assert answer.status_code == 500, answer.text
    text = wait_for(process, offset, name)
    assert "unhandled error on POST /admin/users" in text, text[-3000:]
    assert name in text  # the error line names the constraint
    assert HASH_MARK not in text, "a password hash reached the log"
    assert person.email not in text
