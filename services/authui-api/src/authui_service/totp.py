"""Spending a one-time recovery code at sign-in, as ``authui_service.controllers.signin``
imports it; it lives in :mod:`idp_common.storage.repos.credentials` (a code is spent at
most once). Once the sign-in controller imports it from there, this module goes."""

from idp_common.storage.repos.credentials import spend_recovery_code

__all__ = ["spend_recovery_code"]
