"""The security notices (docs/mail-templates.md ``credential_changed``, ``email_changed``):
every credential and change renders in every language with what changed, when (in the
language's words, in UTC) and from where, and the way to undo it; Arabic is right to left;
the name falls back to the address; values are escaped in HTML."""

from __future__ import annotations

from datetime import timedelta, timezone

import pytest

from idp_common.config import Settings
from idp_common.mail_templates import (
    ACCOUNT_SCREENS,
    render_mail,
    sample_values,
)
from idp_common.operations.credential_notice import (
    notice_kind,
    notice_values,
)
from idp_common.protocol.rfc4647_locales import SUPPORTED_LOCALES
from idp_common.storage.repos.users import UserRecord
from libs.common.tests.unit.mail_templates.support import (
    AT,
    CHANGES,
    CREDENTIALS,
    ISSUER,
    PERSON,
    Brand,
    notice,
    rendered,
)

# --- every credential, change and language -------------------------------------------------


@pytest.mark.parametrize("by_administrator", [False, True])
@pytest.mark.parametrize("credential", CREDENTIALS)
@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_every_notice_renders_in_every_language(
    locale: str, credential: str, by_administrator: bool
) -> None:
    for change in CHANGES:
        mail = rendered(
            locale, credential=credential, change=change, by_administrator=by_administrator
        )
        assert mail.locale == locale
        assert mail.subject.strip() and "\n" not in mail.subject
        assert f'<html lang="{locale}" dir="{"rtl" if locale == "ar" else "ltr"}">' in mail.html
        assert f"<title>{mail.subject}</title>" in mail.html
        for part in (mail.text, mail.html):
            assert "Alex Example" in part and "Example ID" in part
            assert "{{" not in part and "%(" not in part and "None" not in part
            assert "2026" in part and "UTC" in part
            assert f"{ISSUER}/console/{ACCOUNT_SCREENS[credential]}" in part
            # an administrator's own address and browser are not the person's business
            assert ("203.0.113.7" in part) is not by_administrator
            assert ("Firefox 128" in part) is not by_administrator
        # the way to undo it: the sign-in page's reset, unless an administrator made it
        assert (f"{ISSUER}/auth/reset" in mail.text) is not by_administrator


@pytest.mark.parametrize("credential", CREDENTIALS)
@pytest.mark.parametrize("locale", [x for x in SUPPORTED_LOCALES if x != "en"])
def test_no_english_left_in_a_translated_notice(locale: str, credential: str) -> None:
    for change in CHANGES:
        english = rendered("en", credential=credential, change=change)
        other = rendered(locale, credential=credential, change=change)
        assert other.subject != english.subject
        for line in english.text.splitlines():
            if len(line) > 12 and ISSUER not in line:
                assert line not in other.text, (locale, line)


@pytest.mark.parametrize("credential", [c for c in CREDENTIALS if c != "email"])
def test_each_change_is_named_apart(credential: str) -> None:
    subjects = {rendered("en", credential=credential, change=c).subject for c in CHANGES}
    assert len(subjects) == len(CHANGES)


@pytest.mark.parametrize(
    ("credential", "change", "subject"),
    [
        ("password", "changed", "The password of your account was changed"),
        ("email", "changed", "Your sign-in email address was changed"),
        ("authenticator", "added", "An authenticator app was added to your account"),
        ("recovery_codes", "changed", "The recovery codes of your account were replaced"),
        ("passkey", "removed", "A passkey was removed from your account"),
        ("face", "added", "Face sign-in was set up for your account"),
    ],
)
def test_the_notice_names_what_changed(credential: str, change: str, subject: str) -> None:
    mail = rendered("en", credential=credential, change=change)
    assert mail.subject == subject
    assert f"{subject}." in mail.text


# --- when, from where, how to undo ----------------------------------------------------------


#: The lines of the sample notice: when, the address, the browser.
WHEN_WHERE: dict[str, tuple[str, str, str]] = {
    "en": (
        "When: March 3, 2026 at 2:05\u202fPM UTC",
        "IP address: 203.0.113.7",
        "Device: Firefox 128 on Windows",
    ),
    "de": (
        "Wann: 3. März 2026 um 14:05 UTC",
        "IP-Adresse: 203.0.113.7",
        "Gerät: Firefox 128 unter Windows",
    ),
    "fr": (
        "Quand : 3 mars 2026 à 14:05 UTC",
        "Adresse IP : 203.0.113.7",
        "Appareil : Firefox 128 sous Windows",
    ),
    "es": (
        "Cuándo: 3 de marzo de 2026 a las 14:05 UTC",
        "Dirección IP: 203.0.113.7",
        "Dispositivo: Firefox 128 en Windows",
    ),
    "ar": (
        "الوقت: 3 مارس 2026 الساعة 2:05 م بالتوقيت العالمي المنسق (UTC)",
        "عنوان IP: 203.0.113.7",
        "الجهاز: Firefox 128 على Windows",
    ),
}


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_when_and_from_where_in_the_words_of_the_language(locale: str) -> None:
    mail = rendered(locale)
    for expected in WHEN_WHERE[locale]:
        assert expected in mail.text, (expected, mail.text)


