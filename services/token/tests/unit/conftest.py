"""Records for the grants' unit tests: a client, a person, a code, a refresh token, built
in memory (the decisions under test are pure)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from idp_common.storage.repos.clients import ClientRecord
from idp_common.storage.repos.codes import CodeGrant
from idp_common.storage.repos.refresh_tokens import RefreshTokenRecord
from idp_common.storage.repos.users import UserRecord
from token_service.repos.people import Person, UserClaims

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


@pytest.fixture
def make_client() -> Callable[..., ClientRecord]:
    def make(**changes: Any) -> ClientRecord:
        values: dict[str, Any] = {
            "pk": uuid.uuid4(),
            "client_id": "app",
            "name": "App",
            "type": "confidential",
            "redirect_uris": ("https://app.example/cb",),
            "post_logout_redirect_uris": (),
            "backchannel_logout_uri": None,
            "grant_types": frozenset({"authorization_code", "refresh_token"}),
            "skip_consent": False,
            "scopes": frozenset({"openid", "profile", "offline_access", "api:read"}),
            "secret_digest": None,
        }
        return ClientRecord(**{**values, **changes})

    return make


@pytest.fixture
def make_person() -> Callable[..., Person]:
    def make(*, disabled: bool = False, scopes: frozenset[str] = frozenset()) -> Person:
        user = UserRecord(
            id=uuid.uuid4(),
            email="ada@example.org",
            username="ada",
            display_name="Ada",
            picture=None,
            email_verified=True,
            disabled=disabled,
            updated_at=NOW,
        )
        return Person(claims=UserClaims(user=user), scopes=scopes)

    return make


@pytest.fixture
def make_code() -> Callable[..., CodeGrant]:
    def make(client: ClientRecord, **changes: Any) -> CodeGrant:
        values: dict[str, Any] = {
            "grant_id": uuid.uuid4(),
            "client_pk": client.pk,
            "user_id": uuid.uuid4(),
            "redirect_uri": "https://app.example/cb",
            "scope": "openid profile offline_access",
            "nonce": None,
            "code_challenge": None,
            "code_challenge_method": None,
            "session_sid": "sid-1",
            "auth_time": NOW,
            "acr": None,
            "amr": ["pwd"],
            "expires_at": NOW + timedelta(seconds=60),
        }
        return CodeGrant(**{**values, **changes})

    return make


@pytest.fixture
def make_refresh() -> Callable[..., RefreshTokenRecord]:
    def make(client_pk: uuid.UUID, **changes: Any) -> RefreshTokenRecord:
        values: dict[str, Any] = {
            "id": uuid.uuid4(),
            "family_id": uuid.uuid4(),
            "grant_id": uuid.uuid4(),
            "parent_id": None,
            "client_pk": client_pk,
            "user_id": uuid.uuid4(),
            "scope": "openid offline_access api:read",
            "session_sid": "sid-1",
            "auth_time": NOW,
            "acr": None,
            "amr": ["pwd"],
            "issued_at": NOW,
            "expires_at": NOW + timedelta(days=30),
            "spent_at": None,
            "revoked_at": None,
        }
        return RefreshTokenRecord(**{**values, **changes})

    return make
