"""Sign-in outcomes as ``/metrics`` counts them (``idp_signin_attempts_total``), one per
step decided: a password then a one-time code is ``password``/``success`` and then
``totp``/``success``.

``method``: ``password``, ``totp``, ``recovery_code``, ``face``, ``passkey``. ``reason``:
``success``, ``throttled`` (429, the account or factor waits), ``wrong_code``, and the
refusals the audit log names in ``login.failed`` (``unknown_account``, ``disabled``,
``no_face_template``, ``face_mismatch``, ``unknown_passkey``, ``clone_suspected``, ...), with
``password`` read as ``bad_password``. Every value comes from
this code, never from a request: the label sets stay closed.
"""

from __future__ import annotations

from typing import Final

from idp_common.observability.metrics import count_limit_refusal, count_signin
from idp_common.protocol.constants import AMR_FACE
from idp_common.protocol.rfc6238_totp import recovery_code_digest

METHOD_PASSWORD: Final = "password"  # noqa: S105 (a method name, not a secret)
METHOD_TOTP: Final = "totp"
METHOD_RECOVERY_CODE: Final = "recovery_code"
METHOD_FACE: Final = "face"
METHOD_PASSKEY: Final = "passkey"
SUCCESS: Final = "success"
THROTTLED: Final = "throttled"
WRONG_CODE: Final = "wrong_code"
#: The audit log's refusal reasons that read differently as an outcome.
_RENAMED: Final = {"password": "bad_password"}
#: Per-account throttles, as ``idp_rate_limit_refusals_total`` names them (the per-address
#: limits are named by their bucket).
FIRST_FACTOR_LIMIT: Final = "signin_account"
SECOND_FACTOR_LIMIT: Final = "second_factor_"  # + the factor: code, face, passkey


def first_factor_method(amr: str) -> str:
    """``face``, ``passkey`` or ``password``: the ways of passing the first step (a
    refused passkey is named ``passkey`` in the audit detail's ``method``)."""
    if amr == AMR_FACE:
        return METHOD_FACE
    return METHOD_PASSKEY if amr == METHOD_PASSKEY else METHOD_PASSWORD


def code_method(code: str) -> str:
    """``recovery_code`` when ``code`` has a recovery code's shape, else ``totp``."""
    return METHOD_RECOVERY_CODE if recovery_code_digest(code) is not None else METHOD_TOTP


def factor_method(factor: str) -> str:
    """The method of a second-factor counter (``code`` counts one-time and recovery codes)."""
    if factor == METHOD_FACE:
        return METHOD_FACE
    return METHOD_PASSKEY if factor == METHOD_PASSKEY else METHOD_TOTP


def counted(method: str, reason: str) -> None:
    count_signin(method, _RENAMED.get(reason, reason))


def throttle_refused(factor: str | None) -> None:
    """A per-account throttle refused an attempt (``factor`` None: the first factor)."""
    count_limit_refusal(FIRST_FACTOR_LIMIT if factor is None else SECOND_FACTOR_LIMIT + factor)
