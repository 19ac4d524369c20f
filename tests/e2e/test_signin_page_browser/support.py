"""Helpers shared by the hosted sign-in page's browser tests: the registered application and
person, the authorize URL."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import Page
from sqlalchemy import select

from idp_common.crypto.passwords import hash_password
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.models import (
    Client,
    ClientScope,
    ClientSecret,
    PasswordCredential,
    Scope,
    User,
)
from tests.harness.stack import Stack

DIST = Path(__file__).resolve().parents[3] / "web/auth/dist/index.html"
SCOPES = ("openid", "profile", "email")
WRONG_CREDENTIALS = "Email or password is incorrect"
RESET_SENT = "If an account exists for that address, we sent a link"
PASSWORD_CHANGED = "Password changed — sign in again from your application"


@dataclass
class Registered:
    client_id: str
    client_secret: str
    redirect_uri: str
    email: str
    password: str
    scope_descriptions: dict[str, str]


async def register(stack: Stack, registered: Registered) -> None:
    engine = create_engine(stack.database_url)
    try:
        async with create_session_factory(engine)() as session, session.begin():
            client = Client(
                client_id=registered.client_id,
                name="Browser Test App",
                type="confidential",
                redirect_uris=[registered.redirect_uri],
                post_logout_redirect_uris=[],
                grant_types=["authorization_code", "refresh_token"],
                skip_consent=False,
            )
            user = User(email=registered.email, display_name="Browser Tester", email_verified=True)
            session.add_all([client, user])
            await session.flush()
            digest = hashlib.sha256(registered.client_secret.encode()).digest()
            session.add(ClientSecret(client_pk=client.id, digest=digest))
            session.add(
                PasswordCredential(user_id=user.id, hash=hash_password(registered.password))
            )
            scopes = (await session.scalars(select(Scope).where(Scope.value.in_(SCOPES)))).all()
            session.add_all(ClientScope(client_pk=client.id, scope_id=s.id) for s in scopes)
            registered.scope_descriptions.update({s.value: s.description for s in scopes})
    finally:
        await engine.dispose()


def authorize_url(stack: Stack, registered: Registered, **extra: str) -> str:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    params = {
        "response_type": "code",
        "client_id": registered.client_id,
        "redirect_uri": registered.redirect_uri,
        "scope": " ".join(SCOPES),
        "state": "xyz",
        "nonce": "n1",
        "code_challenge": challenge.rstrip(b"=").decode(),
        "code_challenge_method": "S256",
        **extra,
    }
    return f"{stack.proxy_url}/oauth2/authorize?{urlencode(params)}"


def focused_id(page: Page) -> str:
    return str(page.evaluate("document.activeElement && document.activeElement.id"))
