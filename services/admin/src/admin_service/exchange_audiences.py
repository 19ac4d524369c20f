"""A client's ``tokenExchangeAudiences`` (RFC 8693) name resource APIs, never the
provider's own.

Which client may exchange a person's token for which API is an administrator's decision,
stored on the client. Each value must be the ``audience`` of a resource API registered now
(``/admin/apis``), else 400 problem+json naming ``tokenExchangeAudiences[i]``; and not the
provider's own API (``idp``, audience ``{issuer}/api``), else 422 naming it: a token
exchanged for that API would be a bearer copy of the person's own token, able to step up
and to reach their account (``/entity``) and the administration API. The token endpoint
refuses it as well (``invalid_target``), for a value stored before this rule.

An API renamed or deleted later leaves the value in place; the token endpoint then answers
``invalid_target`` for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import FieldError, InvalidArgument, InvalidField
from idp_common.storage.repos.apis import apis_by_audience

FIELD: Final = "tokenExchangeAudiences"
#: The problem ``code`` of an audience that names no API.
CODE: Final = "admin.exchange_audience_unknown"
#: The problem ``code`` of the provider's own API named as an exchange audience.
CODE_OWN_API: Final = "admin.exchange_audience_own_api"
OWN_API_MESSAGE: Final = (
    "the provider's own API cannot be an exchange audience: a token exchanged for it would "
    "act as the person's own token, reaching their account and the administration API"
)


def _refuse(errors: list[FieldError], kind: type[InvalidArgument], code: str) -> None:
    if errors:
        detail = "; ".join(f"invalid field {e.field}: {e.message}" for e in errors)
        raise kind(detail, code=code, errors=errors)


async def check_exchange_audiences(
    session: AsyncSession, audiences: Sequence[str], *, own_api: str
) -> None:
    """Raise :class:`InvalidArgument` (422) naming each value that is the provider's own
    API (``own_api``, its audience), else :class:`InvalidField` (400) naming each value
    that is no API's audience."""
    if not audiences:
        return
    found = await apis_by_audience(session, audiences)
    known = {api.audience for api in found}
    indexed = list(enumerate(audiences))
    own_errors = [FieldError(f"{FIELD}[{i}]", OWN_API_MESSAGE) for i, a in indexed if a == own_api]
    _refuse(own_errors, InvalidArgument, CODE_OWN_API)
    unknown = [
        FieldError(f"{FIELD}[{i}]", "not the audience of a registered API")
        for i, audience in indexed
        if audience not in known
    ]
    _refuse(unknown, InvalidField, CODE)
