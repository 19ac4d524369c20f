"""A client's ``tokenExchangeAudiences`` (RFC 8693, issue #25) name existing APIs.

Which client may exchange a person's token for which API is an administrator's decision,
stored on the client; each value must be the ``audience`` of a resource API registered now
(``/admin/apis``), else 400 problem+json naming ``tokenExchangeAudiences[i]``. An API
renamed or deleted later leaves the value in place; the token endpoint then answers
``invalid_target`` for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import FieldError, InvalidField
from idp_common.storage.repos.apis import apis_by_audience

FIELD: Final = "tokenExchangeAudiences"
#: The problem ``code`` of an audience that names no API.
CODE: Final = "admin.exchange_audience_unknown"


async def check_exchange_audiences(session: AsyncSession, audiences: Sequence[str]) -> None:
    """Raise :class:`InvalidField` (400) naming each value that is no API's audience."""
    if not audiences:
        return
    known = {api.audience for api in await apis_by_audience(session, audiences)}
    errors = [
        FieldError(f"{FIELD}[{i}]", "not the audience of a registered API")
        for i, audience in enumerate(audiences)
        if audience not in known
    ]
    if errors:
        detail = "; ".join(f"invalid field {e.field}: {e.message}" for e in errors)
        raise InvalidField(detail, code=CODE, errors=errors)
