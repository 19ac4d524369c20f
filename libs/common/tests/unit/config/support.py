"""Helpers shared by the settings tests: every setting with a sample value, and the problems
a set of variables produces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from idp_common.config import SettingsError, load_settings

ATTESTATION_ROOT = Path(__file__).with_name("attestation-root.pem")

# One non-default, valid value for every setting, and what it parses to.
EVERY_SETTING: dict[str, tuple[str, Any]] = {
    "env": ("prod", "prod"),
    "issuer": ("https://id.example.com/", "https://id.example.com/"),
    "auth_ui_base_url": ("https://login.example.com/ui/", "https://login.example.com/ui/"),
    "allowed_admin_origins": (
        " https://a.example.com , https://b.example.com,,",
        ("https://a.example.com", "https://b.example.com"),
    ),
    "forwarded_allow_ips": (
        "10.0.0.0/8, 192.0.2.7 ,fd00::/8",
        ("10.0.0.0/8", "192.0.2.7", "fd00::/8"),
    ),
    "api_prefix": ("", ""),
    "s3_endpoint_url": ("http://127.0.0.1:9000", "http://127.0.0.1:9000"),
    "s3_bucket": ("photos", "photos"),
    "avatar_max_bytes": ("3000000", 3_000_000),
    "database_url": (
        "postgresql+asyncpg://idp:secret@db.internal:5432/idp",
        "postgresql+asyncpg://idp:secret@db.internal:5432/idp",
    ),
    "redis_url": ("rediss://cache.internal:6380/1", "rediss://cache.internal:6380/1"),
    "redis_prefix": ("tenant1:", "tenant1:"),
    "nats_url": ("tls://nats.internal:4222", "tls://nats.internal:4222"),
    "nats_prefix": ("my-idp", "my-idp"),
    "smtp_url": ("smtps://mail.internal:465", "smtps://mail.internal:465"),
    "smtp_from": ("Example <no-reply@example.com>", "Example <no-reply@example.com>"),
    "key_dir": ("/etc/idp/keys", "/etc/idp/keys"),
    "jwks_cache_seconds": ("600", 600),
    "jwks_proxy_seconds": ("30", 30),
    "key_reload_seconds": ("5", 5),
    "lean_routes": ("false", False),
    "secrets_key": ("A" * 43, "A" * 43),
    "dpop_nonce": ("true", True),
    "access_token_ttl": ("300", 300),
    "default_locale": ("de", "de"),
    "token_per_ip": ("60", 60),
    "reset_per_ip": ("5", 5),
    "auth_fail_per_ip": ("30", 30),
    "dependency_timeout": ("2.5", 2.5),
    "db_pool_size": ("4", 4),
    "db_hot_pool_size": ("6", 6),
    "shutdown_drain_seconds": ("2.5", 2.5),
    "shutdown_timeout_seconds": ("30", 30.0),
    "metrics_enabled": ("false", False),
    "metrics_dir": ("/run/idp-metrics", "/run/idp-metrics"),
    "cleanup_interval": ("60", 60),
    "cleanup_batch_size": ("500", 500),
    "cleanup_batch_pause": ("0.02", 0.02),
    "activity_flush_seconds": ("2.5", 2.5),
    "recent_sign_in_max_age": ("120", 120),
    "face_threshold": ("0.45", 0.45),
    "face_min_size": ("64", 64),
    "face_workers": ("3", 3),
    "face_signin": ("second_factor", "second_factor"),
    "challenge_per_ip": ("30", 30),
    "face_per_ip": ("20", 20),
    "device_code_ttl": ("120", 120),
    "device_poll_interval": ("2", 2),
    "user_code_failures_per_ip": ("7", 7),
    "logout_confirmation": ("yes", True),
    "backchannel_allow_private": ("1", True),
    "par_request_ttl": ("30", 30),
    "client_jwks_allow_private": ("true", True),
    "webhook_allow_private": ("true", True),
    "webhook_retry_base_seconds": ("0.5", 0.5),
    "webhook_retry_max_delay_seconds": ("60", 60.0),
    "webhook_retry_for_seconds": ("600", 600.0),
    "passkey_challenge_ttl": ("90", 90),
    "passkey_allowed_aaguids": (
        "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4, 08987058-cadc-4b81-b6e1-30de50dcbe96",
        ("ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4", "08987058-cadc-4b81-b6e1-30de50dcbe96"),
    ),
    "passkey_attestation_roots": (str(ATTESTATION_ROOT), str(ATTESTATION_ROOT)),
    "session_cookie_host_prefix": ("true", True),
    "log_level": ("DEBUG", "DEBUG"),
    "log_format": ("text", "text"),
}


def var(field: str) -> str:
    return "SVC_" + field.upper()


def problems_of(env: dict[str, str]) -> list[str]:
    with pytest.raises(SettingsError) as caught:
        load_settings(env=env)
    return caught.value.problems


def only_problem(env: dict[str, str]) -> str:
    problems = problems_of(env)
    assert len(problems) == 1, problems
    return problems[0]
