"""Defaults that are valid, production warnings, and the values derived from settings."""

from __future__ import annotations

import logging

import pytest

from idp_common.config import Settings, load_settings, validate
from libs.common.tests.unit.config.support import (
    only_problem,
)


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
    assert settings.access_token_ttl == 600  # contract §8: ten minutes
    assert settings.token_per_ip == 120  # contract §8 TOKEN_PER_IP
    assert settings.reset_per_ip == 10  # contract §8 RESET_PER_IP


def test_production_with_plain_http_issuer_is_allowed_but_warned(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="idp_common.config"):
        settings = load_settings(env={"SVC_ENV": "prod", "SVC_ISSUER": "http://id.example.com"})
    assert settings.is_prod
    assert "SVC_ISSUER is not https in production" in caplog.text


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
