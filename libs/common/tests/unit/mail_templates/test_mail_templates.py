"""The mail templates (docs/mail-templates.md): every kind renders in every
language, the catalogues translate every English text, plural and duration rules come from
CLDR through Babel, values are escaped in HTML, Arabic is right to left."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, replace
from email.message import EmailMessage
from importlib import resources
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po
from jinja2.ext import babel_extract

from idp_common.mail_templates import MAIL_KINDS, mail_locale, render_mail, sample_values
from idp_common.mail_templates.catalogues import SOURCE_LOCALE, read_catalogue
from idp_common.operations.mail import build_message
from idp_common.protocol.rfc4647_locales import SUPPORTED_LOCALES

ISSUER = "https://id.example"
TRANSLATED = [locale for locale in SUPPORTED_LOCALES if locale != SOURCE_LOCALE]
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@dataclass(frozen=True)
class Brand:
    product_name: str = "Example ID"
    logo_uri: str | None = f"{ISSUER}/media/brand/brand-abc.png"
    primary_color: str | None = "#0B5FFF"


BRAND = Brand()


def render(kind: str, locale: str, brand: Brand = BRAND, **values: Any) -> Any:
    return render_mail(kind, locale, brand, {**sample_values(kind, ISSUER), **values})


# --- every kind in every language -----------------------------------------------------------


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
@pytest.mark.parametrize("kind", sorted(MAIL_KINDS))
def test_every_kind_renders_in_every_language(kind: str, locale: str) -> None:
    mail = render(kind, locale)
    assert mail.locale == locale
    assert mail.subject.strip() and "\n" not in mail.subject
    assert "Alex Example" in mail.text and "Example ID" in mail.text
    assert f'<html lang="{locale}" dir="{"rtl" if locale == "ar" else "ltr"}">' in mail.html
    assert f"<title>{mail.subject}</title>" in mail.html
    assert "Alex Example" in mail.html and "#0b5fff" in mail.html
    assert f'src="{ISSUER}/media/brand/brand-abc.png"' in mail.html
    assert "{{" not in mail.text + mail.html and "%(" not in mail.text + mail.html


@pytest.mark.parametrize("kind", sorted(MAIL_KINDS))
@pytest.mark.parametrize("locale", TRANSLATED)
def test_no_english_left_in_a_translated_mail(kind: str, locale: str) -> None:
    english, other = render(kind, "en"), render(kind, locale)
    assert other.subject != english.subject
    for line in english.text.splitlines():
        if len(line) > 12 and ISSUER not in line:
            assert line not in other.text, (locale, line)


def test_arabic_is_right_to_left() -> None:
    html = render("password_reset", "ar").html
    assert 'dir="rtl"' in html and "text-align:right" in html
    assert 'dir="ltr"' in html  # the link itself stays left to right
    assert 'dir="rtl"' not in render("password_reset", "de").html


def test_an_unsupported_language_is_english() -> None:
    assert render("email_changed", "xx").locale == "en"
    assert render("email_changed", "de-AT").locale == "de"


def test_an_unknown_kind_or_a_missing_value_is_an_error() -> None:
    with pytest.raises(KeyError):
        render_mail("welcome", "en", BRAND, {})
    with pytest.raises(Exception, match="link"):
        render_mail("password_reset", "en", BRAND, {"name": "A", "valid_seconds": 60})


# --- the texts ------------------------------------------------------------------------------


def test_the_reset_mail() -> None:
    link = f"{ISSUER}/auth/reset?token=abc"
    mail = render("password_reset", "de", link=link, valid_seconds=1800)
    assert mail.subject == "Neues Passwort festlegen"
    assert "innerhalb von 30 Minuten" in mail.text
    assert link in mail.text.split()  # on its own, for mail clients that only link words
    assert f'href="{link}"' in mail.html
    assert "in 30 minutes" not in mail.text
    assert "within 30 minutes" in render("password_reset", "en").text
    assert "30 minutos" in render("password_reset", "es").text


def test_the_lock_notice_has_no_link() -> None:
    for locale in SUPPORTED_LOCALES:
        for factor in ("code", "passkey", "face"):
            mail = render("factor_locked", locale, factor=factor)
            assert "href" not in mail.html and "<a " not in mail.html
            assert "http" not in mail.text


@pytest.mark.parametrize(
    ("locale", "failures", "delay", "expected"),
    [
        ("en", 1, 900, ["1 wrong authenticator code in a row", "paused for 15 minutes"]),
        ("en", 5, 30, ["5 wrong authenticator codes in a row", "paused for 30 seconds"]),
        ("de", 5, 900, ["5 falsche Authenticator-Codes", "für 15 Minuten pausiert"]),
        ("de", 1, 60, ["1 falschen Authenticator-Code", "für 1 Minute pausiert"]),
        ("fr", 1, 900, ["1 code d\u2019authentification erroné.", "pendant 15 minutes"]),
        ("fr", 7, 900, ["7 codes d\u2019authentification erronés"]),
        ("es", 7, 1800, ["7 códigos de autenticación incorrectos", "durante 30 minutos"]),
        ("ar", 5, 900, ["5 رموز مصادقة خاطئة"]),  # CLDR "few" (3-10)
        ("ar", 11, 900, ["11 رمزًا خاطئًا"]),  # CLDR "many" (11-99)
        ("ar", 100, 900, ["100 رمز مصادقة خاطئ"]),  # CLDR "other"
        ("de", 1234, 900, ["1.234 falsche"]),  # numbers formatted for the language
        ("en", 1234, 900, ["1,234 wrong"]),
    ],
)
def test_plurals_numbers_and_durations_follow_the_language(
    locale: str, failures: int, delay: int, expected: list[str]
) -> None:
    mail = render("factor_locked", locale, failures=failures, delay_seconds=delay)
    for part in expected:
        assert part in mail.text, (part, mail.text)


def test_the_lock_notice_says_what_happened_per_factor() -> None:
    code = render("factor_locked", "en", factor="code").text
    assert "entered your password correctly" in code and "change it now" in code
    passkey = render("factor_locked", "en", factor="passkey").text
    assert "passkey" in passkey and "cannot be guessed" in passkey
    face = render("factor_locked", "en", factor="face").text
    assert "photo of you" in face and "change it now" not in face


def test_the_email_changed_notice() -> None:
    mail = render("email_changed", "fr", site="https://id.example")
    assert mail.subject == "Votre adresse e-mail de connexion a été modifiée"
    assert "Example ID sur https://id.example" in mail.text


# --- escaping and the brand -----------------------------------------------------------------


def test_html_escapes_values_and_text_keeps_them() -> None:
    hostile = '<script>alert("x")</script> & Co'
    brand = replace(BRAND, product_name="<b>Evil</b>")
    mail = render("email_changed", "en", brand, name=hostile)
    assert "<script>" not in mail.html and "<b>Evil</b>" not in mail.html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; Co" in mail.html
    assert "&lt;b&gt;Evil&lt;/b&gt;" in mail.html
    assert hostile in mail.text and "<b>Evil</b>" in mail.text


def test_a_link_value_cannot_break_out_of_its_attribute() -> None:
    mail = render("password_reset", "en", link='https://x.example/" onmouseover="alert(1)')
    assert 'onmouseover="alert(1)"' not in mail.html
    assert "&#34; onmouseover=&#34;alert(1)" in mail.html


def test_a_brand_without_logo_or_colour() -> None:
    mail = render("password_reset", "en", Brand(logo_uri=None, primary_color=None))
    assert "<img" not in mail.html and "Example ID</span>" in mail.html
    assert "#1d4ed8" in mail.html


def test_a_colour_or_logo_of_another_shape_is_not_used() -> None:
    odd = Brand(logo_uri="javascript:alert(1)", primary_color="red;background:url(x)")
    html = render("password_reset", "en", odd).html
    assert "javascript:" not in html and "url(x)" not in html
    assert "#1d4ed8" in html


# --- the catalogues -------------------------------------------------------------------------


def template_msgids() -> set[str | tuple[str, str]]:
    """Every text the templates ask the catalogue for (Jinja2's Babel extractor)."""
    found: set[str | tuple[str, str]] = set()
    folder = resources.files("idp_common.mail_templates").joinpath("templates")
    for entry in folder.iterdir():
        source = io.BytesIO(entry.read_bytes())
        options = {"extensions": "jinja2.ext.i18n", "trim_blocks": "true"}
        for _, function, message, _ in babel_extract(source, ("_", "ngettext"), [], options):
            # keyword arguments (the values) show as None
            texts = [message] if isinstance(message, str) else [m for m in message or () if m]
            found.add(texts[0] if function == "_" else (texts[0], texts[1]))
    return found


def catalogue_msgids(catalogue: Catalog) -> set[str | tuple[str, str]]:
    return {
        message.id if isinstance(message.id, str) else (message.id[0], message.id[1])
        for message in catalogue
        if message.id
    }


def untranslated(source: Catalog, translation: Catalog) -> list[str]:
    """What ``translation`` lacks of ``source``: a missing, fuzzy or empty entry, a plural
    with the wrong number of forms, or a placeholder that is not the English one."""
    problems = []
    for message in source:
        if not message.id:
            continue
        english = message.id if isinstance(message.id, str) else message.id[0]
        other = translation.get(message.id)
        if other is None or other.fuzzy:
            problems.append(f"missing: {english}")
            continue
        forms = [other.string] if isinstance(other.string, str) else list(other.string or ())
        if isinstance(message.id, tuple) and len(forms) != translation.num_plurals:
            problems.append(f"needs {translation.num_plurals} plural forms: {english}")
        wanted = set(
            PLACEHOLDER.findall(
                " ".join([message.id] if isinstance(message.id, str) else message.id)
            )
        )
        for form in forms:
            if not form.strip():
                problems.append(f"empty: {english}")
            elif not set(PLACEHOLDER.findall(form)) <= wanted or (
                isinstance(message.id, str) and set(PLACEHOLDER.findall(form)) != wanted
            ):
                problems.append(f"placeholders differ: {english}")
    return problems


def test_english_has_exactly_the_texts_of_the_templates() -> None:
    assert catalogue_msgids(read_catalogue(SOURCE_LOCALE)) == template_msgids()


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_catalogue_translates_every_english_text(locale: str) -> None:
    source, translation = read_catalogue(SOURCE_LOCALE), read_catalogue(locale)
    assert untranslated(source, translation) == []
    assert catalogue_msgids(translation) == catalogue_msgids(source), "no stale texts"


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_plural_rules_are_babels_cldr_rules(locale: str) -> None:
    catalogue = read_catalogue(locale)
    assert catalogue.plural_forms == get_plural(locale).plural_forms
    assert catalogue.num_plurals == {"en": 2, "de": 2, "fr": 3, "es": 3, "ar": 6}[locale]


def _po(body: str, language: str = "de") -> Catalog:
    header = (
        'msgid ""\nmsgstr ""\n'
        f'"Language: {language}\\n"\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n'
        '"Content-Type: text/plain; charset=utf-8\\n"\n\n'
    )
    return read_po(io.BytesIO((header + body).encode()), locale=language)


def test_the_catalogue_check_fails_for_a_missing_an_empty_or_a_fuzzy_text() -> None:
    source = _po(
        'msgid "Hello %(name)s,"\nmsgstr ""\n\nmsgid "Bye"\nmsgstr ""\n\n'
        'msgid "%(num)s code"\nmsgid_plural "%(num)s codes"\nmsgstr[0] ""\nmsgstr[1] ""\n',
        "en",
    )
    complete = _po(
        'msgid "Hello %(name)s,"\nmsgstr "Hallo %(name)s,"\n\nmsgid "Bye"\nmsgstr "Tschüss"\n\n'
        'msgid "%(num)s code"\nmsgid_plural "%(num)s codes"\n'
        'msgstr[0] "%(num)s Code"\nmsgstr[1] "%(num)s Codes"\n'
    )
    assert untranslated(source, complete) == []
    missing = _po('msgid "Hello %(name)s,"\nmsgstr "Hallo %(name)s,"\n')
    assert untranslated(source, missing) == ["missing: Bye", "missing: %(num)s code"]
    empty = _po(
        'msgid "Hello %(name)s,"\nmsgstr ""\n\nmsgid "Bye"\nmsgstr "Tschüss"\n\n'
        'msgid "%(num)s code"\nmsgid_plural "%(num)s codes"\n'
        'msgstr[0] "%(num)s Code"\nmsgstr[1] ""\n'
    )
    assert untranslated(source, empty) == ["empty: Hello %(name)s,", "empty: %(num)s code"]
    fuzzy = _po('#, fuzzy\nmsgid "Bye"\nmsgstr "Tschüss"\n')
    assert "missing: Bye" in untranslated(source, fuzzy)
    renamed = _po('msgid "Hello %(name)s,"\nmsgstr "Hallo %(nom)s,"\n')
    assert "placeholders differ: Hello %(name)s," in untranslated(source, renamed)


# --- language of a mail, and the message ----------------------------------------------------


def test_the_language_of_a_mail() -> None:
    assert mail_locale("fr", "de-DE,de;q=0.9") == "fr"
    assert mail_locale(None, "de-DE,de;q=0.9") == "de"
    assert mail_locale("xx", "it, es;q=0.5") == "es"
    assert mail_locale(None, None) == "en"


def test_the_message_is_text_and_html_alternatives() -> None:
    mail = render("password_reset", "de")
    message: EmailMessage = build_message(
        sender="IdP <no-reply@id.example>",
        to="alex@example.com",
        subject=mail.subject,
        text=mail.text,
        html=mail.html,
        language=mail.locale,
    )
    assert message.get_content_type() == "multipart/alternative"
    assert message["Content-Language"] == "de"
    assert message["Subject"] == "Neues Passwort festlegen"
    parts = [part.get_content_type() for part in message.iter_parts()]
    assert parts == ["text/plain", "text/html"]
    plain = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert plain is not None and html is not None
    assert plain.get_content() == mail.text
    assert html.get_content() == mail.html
    assert plain.get_content_charset() == html.get_content_charset() == "utf-8"


def test_a_plain_message_stays_plain() -> None:
    message = build_message(sender="a@example.com", to="b@example.com", subject="s", text="t\n")
    assert message.get_content_type() == "text/plain"
    assert "Content-Language" not in message