def test_the_time_is_stated_in_utc_whatever_the_callers_zone() -> None:
    in_berlin = AT.astimezone(timezone(timedelta(hours=1)))
    assert "at 2:05\u202fPM UTC" in rendered("en", at=in_berlin).text
    assert "at 2:05\u202fPM UTC" in rendered("en", at=AT.replace(tzinfo=None)).text


def test_the_undo_addresses_follow_the_deployment() -> None:
    settings = Settings(issuer="https://login.example.org/", auth_ui_base_url="https://ui.example")
    mail = rendered("en", settings, credential="face", change="added")
    assert "https://ui.example/reset" in mail.text.split()
    assert "https://login.example.org/console/account/face" in mail.text.split()
    assert '<span dir="ltr" style="word-break:break-all;">https://ui.example/reset</span>' in (
        mail.html
    )


def test_the_addresses_are_written_out_not_behind_a_button() -> None:
    for locale in SUPPORTED_LOCALES:
        for kind in ("credential_changed", "email_changed"):
            html = render_mail(kind, locale, Brand(), sample_values(kind, ISSUER)).html
            assert "href" not in html and "<a " not in html


def test_an_administrators_change_says_so() -> None:
    mail = rendered("en", credential="passkey", change="removed", by_administrator=True)
    assert "An administrator of Example ID made this change." in mail.text
    assert "contact your administrator" in mail.text
    assert "IP address" not in mail.text and "Device" not in mail.text


def test_unknown_address_and_browser_leave_their_lines_out() -> None:
    mail = rendered("en", ip="unknown", user_agent=None)
    assert "IP address" not in mail.text and "Device" not in mail.text and "When:" in mail.text
    only_system = rendered("en", user_agent="SomeBot/1.0 (Linux)")
    assert "Device: Linux" in only_system.text


# --- email_changed: the old address ---------------------------------------------------------


def test_a_changed_address_told_to_the_old_one_is_email_changed() -> None:
    assert notice_kind(notice(credential="email", change="changed", to="old@example.com")) == (
        "email_changed"
    )
    assert notice_kind(notice(credential="email", change="changed")) == "credential_changed"
    assert notice_kind(notice(credential="password", to="x@example.com")) == "credential_changed"


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_the_email_changed_notice_says_when_where_and_how_to_undo(locale: str) -> None:
    mail = rendered(locale, credential="email", change="changed", to="old@example.com")
    assert mail.subject == rendered(locale, credential="email", change="changed").subject
    assert "203.0.113.7" in mail.text and "Firefox 128" in mail.text and "UTC" in mail.text
    assert f"{ISSUER}/console/account/email" in mail.text.split()
    # the reset link would go to the new address: not offered
    assert "/auth/reset" not in mail.text
    english = rendered("en", credential="email", change="changed", to="old@example.com")
    assert "this address no longer signs in" in english.text
    assert "contact your administrator at once" in english.text


def test_the_name_falls_back_to_the_address_the_notice_goes_to() -> None:
    nameless = UserRecord(
        **{**{f: getattr(PERSON, f) for f in PERSON.__struct_fields__}, "display_name": ""}
    )
    chosen = notice(credential="email", change="changed", to="old@example.com")
    assert notice_values(Settings(), chosen, nameless)["name"] == "old@example.com"
    assert notice_values(Settings(), notice(), nameless)["name"] == "alex@example.com"


# --- Arabic -----------------------------------------------------------------------------------


@pytest.mark.parametrize("credential", ["password", "email"])
def test_arabic_notices_are_right_to_left(credential: str) -> None:
    to = "old@example.com" if credential == "email" else None
    html = rendered("ar", credential=credential, change="changed", to=to).html
    assert '<html lang="ar" dir="rtl">' in html and "text-align:right" in html
    assert '<span dir="ltr"' in html  # the addresses stay left to right
    assert 'dir="rtl"' not in rendered("de", credential=credential, change="changed", to=to).html


# --- escaping ---------------------------------------------------------------------------------


def test_values_are_escaped_in_html() -> None:
    hostile = UserRecord(
        **{**{f: getattr(PERSON, f) for f in PERSON.__struct_fields__}, "display_name": "<b>x</b>"}
    )
    values = notice_values(Settings(issuer=ISSUER), notice(), hostile)
    mail = render_mail("credential_changed", "en", Brand(product_name="<i>P</i>"), values)
    assert "<b>x</b>" not in mail.html and "&lt;b&gt;x&lt;/b&gt;" in mail.html
    assert "<i>P</i>" not in mail.html and "&lt;i&gt;P&lt;/i&gt;" in mail.html
