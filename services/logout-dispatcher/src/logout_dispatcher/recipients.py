"""Storage reads of the dispatcher: which applications of an ended session get a token."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.constants import SIGNING_ALGORITHM
from idp_common.storage.repos.client_lookups import backchannel_targets
from idp_common.usecases.session_end import SessionEnded


class Recipient(msgspec.Struct, frozen=True, kw_only=True):
    """One logout token to send. ``sid``: the one it carries ("" = the event's); ``alg``:
    the algorithm it is signed with, the client's ID-token algorithm."""

    client_id: str
    uri: str
    sid: str = ""
    alg: str = SIGNING_ALGORITHM


async def backchannel_recipients(db: AsyncSession, client_ids: Sequence[str]) -> list[Recipient]:
    """The applications among ``client_ids`` that registered a ``backchannelLogoutUri``
    (contract §6 rule 2), in the order they were reached. A client deleted since is gone."""
    targets = await backchannel_targets(db, client_ids)
    return [
        Recipient(client_id=c, uri=targets[c][0], alg=targets[c][1])
        for c in dict.fromkeys(client_ids)
        if c in targets
    ]


def one_per_sid(event: SessionEnded, recipients: Sequence[Recipient]) -> list[Recipient]:
    """A recipient per sid its client was given: a client reached before a
    re-authentication continued the session knows it by an older sid (or by both)."""
    return [
        msgspec.structs.replace(recipient, sid=sid)
        for recipient in recipients
        for sid in event.sids_of(recipient.client_id)
    ]
