"""``passkeys``: the WebAuthn credentials people registered (docs/passkeys.md).

Every function takes the caller's transaction. A person's passkeys are found by the
person; a sign-in finds one by its credential id (unique across people). A use moves
the counter forward in one conditional UPDATE (:func:`record_use`): of two uses presenting
the same counter, only one is recorded.
"""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime
from typing import Any, Final

import msgspec
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.w3c_webauthn import RegisteredCredential
from idp_common.storage.db.models import Passkey

#: A person may hold this many passkeys (a phone, a laptop, two security keys, ...).
MAX_PASSKEYS_PER_PERSON: Final = 20


class PasskeyRecord(msgspec.Struct, frozen=True, kw_only=True):
    id: uuid.UUID
    user_id: uuid.UUID
    credential_id: bytes
    public_key: bytes
    sign_count: int
    aaguid: str
    transports: list[str]
    backup_eligible: bool
    backed_up: bool
    user_verified: bool
    name: str
    created_at: datetime
    last_used_at: datetime | None
    clone_suspected_at: datetime | None


_COLUMNS: Final = (
    Passkey.id,
    Passkey.user_id,
    Passkey.credential_id,
    Passkey.public_key,
    Passkey.sign_count,
    Passkey.aaguid,
    Passkey.transports,
    Passkey.backup_eligible,
    Passkey.backed_up,
    Passkey.user_verified,
    Passkey.name,
    Passkey.created_at,
    Passkey.last_used_at,
    Passkey.clone_suspected_at,
)


def _record(row: Any) -> PasskeyRecord:
    return PasskeyRecord(**{column.key: value for column, value in zip(_COLUMNS, row, strict=True)})


async def list_passkeys(db: AsyncSession, user_id: uuid.UUID) -> list[PasskeyRecord]:
    """The person's passkeys, oldest first."""
    rows = await db.execute(
        select(*_COLUMNS).where(Passkey.user_id == user_id).order_by(Passkey.created_at, Passkey.id)
    )
    return [_record(row) for row in rows]


async def count_passkeys(db: AsyncSession, user_id: uuid.UUID) -> int:
    statement = select(func.count()).select_from(Passkey).where(Passkey.user_id == user_id)
    return int((await db.execute(statement)).scalar_one())


async def get_passkey(
    db: AsyncSession, user_id: uuid.UUID, passkey_id: uuid.UUID
) -> PasskeyRecord | None:
    row = (
        await db.execute(
            select(*_COLUMNS).where(Passkey.user_id == user_id, Passkey.id == passkey_id)
        )
    ).first()
    return None if row is None else _record(row)


async def find_by_credential_id(db: AsyncSession, credential_id: bytes) -> PasskeyRecord | None:
    """The passkey with this credential id, whoever holds it."""
    row = (
        await db.execute(select(*_COLUMNS).where(Passkey.credential_id == credential_id))
    ).first()
    return None if row is None else _record(row)


async def credential_ids(db: AsyncSession, user_id: uuid.UUID) -> list[tuple[bytes, list[str]]]:
    """The ids and transports of the person's usable passkeys (``allowCredentials`` of a
    second factor, ``excludeCredentials`` of a registration)."""
    rows = await db.execute(
        select(Passkey.credential_id, Passkey.transports)
        .where(Passkey.user_id == user_id, Passkey.clone_suspected_at.is_(None))
        .order_by(Passkey.created_at)
    )
    return [(row[0], list(row[1])) for row in rows]


async def add_passkey(
    db: AsyncSession, user_id: uuid.UUID, credential: RegisteredCredential, name: str
) -> PasskeyRecord:
    """Insert the credential (a credential id already registered raises IntegrityError)."""
    values = {**dataclasses.asdict(credential), "name": name}
    row = (
        await db.execute(insert(Passkey).values(user_id=user_id, **values).returning(*_COLUMNS))
    ).one()
    return _record(row)


async def rename_passkey(
    db: AsyncSession, user_id: uuid.UUID, passkey_id: uuid.UUID, name: str
) -> PasskeyRecord | None:
    row = (
        await db.execute(
            update(Passkey)
            .where(Passkey.user_id == user_id, Passkey.id == passkey_id)
            .values(name=name)
            .returning(*_COLUMNS)
        )
    ).first()
    return None if row is None else _record(row)


async def delete_passkey(db: AsyncSession, user_id: uuid.UUID, passkey_id: uuid.UUID) -> bool:
    result = await db.execute(
        delete(Passkey).where(Passkey.user_id == user_id, Passkey.id == passkey_id)
    )
    return bool(getattr(result, "rowcount", 0))


async def record_use(
    db: AsyncSession, passkey_id: uuid.UUID, *, seen_count: int, new_count: int, backed_up: bool
) -> bool:
    """Move the counter from ``seen_count`` (what the sign-in read) to ``new_count`` and
    set ``last_used_at``; False when another use moved it meanwhile or the passkey is gone
    or flagged (the sign-in is then refused)."""
    result = await db.execute(
        update(Passkey)
        .where(
            Passkey.id == passkey_id,
            Passkey.sign_count == seen_count,
            Passkey.clone_suspected_at.is_(None),
        )
        .values(sign_count=new_count, backed_up=backed_up, last_used_at=func.now())
    )
    return bool(getattr(result, "rowcount", 0))


async def flag_clone(db: AsyncSession, passkey_id: uuid.UUID) -> None:
    """Mark the passkey as a possible clone (its counter went backwards): refused from now."""
    await db.execute(
        update(Passkey)
        .where(Passkey.id == passkey_id, Passkey.clone_suspected_at.is_(None))
        .values(clone_suspected_at=func.now())
    )
