"""Unit tests of idp_common.config (spec part 5 "Deployment settings", §9 rule 3).

Pure: every test passes its own mapping to ``load_settings(env=...)``; the process
environment is never read.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import msgspec
import pytest

from idp_common.config import Settings, SettingsError, load_settings, validate

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
    "secrets_key": ("A" * 43, "A" * 43),
    "access_token_ttl": ("300", 300),
    "token_per_ip": ("60", 60),
    "reset_per_ip": ("5", 5),
    "auth_fail_per_ip": ("30", 30),
    "dependency_timeout": ("2.5", 2.5),
    "cleanup_interval": ("60", 60),
    "recent_sign_in_max_age": ("120", 120),
    "face_threshold": ("0.45", 0.45),
    "face_min_size": ("64", 64),
    "face_workers": ("3", 3),
    "face_signin": ("second_factor", "second_factor"),
    "challenge_per_ip": ("30", 30),
    "face_per_ip": ("20", 20),
    "logout_confirmation": ("yes", True),
    "backchannel_allow_private": ("1", True),
    "session_cookie_host_prefix": ("true", True),
    "log_level": ("DEBUG", "DEBUG"),
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


# --- Parsing -------------------------------------------------------------------------------


def test_every_setting_is_covered_by_this_module() -> None:
    assert {f.name for f in msgspec.structs.fields(Settings)} == set(EVERY_SETTING)


def test_every_setting_is_parsed_with_its_type() -> None:
    env = {var(name): raw for name, (raw, _) in EVERY_SETTING.items()}
    settings = load_settings(env=env)
    for name, (_, expected) in EVERY_SETTING.items():
        value = getattr(settings, name)
        assert value == expected, name
        assert type(value) is type(expected), name


@pytest.mark.parametrize("name", sorted(EVERY_SETTING))
def test_each_setting_read_alone(name: str) -> None:
    raw, expected = EVERY_SETTING[name]
    # The __Host- cookie prefix is only valid in production.
    env = {"SVC_ENV": "prod"} if name == "session_cookie_host_prefix" else {}
    assert getattr(load_settings(env={**env, var(name): raw}), name) == expected


def test_unset_settings_keep_their_defaults_and_unknown_variables_are_ignored() -> None:
    settings = load_settings(env={"SVC_TOKEN_PER_IP": "7", "SVC_NOT_A_SETTING": "x", "HOME": "/"})
    assert settings == msgspec.structs.replace(Settings(), token_per_ip=7)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("", (), id="empty"),
        pytest.param(" , ,", (), id="only-separators"),
        pytest.param("https://a.example", ("https://a.example",), id="one"),
        pytest.param(
            "https://a.example,https://b.example",
            ("https://a.example", "https://b.example"),
            id="two",
        ),
        pytest.param(
            "  https://a.example ,, https://b.example ,",
            ("https://a.example", "https://b.example"),
            id="spaces-and-blanks",
        ),
    ],
)
def test_comma_lists(raw: str, expected: tuple[str, ...]) -> None:
    assert load_settings(env={"SVC_ALLOWED_ADMIN_ORIGINS": raw}).allowed_admin_origins == expected


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        pytest.param("token_per_ip", "abc", id="int-word"),
        pytest.param("access_token_ttl", "1.5", id="int-decimal"),
        pytest.param("avatar_max_bytes", "", id="int-empty"),
        pytest.param("dependency_timeout", "soon", id="float-word"),
    ],
)
def test_unparseable_number_names_variable_type_and_value(name: str, raw: str) -> None:
    problem = only_problem({var(name): raw})
    assert problem.startswith(var(name) + ":")
    assert "expected" in problem
    assert repr(raw) in problem


def test_numbers_tolerate_surrounding_spaces() -> None:
    settings = load_settings(env={"SVC_TOKEN_PER_IP": " 42 ", "SVC_DEPENDENCY_TIMEOUT": " 0.25"})
    assert (settings.token_per_ip, settings.dependency_timeout) == (42, 0.25)


# --- Secrets through *_FILE ----------------------------------------------------------------


def test_secret_read_from_file_and_stripped(tmp_path: Path) -> None:
    secret = tmp_path / "database_url"
    secret.write_text("postgresql://idp:s3cr3t@db:5432/idp\n")
    settings = load_settings(env={"SVC_DATABASE_URL_FILE": str(secret)})
    assert settings.database_url == "postgresql://idp:s3cr3t@db:5432/idp"


def test_file_value_is_parsed_like_the_plain_variable(tmp_path: Path) -> None:
    (tmp_path / "ttl").write_text("120\n")
    (tmp_path / "origins").write_text("https://a.example, https://b.example\n")
    settings = load_settings(
        env={
            "SVC_ACCESS_TOKEN_TTL_FILE": str(tmp_path / "ttl"),
            "SVC_ALLOWED_ADMIN_ORIGINS_FILE": str(tmp_path / "origins"),
        }
    )
    assert settings.access_token_ttl == 120
    assert settings.allowed_admin_origins == ("https://a.example", "https://b.example")


def test_bad_value_in_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "limit").write_text("many\n")
    problem = only_problem({"SVC_TOKEN_PER_IP_FILE": str(tmp_path / "limit")})
    assert problem.startswith("SVC_TOKEN_PER_IP:")
    assert "'many'" in problem


def test_unreadable_file_is_reported_by_its_variable(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    problems = problems_of(
        {
            "SVC_SMTP_URL_FILE": str(missing),
            "SVC_API_PREFIX": "/x",
        }
    )
    assert len(problems) == 2, problems
    assert problems[0].startswith("SVC_SMTP_URL_FILE:")
    assert str(missing) in problems[0]
    assert problems[1].startswith("SVC_API_PREFIX:")


def test_file_content_never_appears_in_a_parse_problem_of_another_setting(tmp_path: Path) -> None:
    (tmp_path / "db").write_text("postgresql://idp:hunter2-secret@db/idp")
    problems = problems_of(
        {
            "SVC_DATABASE_URL_FILE": str(tmp_path / "db"),
            "SVC_TOKEN_PER_IP": "abc",
        }
    )
    assert all("hunter2-secret" not in p for p in problems)


# --- All problems in one error -------------------------------------------------------------


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


# --- Individual rules ----------------------------------------------------------------------


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
        ("SVC_SECRETS_KEY", "too-short"),
        ("SVC_FACE_THRESHOLD", "0.6"),  # DESIGN.md: at most 0.5
        ("SVC_FACE_THRESHOLD", "0"),
        ("SVC_FACE_MIN_SIZE", "10"),
        ("SVC_FACE_WORKERS", "-1"),
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
    ],
)
def test_other_valid_values(name: str, raw: str) -> None:
    load_settings(env={name: raw})


def test_validate_reports_rules_on_a_built_settings_object() -> None:
    settings = Settings(api_prefix="/x", forwarded_allow_ips=("*",), issuer="nope")
    names = [p.split(":", 1)[0] for p in validate(settings)]
    assert names == ["SVC_API_PREFIX", "SVC_FORWARDED_ALLOW_IPS", "SVC_ISSUER"]


# --- Defaults ------------------------------------------------------------------------------


def test_defaults_are_valid() -> None:
    assert validate(Settings()) == []
    settings = load_settings(env={})
    assert settings == Settings()
    assert settings.env == "dev"
    assert not settings.is_prod
    assert settings.api_prefix == ""
    assert settings.forwarded_allow_ips == ()  # nobody trusted by default
    assert settings.allowed_admin_origins == ()
    assert settings.s3_endpoint_url == ""
    assert settings.access_token_ttl == 600  # spec part 8: ten minutes
    assert settings.token_per_ip == 120  # spec part 8 TOKEN_PER_IP
    assert settings.reset_per_ip == 10  # spec part 8 RESET_PER_IP


def test_production_with_plain_http_issuer_is_allowed_but_warned(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="idp_common.config"):
        settings = load_settings(env={"SVC_ENV": "prod", "SVC_ISSUER": "http://id.example.com"})
    assert settings.is_prod
    assert "SVC_ISSUER is not https in production" in caplog.text


# --- Derived values ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("issuer", "audience"),
    [
        ("https://id.example.com", "https://id.example.com/api"),
        ("https://id.example.com/", "https://id.example.com/api"),
        ("https://example.com/tenants/a/", "https://example.com/tenants/a/api"),
        ("http://localhost:8080", "http://localhost:8080/api"),
    ],
)
def test_api_audience(issuer: str, audience: str) -> None:
    settings = load_settings(env={"SVC_ISSUER": issuer})
    assert settings.api_audience == audience
    assert settings.issuer == issuer  # the issuer itself is kept character for character


@pytest.mark.parametrize(
    ("env", "url"),
    [
        ({}, "http://localhost:8080/auth"),
        ({"SVC_ISSUER": "https://id.example.com/"}, "https://id.example.com/auth"),
        (
            {
                "SVC_ISSUER": "https://id.example.com",
                "SVC_AUTH_UI_BASE_URL": "https://login.example.com/ui/",
            },
            "https://login.example.com/ui",
        ),
    ],
)
def test_auth_ui_url(env: dict[str, str], url: str) -> None:
    assert load_settings(env=env).auth_ui_url == url


@pytest.mark.parametrize(
    ("prefix", "stream"),
    [("idp", "IDP_EVENTS"), ("my-idp", "MY_IDP_EVENTS"), ("idp_t_0a1b", "IDP_T_0A1B_EVENTS")],
)
def test_nats_stream(prefix: str, stream: str) -> None:
    assert load_settings(env={"SVC_NATS_PREFIX": prefix}).nats_stream == stream


def test_nats_stream_default() -> None:
    assert load_settings(env={}).nats_stream == "IDP_EVENTS"


def test_the_recent_sign_in_window_is_300_seconds_unless_set_and_must_be_positive() -> None:
    assert Settings().recent_sign_in_max_age == 300
    assert load_settings(env={"SVC_RECENT_SIGN_IN_MAX_AGE": "20"}).recent_sign_in_max_age == 20
    assert only_problem({"SVC_RECENT_SIGN_IN_MAX_AGE": "0"}).startswith(
        "SVC_RECENT_SIGN_IN_MAX_AGE: must be positive"
    )


@pytest.mark.parametrize(
    ("raw", "value"), [("true", True), ("On", True), ("0", False), ("no", False)]
)
def test_switches_read_the_usual_spellings(raw: str, value: bool) -> None:
    assert load_settings(env={"SVC_LOGOUT_CONFIRMATION": raw}).logout_confirmation is value


def test_a_switch_with_another_word_is_a_problem() -> None:
    problem = only_problem({"SVC_BACKCHANNEL_ALLOW_PRIVATE": "sometimes"})
    assert problem == "SVC_BACKCHANNEL_ALLOW_PRIVATE: expected bool, got 'sometimes'"


def test_face_signin_names_its_modes() -> None:
    problem = only_problem({"SVC_FACE_SIGNIN": "always"})
    assert problem == "SVC_FACE_SIGNIN: must be one of first_factor, second_factor, off"


def test_the_host_prefix_needs_production() -> None:
    assert only_problem({"SVC_SESSION_COOKIE_HOST_PREFIX": "true"}).startswith(
        "SVC_SESSION_COOKIE_HOST_PREFIX: needs SVC_ENV=prod"
    )
    prod = load_settings(env={"SVC_ENV": "prod", "SVC_SESSION_COOKIE_HOST_PREFIX": "true"})
    assert prod.session_cookie_name == "__Host-svc_session"
    assert load_settings(env={}).session_cookie_name == "svc_session"
