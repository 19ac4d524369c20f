"""Storage reads of the dispatcher: which applications of an ended session get a token."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.db.models import Client
from idp_common.usecases.session_end import SessionEnded


class Recipient(msgspec.Struct, frozen=True, kw_only=True):
    """One logout token to send. ``sid``: the one it carries ("" = the event's)."""

    client_id: str
    uri: str
    sid: str = ""


async def backchannel_recipients(db: AsyncSession, client_ids: Sequence[str]) -> list[Recipient]:
    """The applications among ``client_ids`` that registered a ``backchannelLogoutUri``
    (spec part 6 rule 2), in the order they were reached. A client deleted since is gone."""
    if not client_ids:
        return []
    rows = await db.execute(
        select(Client.client_id, Client.backchannel_logout_uri).where(
            Client.client_id.in_(list(client_ids)), Client.backchannel_logout_uri.is_not(None)
        )
    )
    uris = {client_id: uri for client_id, uri in rows if uri}
    return [Recipient(client_id=c, uri=uris[c]) for c in dict.fromkeys(client_ids) if c in uris]


def one_per_sid(event: SessionEnded, recipients: Sequence[Recipient]) -> list[Recipient]:
    """A recipient per sid its client was given: a client reached before a
    re-authentication continued the session knows it by an older sid (or by both)."""
    return [
        msgspec.structs.replace(recipient, sid=sid)
        for recipient in recipients
        for sid in event.sids_of(recipient.client_id)
    ]
