"""How idp_common.config reads settings: types, defaults, lists, numbers, secrets from files."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from idp_common.config import Settings, load_settings
from libs.common.tests.unit.config.support import (
    EVERY_SETTING,
    only_problem,
    problems_of,
    var,
)


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
    if name == "dpop_nonce":  # the nonces' key derives from the secrets key
        env = {var("secrets_key"): EVERY_SETTING["secrets_key"][0]}
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
