"""``SVC_DEFAULT_LOCALE``: the deployment's language, one of the supported tags, checked at
start-up with every other setting (docs/configuration.md)."""

from __future__ import annotations

import pytest

from idp_common.config import load_settings
from idp_common.protocol.rfc4647_locales import SUPPORTED_LOCALES
from libs.common.tests.unit.config.support import only_problem, problems_of


def test_english_by_default() -> None:
    assert load_settings(env={}).default_locale == "en"


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_every_supported_language_is_accepted(locale: str) -> None:
    assert load_settings(env={"SVC_DEFAULT_LOCALE": locale}).default_locale == locale


@pytest.mark.parametrize("value", ["it", "de-AT", "DE", "", " en", "*", "en,de"])
def test_anything_else_refuses_to_start_naming_the_variable(value: str) -> None:
    problem = only_problem({"SVC_DEFAULT_LOCALE": value})
    assert problem == "SVC_DEFAULT_LOCALE: must be one of en, de, fr, es, ar"


def test_reported_together_with_the_other_problems() -> None:
    problems = problems_of({"SVC_DEFAULT_LOCALE": "it", "SVC_LOG_FORMAT": "xml"})
    assert sorted(p.split(":", 1)[0] for p in problems) == [
        "SVC_DEFAULT_LOCALE",
        "SVC_LOG_FORMAT",
    ]
