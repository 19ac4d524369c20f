"""Settings read from ``SVC_*`` environment variables (contract §5 "Deployment settings").

Every setting is parsed, then every rule is checked, and all problems are reported
together in one :class:`SettingsError`, so an operator fixes a bad deployment in one
round instead of one restart per mistake. A secret may also be given through
``SVC_<NAME>_FILE`` (Docker/Kubernetes secrets). Settings are loaded once at start-up
and passed explicitly; nothing reads the environment at import time.

The package: :mod:`~idp_common.config.settings` (the fields and their defaults),
:mod:`~idp_common.config.loading` (reading and parsing the environment),
:mod:`~idp_common.config.rules` (the rules a deployment must satisfy). It imports only
``protocol`` and ``crypto``.

Layer (pyproject.toml): may import protocol, crypto and errors only.
"""

from __future__ import annotations

from idp_common.config.loading import load_settings
from idp_common.config.rules import unsafe_defaults, validate
from idp_common.config.settings import (
    FACE_SIGNIN_MODES,
    HOST_PREFIX,
    PREFIX,
    Environment,
    Settings,
    SettingsError,
)

__all__ = [
    "FACE_SIGNIN_MODES",
    "HOST_PREFIX",
    "PREFIX",
    "Environment",
    "Settings",
    "SettingsError",
    "load_settings",
    "unsafe_defaults",
    "validate",
]
