"""The scopes a set of roles holds, for the users controller; the roles themselves are
stored by :mod:`idp_common.storage.repos.roles`, which this name re-exports."""

from idp_common.storage.repos.roles import role_scope_values

__all__ = ["role_scope_values"]
