"""The rules idp_common.config checks, each problem named by its variable and all reported
together."""

from __future__ import annotations

import pytest

from idp_common.config import Settings, SettingsError, load_settings, validate
from libs.common.tests.unit.config.support import (
    only_problem,
    problems_of,
)


def test_all_problems_reported_together() -> None:
    env = {
        "SVC_API_PREFIX": "/x",
        "SVC_FORWARDED_ALLOW_IPS": "*",
        "SVC_ENV": "test",
        "SVC_TOKEN_PER_IP": "abc",
    }
    with pytest.raises(SettingsError) as caught:
        load_settings(env=env)
    problems = caught.value.problems
    assert len(problems) == 4, problems
    for name in env:
        named = [p for p in problems if p.startswith(name + ":")]
        assert len(named) == 1, (name, problems)
        assert name in str(caught.value)
    assert str(caught.value).count("\n  - ") == 4


def test_many_kinds_of_problem_reported_together() -> None:
    env = {
        "SVC_ISSUER": "not-a-url",
        "SVC_AUTH_UI_BASE_URL": "/auth",
        "SVC_ALLOWED_ADMIN_ORIGINS": "*",
        "SVC_S3_ENDPOINT_URL": "minio:9000",
        "SVC_DATABASE_URL": "mysql://db/idp",
        "SVC_REDIS_URL": "http://cache",
        "SVC_NATS_URL": "http://nats",
        "SVC_SMTP_URL": "mail.example.com",
        "SVC_RESET_PER_IP": "0",
        "SVC_DEPENDENCY_TIMEOUT": "-1",
        "SVC_NATS_PREFIX": "a.b",
    }
    problems = problems_of(env)
    assert len(problems) == len(env), problems
    for name in env:
        assert any(p.startswith(name + ":") for p in problems), (name, problems)


def test_a_setting_that_fails_to_parse_does_not_hide_other_rules() -> None:
    # SVC_ENV falls back to its default, the other rules are still checked.
    problems = problems_of({"SVC_ENV": "production", "SVC_ISSUER": "ftp://x"})
    assert [p.split(":", 1)[0] for p in problems] == ["SVC_ENV", "SVC_ISSUER"]


@pytest.mark.parametrize("prefix", ["/x", "/api", "/", "x"])
def test_non_empty_api_prefix_refused(prefix: str) -> None:
    problem = only_problem({"SVC_API_PREFIX": prefix})
    assert problem.startswith("SVC_API_PREFIX:")
    assert "empty" in problem


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("*", id="alone"),
        pytest.param(" * ", id="alone-spaces"),
        pytest.param("10.0.0.0/8,*", id="in-list-last"),
        pytest.param("*, 192.0.2.1", id="in-list-first"),
        pytest.param("0.0.0.0/0", id="all-ipv4"),
        pytest.param("::/0", id="all-ipv6"),
    ],
)
def test_trust_everybody_refused(raw: str) -> None:
    problem = only_problem({"SVC_FORWARDED_ALLOW_IPS": raw})
    assert problem.startswith("SVC_FORWARDED_ALLOW_IPS:")


@pytest.mark.parametrize("raw", ["proxy.local", "10.0.0.1/8", "10.0.0.0/33"])
def test_bad_trusted_network_refused(raw: str) -> None:
    problem = only_problem({"SVC_FORWARDED_ALLOW_IPS": "127.0.0.1," + raw})
    assert problem.startswith("SVC_FORWARDED_ALLOW_IPS:")
    assert repr(raw) in problem


def test_trusted_networks_accepted() -> None:
    settings = load_settings(env={"SVC_FORWARDED_ALLOW_IPS": "127.0.0.1, 10.0.0.0/8, ::1"})
    assert settings.forwarded_allow_ips == ("127.0.0.1", "10.0.0.0/8", "::1")


@pytest.mark.parametrize(
    "issuer",
    [
        pytest.param("", id="empty"),
        pytest.param("localhost:8080", id="no-scheme"),
        pytest.param("id.example.com", id="bare-host"),
        pytest.param("/issuer", id="relative"),
        pytest.param("ftp://id.example.com", id="ftp"),
        pytest.param("https://", id="no-host"),
        pytest.param("https://id.example.com/?tenant=1", id="query"),
        pytest.param("https://id.example.com/#top", id="fragment"),
        pytest.param("http://[::1", id="broken-ipv6-host"),
    ],
)
def test_bad_issuer_refused(issuer: str) -> None:
    problem = only_problem({"SVC_ISSUER": issuer})
    assert problem.startswith("SVC_ISSUER:")


