"""The preset catalogue (contract §2 rule 9; docs/design.md "Profile fields").

Templates shaped exactly as the creation body: nothing exists until one is posted back
to ``POST /admin/profile-fields``. The standard OIDC claims the provider does not release
itself are mapped to their claim under the ``profile`` scope (the only standard scope
that exists for them: there is no ``phone`` scope in the catalogue); the enterprise
fields release no claim.
"""

from __future__ import annotations

from typing import Final

from idp_common.profile_fields.schema import (
    NO_VALIDATORS,
    DataType,
    ProfileFieldCreate,
    Validators,
)
from idp_common.protocol.constants import SCOPE_PROFILE


def _standard(
    key: str, label: str, data_type: DataType = "string", validators: Validators = NO_VALIDATORS
) -> ProfileFieldCreate:
    """A standard OIDC claim (OIDC Core §5.1), released under ``profile``."""
    return ProfileFieldCreate(
        key=key,
        label=label,
        data_type=data_type,
        validators=validators,
        claim_name=key,
        claim_scope=SCOPE_PROFILE,
    )


PRESETS: Final[tuple[ProfileFieldCreate, ...]] = (
    _standard("given_name", "Given name", validators=Validators(max_length=200)),
    _standard("family_name", "Family name", validators=Validators(max_length=200)),
    _standard("birthdate", "Date of birth", "date"),
    _standard("phone_number", "Phone number", "phone"),
    _standard(
        "locale",
        "Locale",
        "string",
        Validators(pattern=r"[a-z]{2,3}([-_][A-Za-z0-9]{2,8})*", max_length=35),
    ),
    _standard("zoneinfo", "Time zone", validators=Validators(max_length=64)),
    _standard("website", "Website", "url"),
    ProfileFieldCreate(key="department", label="Department", validators=Validators(max_length=200)),
    ProfileFieldCreate(key="job_title", label="Job title", validators=Validators(max_length=200)),
    ProfileFieldCreate(
        key="employee_number",
        label="Employee number",
        unique=True,
        user_writable=False,
        validators=Validators(max_length=64),
    ),
    ProfileFieldCreate(
        key="cost_centre", label="Cost centre", validators=Validators(max_length=64)
    ),
)
