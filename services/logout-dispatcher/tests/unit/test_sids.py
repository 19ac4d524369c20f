"""Each application is told with the sid(s) it was given (docs/security.md, attack 18): a client
reached before a re-authentication continued the session knows it by an older sid."""

from __future__ import annotations

import time

from cryptography.hazmat.primitives.asymmetric import rsa

from idp_common.crypto.jwt import verify_jwt
from idp_common.crypto.keys import KeySet, SigningKey
from idp_common.usecases.session_end import SessionEnded
from logout_dispatcher.delivery import Attempt
from logout_dispatcher.fanout import audit_entry, sign_logout_tokens
from logout_dispatcher.recipients import Recipient, one_per_sid

KEYS = KeySet((SigningKey.from_private_key("k.pem", rsa.generate_private_key(65537, 2048)),))
ISSUER = "https://id.example.com"
EVENT = SessionEnded(
    user_id="person",
    sid="new-sid",
    clients=["early", "late", "both"],
    reason="logout",
    client_sids={"early": ["old-sid"], "both": ["old-sid", "new-sid"]},
)
RECIPIENTS = [Recipient(client_id=c, uri=f"https://{c}.example/bcl") for c in EVENT.clients]


def test_one_recipient_per_sid_given() -> None:
    assert [(r.client_id, r.sid) for r in one_per_sid(EVENT, RECIPIENTS)] == [
        ("early", "old-sid"),
        ("late", "new-sid"),
        ("both", "old-sid"),
        ("both", "new-sid"),
    ]


def test_each_token_and_audit_row_carries_its_recipients_sid() -> None:
    recipients = one_per_sid(EVENT, RECIPIENTS)
    tokens = sign_logout_tokens(KEYS, ISSUER, EVENT, recipients)
    now = int(time.time())
    for token, recipient in zip(tokens, recipients, strict=True):
        claims = verify_jwt(
            token, KEYS, issuer=ISSUER, audience=recipient.client_id, now=now, typ="logout+jwt"
        )
        assert claims["sid"] == recipient.sid
        entry = audit_entry(EVENT, recipient, Attempt(status_code=200, elapsed_ms=1))
        assert entry.detail["sid"] == recipient.sid


def test_an_event_without_client_sids_tells_everyone_its_sid() -> None:
    plain = SessionEnded(user_id="p", sid="s", clients=["a", "b"], reason="logout")
    assert [r.sid for r in one_per_sid(plain, RECIPIENTS[:2])] == ["s", "s"]
    assert sign_logout_tokens(KEYS, ISSUER, plain, [RECIPIENTS[0]])  # "" falls back to "s"
