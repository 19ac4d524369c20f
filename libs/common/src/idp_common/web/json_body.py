"""A request whose JSON body is refused with a clear 400 whatever is wrong with it.

Litestar maps only msgspec's ``DecodeError`` to a 400 ("JSON is malformed"). Two other
failures of the decoder would escape as 500s: msgspec raises ``RecursionError``
for a body nested deeper than the interpreter's recursion limit (about 1,000 levels: a
100 KB body of ``[`` is enough) and ``UnicodeDecodeError`` for a string that is not
UTF-8. Every service's app uses :class:`JSONBodyRequest` (``app_factory``), so each JSON
body endpoint answers all three with 400 ``invalid_json`` naming the problem, before the
handler runs: nothing is written.
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.exceptions import SerializationException

from idp_common.errors import DomainError


class InvalidJSON(DomainError):
    status_code = 400
    title = "Bad Request"
    default_code = "invalid_json"


class JSONBodyRequest(Request[Any, Any, Any]):
    async def json(self) -> Any:
        try:
            return await super().json()
        except RecursionError as exc:
            raise InvalidJSON("the JSON body is nested too deeply") from exc
        except UnicodeDecodeError as exc:
            raise InvalidJSON("the JSON body is not valid UTF-8") from exc
        except SerializationException as exc:
            raise InvalidJSON(f"the body is not valid JSON: {exc}") from exc
