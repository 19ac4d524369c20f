"""A passkey as the self-service and administration APIs show it (docs/passkeys.md):
``PasskeyRead``. Both services answer the same shape, so it lives here.

Never the credential id or the public key: a list of passkeys tells what they are (synced or
bound to one device, verified, from which authenticator model) and when they were used.
"""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec

from idp_common.storage.repos.passkeys import PasskeyRecord

__all__ = ["PasskeyList", "PasskeyRead", "passkey_read"]


class PasskeyRead(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """``synced``: backup eligible (a passkey synced across the person's devices; false for
    one bound to a device, such as a security key). ``aaguid``: the authenticator model
    (all zeros when the authenticator does not say)."""

    id: uuid.UUID
    name: str
    created_at: datetime
    last_used_at: datetime | None
    synced: bool
    backed_up: bool
    user_verified: bool
    aaguid: str
    sign_count: int
    transports: list[str]
    clone_suspected_at: datetime | None


class PasskeyList(msgspec.Struct, frozen=True):
    items: list[PasskeyRead]


def passkey_read(record: PasskeyRecord) -> PasskeyRead:
    return PasskeyRead(
        id=record.id,
        name=record.name,
        created_at=record.created_at,
        last_used_at=record.last_used_at,
        synced=record.backup_eligible,
        backed_up=record.backed_up,
        user_verified=record.user_verified,
        aaguid=record.aaguid,
        sign_count=record.sign_count,
        transports=list(record.transports),
        clone_suspected_at=record.clone_suspected_at,
    )