@pytest.mark.parametrize(
    "issuer",
    [
        "http://localhost:8080",
        "https://id.example.com",
        "https://id.example.com/",
        "https://example.com/tenants/a",
        "http://[::1]:8080",
    ],
)
def test_good_issuer_accepted(issuer: str) -> None:
    assert load_settings(env={"SVC_ISSUER": issuer}).issuer == issuer


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("SVC_AUTH_UI_BASE_URL", "login.example.com"),
        ("SVC_AUTH_UI_BASE_URL", "http://[::1"),
        ("SVC_ALLOWED_ADMIN_ORIGINS", "*"),
        ("SVC_ALLOWED_ADMIN_ORIGINS", "https://a.example, a.example"),
        ("SVC_ALLOWED_ADMIN_ORIGINS", "https://a.example/console"),
        ("SVC_ALLOWED_ADMIN_ORIGINS", "https://user@a.example"),
        ("SVC_S3_ENDPOINT_URL", "s3.example.com"),
        ("SVC_DATABASE_URL", "sqlite:///idp.db"),
        ("SVC_REDIS_URL", "127.0.0.1:6379"),
        ("SVC_NATS_URL", "127.0.0.1:4222"),
        ("SVC_SMTP_URL", "http://mail"),
        ("SVC_NATS_PREFIX", "idp.events"),
        ("SVC_NATS_PREFIX", "idp events"),
        ("SVC_AVATAR_MAX_BYTES", "0"),
        ("SVC_ACCESS_TOKEN_TTL", "-600"),
        ("SVC_TOKEN_PER_IP", "0"),
        ("SVC_RESET_PER_IP", "-1"),
        ("SVC_AUTH_FAIL_PER_IP", "0"),
        ("SVC_DEPENDENCY_TIMEOUT", "0"),
        ("SVC_SHUTDOWN_DRAIN_SECONDS", "0"),
        ("SVC_SHUTDOWN_TIMEOUT_SECONDS", "-5"),
        ("SVC_DB_POOL_SIZE", "0"),
        ("SVC_DB_HOT_POOL_SIZE", "-1"),
        ("SVC_CLEANUP_BATCH_SIZE", "0"),
        ("SVC_CLEANUP_BATCH_PAUSE", "-0.1"),
        ("SVC_ACTIVITY_FLUSH_SECONDS", "0"),
        ("SVC_ACTIVITY_FLUSH_SECONDS", "7200"),
        ("SVC_SECRETS_KEY", "too-short"),
        ("SVC_FACE_THRESHOLD", "0.6"),  # docs/design.md: at most 0.5
        ("SVC_FACE_THRESHOLD", "0"),
        ("SVC_FACE_MIN_SIZE", "10"),
        ("SVC_FACE_WORKERS", "-1"),
        ("SVC_JWKS_CACHE_SECONDS", "-1"),
        ("SVC_KEY_RELOAD_SECONDS", "0"),
        ("SVC_LOG_FORMAT", "xml"),
    ],
)
def test_other_rules(name: str, raw: str) -> None:
    problem = only_problem({name: raw})
    assert problem.startswith(name + ":")


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("SVC_DATABASE_URL", "postgresql://idp@db/idp"),
        ("SVC_REDIS_URL", "unix:///run/redis.sock"),
        ("SVC_REDIS_URL", "redis://cache:6379/2"),
        ("SVC_NATS_URL", "nats://nats:4222"),
        ("SVC_SMTP_URL", "smtp://mail:25"),
        ("SVC_S3_ENDPOINT_URL", ""),
        ("SVC_NATS_PREFIX", "idp_t_0a1b"),
        ("SVC_JWKS_CACHE_SECONDS", "0"),
        ("SVC_KEY_RELOAD_SECONDS", "1"),
        ("SVC_LOG_FORMAT", "json"),
        ("SVC_LOG_FORMAT", "text"),
    ],
)
def test_other_valid_values(name: str, raw: str) -> None:
    load_settings(env={name: raw})


def test_validate_reports_rules_on_a_built_settings_object() -> None:
    settings = Settings(api_prefix="/x", forwarded_allow_ips=("*",), issuer="nope")
    names = [p.split(":", 1)[0] for p in validate(settings)]
    assert names == ["SVC_API_PREFIX", "SVC_FORWARDED_ALLOW_IPS", "SVC_ISSUER"]
