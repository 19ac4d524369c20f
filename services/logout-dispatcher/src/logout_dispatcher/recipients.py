"""Storage reads of the dispatcher: which applications of an ended session get a token."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.repos.client_lookups import backchannel_uris
from idp_common.usecases.session_end import SessionEnded


class Recipient(msgspec.Struct, frozen=True, kw_only=True):
    """One logout token to send. ``sid``: the one it carries ("" = the event's)."""

    client_id: str
    uri: str
    sid: str = ""


async def backchannel_recipients(db: AsyncSession, client_ids: Sequence[str]) -> list[Recipient]:
    """The applications among ``client_ids`` that registered a ``backchannelLogoutUri``
    (spec part 6 rule 2), in the order they were reached. A client deleted since is gone."""
    uris = await backchannel_uris(db, client_ids)
    return [Recipient(client_id=c, uri=uris[c]) for c in dict.fromkeys(client_ids) if c in uris]


def one_per_sid(event: SessionEnded, recipients: Sequence[Recipient]) -> list[Recipient]:
    """A recipient per sid its client was given: a client reached before a
    re-authentication continued the session knows it by an older sid (or by both)."""
    return [
        msgspec.structs.replace(recipient, sid=sid)
        for recipient in recipients
        for sid in event.sids_of(recipient.client_id)
    ]
