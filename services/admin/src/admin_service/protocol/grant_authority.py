"""Who may give which permission, and who counts as an administrator (docs/security.md,
attack 8; docs/admin-api.md "Granting and credentials").

Each administration route needs one write permission, but that permission alone must not
be a key to every other: holding ``idp:users:write`` lets a caller write grants, and
without a rule it could write itself ``idp:roles:write``, then anything. The rule:

- Nobody gives a scope they do not hold themselves (directly, through a role, through a
  group's role, or, for a machine client, among the client's own scopes). "Gives" counts
  only what a write adds: scopes a grant already had stay, whoever edits the list.
- The standard OpenID Connect scopes (``openid profile email offline_access``) are not
  permissions; anyone who may write the grant may give them.
- The scopes of resource APIs registered through ``/admin/apis`` (any API but the
  provider's own ``idp``) may also be given by a holder of ``idp:apis:write``: that
  permission defines those scopes, so it is their owner. The provider's own ``idp:*``
  scopes are never given by anyone who does not hold them.
- An administrator is a person holding any of the administration scopes
  (``idp:{apis,clients,groups,roles,users,profile-fields}:*``, ``idp:audit:read``).

Pure: the callers read who holds what.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final

from idp_common.protocol.constants import (
    ADMIN_SCOPES,
    IDP_API_NAME,
    OIDC_SCOPES,
    SCOPE_IDP_APIS_WRITE,
)

__all__ = ["ADMINISTRATION_SCOPES", "admin_scopes_of", "is_administrator", "scopes_not_held"]

ADMINISTRATION_SCOPES: Final = frozenset(ADMIN_SCOPES)
_FREE: Final = frozenset(OIDC_SCOPES)
_PROVIDER_PREFIX: Final = f"{IDP_API_NAME}:"


def scopes_not_held(given: Iterable[str], held: Collection[str]) -> list[str]:
    """The values of ``given`` that a caller holding ``held`` may not give, sorted and
    without repeats; empty when the write may go ahead."""
    owns_resource_apis = SCOPE_IDP_APIS_WRITE in held
    refused = set()
    for value in given:
        if value in _FREE or value in held:
            continue
        if owns_resource_apis and not value.startswith(_PROVIDER_PREFIX):
            continue
        refused.add(value)
    return sorted(refused)


def admin_scopes_of(scopes: Iterable[str]) -> frozenset[str]:
    """The administration scopes among ``scopes``."""
    return ADMINISTRATION_SCOPES.intersection(scopes)


def is_administrator(scopes: Iterable[str]) -> bool:
    """Whether a person holding ``scopes`` is an administrator."""
    return bool(admin_scopes_of(scopes))
