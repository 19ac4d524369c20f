"""Unit tests of idp_common.protocol.password_policy (NIST SP 800-63B §5.1.1.2 style)."""

from __future__ import annotations

import pytest

from idp_common.errors import InvalidArgument
from idp_common.protocol.password_policy import (
    MAX_LENGTH,
    check_password,
    common_passwords,
    is_common,
    password_problems,
)


def test_the_shipped_list_is_loaded_lower_case_without_comments() -> None:
    listed = common_passwords()
    assert len(listed) > 500
    assert "password" in listed and "qwerty" in listed
    assert all(word == word.lower() and not word.startswith("#") for word in listed)


@pytest.mark.parametrize(
    "password",
    [
        "password",
        "Password1",
        "PASSWORD123!",
        "p@ssw0rd",
        "P@ssw0rd2024!",
        "iloveyou!!",
        "Dragon2024",
        "qwertyuiop",
        "12345678",
        "1q2w3e4r5t",
        "aaaaaaaaaa",
        "abcdefghij",
        "87654321",
        "zxcvbnm123",
        "football#1",
    ],
)
def test_common_or_patterned_passwords_are_refused(password: str) -> None:
    assert password_problems(password) == ["is too common or too easy to guess; choose another"]


@pytest.mark.parametrize(
    "password",
    [
        "correct horse battery staple",
        "Tr0ub4dor&3x",
        "mauve-otter-47-lantern",
        "zq8#Lm2!vR",
        "пароль-из-девяти",
        "        x",  # spaces count; NIST allows them
    ],
)
def test_ordinary_passwords_are_accepted(password: str) -> None:
    assert password_problems(password) == []


def test_length_bounds() -> None:
    assert password_problems("a1b2c3d") == ["must be at least 8 characters long"]
    assert password_problems("x" * 7 + "é") != ["must be at least 8 characters long"]
    assert password_problems("ab" * (MAX_LENGTH // 2 + 1)) == [
        "must be at most 128 characters long"
    ]
    assert password_problems("a9#k" * (MAX_LENGTH // 4)) == []


def test_context_words_are_refused() -> None:
    context = ("Ada.Lovelace@example.com", "adalove")
    assert password_problems("my-ada.lovelace-pass", context=context) == [
        "must not contain your email address or username"
    ]
    assert password_problems("xxADALOVExx99", context=context) == [
        "must not contain your email address or username"
    ]
    assert password_problems("tall giraffe umbrella", context=context) == []
    assert password_problems("bob-is-cool-99", context=("bob@example.com",)) == []  # < 4 chars


def test_check_password_raises_naming_the_field() -> None:
    with pytest.raises(InvalidArgument) as caught:
        check_password("password1", field="newPassword")
    assert caught.value.code == "auth.password_policy"
    assert [e.field for e in caught.value.errors] == ["newPassword"]
    check_password("correct horse battery staple")


def test_is_common_ignores_case_and_surrounding_space() -> None:
    assert is_common("  LetMeIn  ")
    assert not is_common("letmein-to-the-orchard-garden")
