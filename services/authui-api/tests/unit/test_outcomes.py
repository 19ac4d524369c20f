"""Sign-in outcome labels (``authui_service.outcomes``): closed sets, whatever is typed."""

from __future__ import annotations

import pytest

from authui_service import outcomes
from idp_common.observability import metrics
from idp_common.protocol.rfc6238_totp import new_recovery_codes


@pytest.mark.parametrize(
    ("code", "method"),
    [
        ("123456", "totp"),
        ("12345678", "totp"),
        ("not a code", "totp"),
        ("", "totp"),
    ],
)
def test_a_code_that_cannot_be_a_recovery_code_is_a_totp_attempt(code: str, method: str) -> None:
    assert outcomes.code_method(code) == method


def test_a_recovery_code_shape_is_a_recovery_code_attempt() -> None:
    for code in new_recovery_codes():
        assert outcomes.code_method(code) == "recovery_code"


@pytest.mark.parametrize(
    ("amr", "method"),
    [("pwd", "password"), ("face", "face"), ("passkey", "passkey"), ("", "password")],
)
def test_first_factor_method(amr: str, method: str) -> None:
    assert outcomes.first_factor_method(amr) == method


@pytest.mark.parametrize(
    ("factor", "method"),
    [("code", "totp"), ("face", "face"), ("passkey", "passkey"), ("other", "totp")],
)
def test_factor_method(factor: str, method: str) -> None:
    assert outcomes.factor_method(factor) == method


def test_the_audit_reason_password_reads_bad_password() -> None:
    metrics.configure(enabled=True, service="authui-api")
    try:
        key = {"service": "authui-api", "method": "password", "reason": "bad_password"}
        before = metrics.REGISTRY.get_sample_value("idp_signin_attempts_total", key) or 0
        outcomes.counted("password", "password")
        metrics.flush()  # counts are written out every second in a service
        assert metrics.REGISTRY.get_sample_value("idp_signin_attempts_total", key) == before + 1
        outcomes.throttle_refused(None)
        outcomes.throttle_refused("code")
        metrics.flush()
        for limit in ("signin_account", "second_factor_code"):
            labels = {"service": "authui-api", "limit": limit}
            assert metrics.REGISTRY.get_sample_value("idp_rate_limit_refusals_total", labels)
    finally:
        metrics.configure(enabled=False, service="")
