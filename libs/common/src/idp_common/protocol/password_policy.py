"""Password policy in the manner of NIST SP 800-63B §5.1.1.2 (docs/design.md §2 "Sign-in").

- Length 8 to 128 characters (Unicode code points; every character is allowed, spaces
  included). No composition rules (no "one digit, one symbol"), no periodic expiry.
- Refused: very common passwords. The list is ``idp_common/data/common_passwords.txt``,
  shipped in the repository (no extra package); a password is also refused when it is a
  listed word decorated in the usual ways: trailing digits or symbols
  (``dragon2024!``), common letter-for-symbol swaps (``p@ssw0rd``), or both.
- Refused: one repeated character (``aaaaaaaa``), a run of a keyboard row or of the
  digits (``12345678``, ``qwertyui``), and context-specific words (§5.1.1.2: "the
  username"): the person's email address, its local part and their username, when
  they are four characters or longer and appear in the password.

Pure: :func:`password_problems` takes values and returns the reasons, one sentence each;
:func:`check_password` raises :class:`~idp_common.errors.InvalidArgument` naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Final

from idp_common.errors import FieldError, InvalidArgument

__all__ = ["MAX_LENGTH", "MIN_LENGTH", "check_password", "is_common", "password_problems"]

MIN_LENGTH: Final = 8
MAX_LENGTH: Final = 128
_TRAILING: Final = re.compile(r"[\d\W_]+$")
_LEET: Final = str.maketrans({"@": "a", "4": "a", "0": "o", "1": "i", "3": "e", "$": "s",
                              "5": "s", "7": "t", "!": "i", "|": "l", "+": "t"})  # fmt: skip
_RUNS: Final = (
    "0123456789",
    "9876543210",
    "abcdefghijklmnopqrstuvwxyz",
    "qwertyuiop",
    "asdfghjkl",
    "zxcvbnm",
    "poiuytrewq",
    "lkjhgfdsa",
    "mnbvcxz",
)


@cache
def common_passwords() -> frozenset[str]:
    text = resources.files("idp_common.data").joinpath("common_passwords.txt").read_text("utf-8")
    return frozenset(
        line.strip().lower() for line in text.splitlines() if line.strip() and line[0] != "#"
    )


def _candidates(password: str) -> set[str]:
    lowered = password.lower().strip()
    forms = {lowered, _TRAILING.sub("", lowered)}
    forms |= {form.translate(_LEET) for form in list(forms)}
    forms |= {_TRAILING.sub("", form) for form in list(forms)}
    return {form for form in forms if form}


def is_common(password: str) -> bool:
    """True for a listed password, or a listed one with the usual decorations."""
    listed = common_passwords()
    return any(form in listed for form in _candidates(password))


def _is_pattern(password: str) -> bool:
    lowered = password.lower()
    if len(set(lowered)) == 1:
        return True
    return any(lowered in run * 3 for run in _RUNS)


def _context_words(context: Iterable[str | None]) -> set[str]:
    words: set[str] = set()
    for value in context:
        if not value:
            continue
        lowered = value.strip().lower()
        words.add(lowered)
        if "@" in lowered:
            words.add(lowered.split("@", 1)[0])
    return {word for word in words if len(word) >= 4}


def password_problems(password: str, *, context: Iterable[str | None] = ()) -> list[str]:
    """Why ``password`` is refused; empty when it is acceptable.

    ``context``: the person's email address and username (and any other word that
    must not be the password).
    """
    if len(password) < MIN_LENGTH:
        return [f"must be at least {MIN_LENGTH} characters long"]
    if len(password) > MAX_LENGTH:
        return [f"must be at most {MAX_LENGTH} characters long"]
    problems: list[str] = []
    if is_common(password) or _is_pattern(password):
        problems.append("is too common or too easy to guess; choose another")
    lowered = password.lower()
    if any(word in lowered for word in _context_words(context)):
        problems.append("must not contain your email address or username")
    return problems


def check_password(
    password: str, *, context: Iterable[str | None] = (), field: str = "password"
) -> None:
    """Raise InvalidArgument (422, ``errors[].field`` = ``field``) when refused."""
    problems = password_problems(password, context=context)
    if problems:
        raise InvalidArgument(
            f"{field} " + "; ".join(problems),
            code="auth.password_policy",
            errors=[FieldError(field, problem) for problem in problems],
        )
