"""The preset catalogue of profile fields (contract §2 rule 9): each preset passes the
rules a field definition must pass."""

from __future__ import annotations

from admin_service.profile_presets import PRESETS
from idp_common.profile_fields import rules


def test_presets_pass_the_rules() -> None:
    keys = [p.key for p in PRESETS]
    assert len(set(keys)) == len(keys)
    for preset in PRESETS:
        assert rules.check_create(preset) == [], preset.key
