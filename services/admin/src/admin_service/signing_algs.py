"""The signing-algorithm fields of APIs and clients, checked before anything
is written: one of the algorithms the provider implements and holds a current key for
(:func:`admin_service.protocol.jws_algorithms.signing_alg_problem`), else 400 problem+json
naming each bad field (``invalid field accessTokenSigningAlg: no ES256 signing key;
generate one with idp keys generate --alg ES256``).

The held algorithms are those of this process's key set (``Resources.keys``), re-read
from ``SVC_KEY_DIR`` like every service's: an algorithm whose key was just generated is
accepted once the admin service has re-read the directory (``SVC_KEY_RELOAD_SECONDS``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from admin_service.protocol.jws_algorithms import signing_alg_problem
from admin_service.routes import Req
from idp_common.errors import FieldError, InvalidField
from idp_common.web.caller import resources_of

#: The problem ``code`` of a refused algorithm.
CODE: Final = "admin.signing_alg_refused"


def check_signing_algs(request: Req, fields: Mapping[str, object]) -> None:
    """Raise :class:`InvalidField` (400) naming every field of ``fields`` (wire name →
    value) whose algorithm cannot be used; None values (a cleared, optional field) pass."""
    held = resources_of(request).keys.algorithms
    errors = [
        FieldError(name, problem)
        for name, value in fields.items()
        if value is not None and (problem := signing_alg_problem(value, held)) is not None
    ]
    if errors:
        detail = "; ".join(f"invalid field {e.field}: {e.message}" for e in errors)
        raise InvalidField(detail, code=CODE, errors=errors)
