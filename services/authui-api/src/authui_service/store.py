"""The credential functions ``authui_service.controllers.signin`` imports from here; they
live in :mod:`idp_common.storage.repos.credentials`, the owner of those tables. Once the
sign-in controller imports them from there, this module goes."""

from idp_common.storage.repos.credentials import get_totp, set_password_hash, use_totp_step

__all__ = ["get_totp", "set_password_hash", "use_totp_step"]
