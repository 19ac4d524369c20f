"""Attack 12: the provider's own API ignored revocation and disabled people for ten minutes.

The bearer guard of ``/admin/*`` and ``/entity/*`` validated access tokens offline only:
signature, audience, expiry. A token revoked at ``/oauth2/revoke`` (a stolen one, say), or
the token of a person an administrator had just disabled or deleted, kept working on the
provider's own API until it expired, up to ten minutes later; an administrator who was
removed kept administering.

What must hold now: such a token is refused at once, 401 ``invalid_token``, on both APIs,
and the refusal is audited (``access.refused``). The tokens here are real ones, issued by
the token endpoint (or, for an administrator, signed with the stack's key as the token
endpoint signs them); the revocation goes through ``/oauth2/revoke`` and the disabling and
deleting through the admin API.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.harness import records
from tests.harness.api import (
    administrator_token,
    signed_in_administrator,
)
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf

pytestmark = pytest.mark.integration

PROFILE = "/entity/profile"


@pytest.fixture
def http(stack: Stack) -> Iterator[httpx.Client]:
    yield from tf.token_http(stack)


@pytest.fixture(scope="module")
def app(stack: Stack) -> tf.AppClient:
    return tf.create_client(stack, scopes=[*tf.OIDC, "idp:account:read"])


def issued(http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person) -> str:
    code = tf.create_code(stack, app, person, scope="openid idp:account:read")
    answer = tf.exchange(http, app, code)
    assert answer.status_code == 200, answer.text
    token: str = answer.json()["access_token"]
    return token


def get(stack: Stack, service: str, path: str, token: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}", "X-Forwarded-For": tf.fresh_address()}
    return httpx.get(stack.service_url(service) + path, headers=headers, timeout=15)


def administrator(stack: Stack) -> tuple[str, str]:
    """A real administrator and a token of theirs, signed in just now with two factors."""
    return signed_in_administrator(stack)


def admin_call(stack: Stack, token: str, method: str, path: str, json: object = None) -> int:
    headers = {"Authorization": f"Bearer {token}", "X-Forwarded-For": tf.fresh_address()}
    url = stack.service_url("admin") + path
    return httpx.request(method, url, json=json, headers=headers, timeout=15).status_code


def assert_refused(answer: httpx.Response) -> None:
    assert answer.status_code == 401, answer.text
    assert 'error="invalid_token"' in answer.headers["www-authenticate"]


def refusals(stack: Stack, actor: str) -> list[dict[str, object]]:
    return records.query(
        stack,
        "SELECT status_code FROM audit_events WHERE action = 'access.refused' AND actor = $1",
        actor,
    )


def test_a_revoked_access_token_is_refused_at_once(
    http: httpx.Client, stack: Stack, app: tf.AppClient
) -> None:
    person = tf.create_person(stack)
    token = issued(http, stack, app, person)
    assert get(stack, "entity", PROFILE, token).status_code == 200
    revoked = http.post(
        "/oauth2/revoke",
        data={"token": token, "token_type_hint": "access_token"},
        headers=app.basic(),
    )
    assert revoked.status_code == 200
    assert_refused(get(stack, "entity", PROFILE, token))
    assert refusals(stack, str(person.id)) == [{"status_code": 401}]


@pytest.mark.parametrize("removal", ["disable", "delete"])
def test_a_disabled_or_deleted_persons_token_is_refused_at_once(
    http: httpx.Client, stack: Stack, app: tf.AppClient, removal: str
) -> None:
    person = tf.create_person(stack)
    token = issued(http, stack, app, person)
    assert get(stack, "entity", PROFILE, token).status_code == 200
    _, admin = administrator(stack)
    path = f"/admin/users/{person.id}"
    if removal == "disable":
        assert admin_call(stack, admin, "PATCH", path, {"disabled": True}) == 200
    else:
        assert admin_call(stack, admin, "DELETE", path) == 204
    assert_refused(get(stack, "entity", PROFILE, token))


def test_a_disabled_administrator_stops_administering_at_once(stack: Stack) -> None:
    removed, their_token = administrator(stack)
    assert get(stack, "admin", "/admin/audit", their_token).status_code == 200
    _, admin = administrator(stack)
    assert admin_call(stack, admin, "PATCH", f"/admin/users/{removed}", {"disabled": True}) == 200
    assert_refused(get(stack, "admin", "/admin/audit", their_token))
    assert_refused(get(stack, "entity", PROFILE, their_token))
    # Enabled again, the old token stays refused: disabling ended the sessions it was
    # issued in. A new sign-in administers again.
    assert admin_call(stack, admin, "PATCH", f"/admin/users/{removed}", {"disabled": False}) == 200
    assert_refused(get(stack, "admin", "/admin/audit", their_token))
    fresh = administrator_token(stack, removed)
    assert get(stack, "admin", "/admin/audit", fresh).status_code == 200
