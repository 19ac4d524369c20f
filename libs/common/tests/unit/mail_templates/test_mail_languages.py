"""The language of a mail (docs/languages.md "Mails"): a security notice is in the saved
language, else the deployment's, and no request input reaches the rule; a mail asked for
ends in the deployment's language instead of English."""

from __future__ import annotations

import inspect

import pytest

from idp_common.mail_templates import mail_locale, notice_locale
from idp_common.operations.branded_mail import person_notice_locale
from idp_common.operations.credential_notice import CredentialNotice


@pytest.mark.parametrize(
    ("saved", "default", "expected"),
    [
        (None, "en", "en"),
        (None, "fr", "fr"),
        ("de", "fr", "de"),
        ("de-AT", "en", "de"),
        ("xx", "es", "es"),
        ("", "ar", "ar"),
    ],
)
def test_a_notice_is_in_the_saved_language_else_the_deployments(
    saved: str | None, default: str, expected: str
) -> None:
    assert notice_locale(saved, default) == expected


def test_the_request_has_no_say_in_a_notices_language() -> None:
    # neither the rule nor the lookup of the person's language takes the request's header
    for rule in (notice_locale, person_notice_locale):
        parameters = inspect.signature(rule).parameters
        assert not any("accept" in name or "request" in name for name in parameters), rule
    fields = CredentialNotice.__struct_fields__
    assert not any("accept" in name or "locale" in name for name in fields)


def test_a_mail_the_person_asked_for_ends_in_the_deployments_language() -> None:
    assert mail_locale(None, None, "fr") == "fr"
    assert mail_locale(None, "it, zh", "es") == "es"
    assert mail_locale(None, "ar", "fr") == "ar"
    assert mail_locale("de", "ar", "fr") == "de"
    assert mail_locale(None, None) == "en"
