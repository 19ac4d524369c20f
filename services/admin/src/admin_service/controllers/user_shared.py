"""What the ``/admin/users`` controllers share: the permission notes of their OpenAPI text
(after the ``Needs `scope`.`` that :func:`admin_service.routes.operation` writes)."""

from __future__ import annotations

from typing import Final

#: docs/admin-api.md "Granting and credentials".
GRANT_NOTE: Final = (
    "Needs a recent sign-in with the password or a one-time code (else 403 with an RFC 9470 "
    "step-up challenge), and gives only scopes the caller holds itself (else 403 "
    "`admin.scope_not_held`)."
)
CREDENTIAL_NOTE: Final = (
    "Needs a recent sign-in with the password or a one-time code; for another "
    "administrator, a sign-in with two factors and every administration scope they hold "
    "(else 403)."
)
