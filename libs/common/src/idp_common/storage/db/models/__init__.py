"""The database schema as SQLAlchemy models (contract §2, docs/design.md section 2).

Why it exists: one declaration of every table, shared by the repositories of all
services and by the Alembic migrations in ``idp_common.storage.db.migrations``, which must match
it exactly (an integration test compares them). One module per table group; import the
names from here.
"""

from ._access import Group, GroupMember, GroupRole, Role, RoleScope, UserRole, UserScope
from ._activity import ACTIVITY_ACTIONS, ActivityHour
from ._api import Api, Scope
from ._audit import AuditEvent
from ._base import NAMING_CONVENTION, Base
from ._brand import Brand
from ._client import Client, ClientScope, ClientSecret
from ._consent import Consent
from ._credential import (
    FaceTemplate,
    Passkey,
    PasswordCredential,
    PhotoFingerprint,
    TotpCredential,
    TotpRecoveryCode,
)
from ._outbox import OutboxEvent
from ._profile import DATA_TYPES, ProfileField, ProfileValue
from ._token import AuthorizationCode, PasswordResetToken, RefreshToken
from ._user import User
from ._webhook import WebhookDelivery, WebhookEndpoint

__all__ = [
    "ACTIVITY_ACTIONS",
    "DATA_TYPES",
    "NAMING_CONVENTION",
    "ActivityHour",
    "Api",
    "AuditEvent",
    "AuthorizationCode",
    "Base",
    "Brand",
    "Client",
    "ClientScope",
    "ClientSecret",
    "Consent",
    "FaceTemplate",
    "Group",
    "GroupMember",
    "GroupRole",
    "OutboxEvent",
    "Passkey",
    "PasswordCredential",
    "PasswordResetToken",
    "PhotoFingerprint",
    "ProfileField",
    "ProfileValue",
    "RefreshToken",
    "Role",
    "RoleScope",
    "Scope",
    "TotpCredential",
    "TotpRecoveryCode",
    "User",
    "UserRole",
    "UserScope",
    "WebhookDelivery",
    "WebhookEndpoint",
]
