"""Unit tests of idp_common.protocol.rfc4647_locales (docs/languages.md)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from idp_common.protocol.rfc4647_locales import (
    DEFAULT_LOCALE,
    MAX_PREFERENCES,
    SUPPORTED_LOCALES,
    lookup,
    negotiate_ui_locale,
    parse_accept_language,
    parse_ui_locales,
    text_direction,
)
from libs.common.tests.unit.properties.support import FAST

# --- lookup --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ("de", "de"),
        ("DE", "de"),
        ("de-AT", "de"),
        ("de-Latn-AT-1996", "de"),
        ("de_DE", "de"),
        (" fr-CA ", "fr"),
        ("ar-EG", "ar"),
        ("es-419", "es"),
        ("en-x-private", "en"),
        ("it", None),
        ("deu", None),
        ("x-de", None),
        ("*", None),
        ("", None),
        ("de-", None),
        ("-de", None),
        ("de--AT", None),
        ("de-ÄT", None),
        ("d" * 9, None),
        ("de-" + "a" * 70, None),
    ],
)
def test_lookup(tag: str, expected: str | None) -> None:
    assert lookup(tag) == expected


def test_every_supported_locale_finds_itself() -> None:
    assert [lookup(tag) for tag in SUPPORTED_LOCALES] == list(SUPPORTED_LOCALES)
    assert DEFAULT_LOCALE in SUPPORTED_LOCALES


# --- parse_accept_language -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, []),
        ("", []),
        ("de", ["de"]),
        ("de-AT,de;q=0.9,en;q=0.8", ["de-AT", "de", "en"]),
        ("en;q=0.5, fr", ["fr", "en"]),
        ("fr;q=0.8, es;q=0.8, de;q=0.9", ["de", "fr", "es"]),
        ("de;q=0, en", ["en"]),
        ("de;q=0.000", []),
        ("*, de;q=0.1", ["de"]),
        ("de;q=1.0", ["de"]),
        ("de ; q = 0.5", ["de"]),
        ("de;Q=0.5", ["de"]),
        ("de;q=2", []),
        ("de;q=0.5000", []),
        ("de;q=abc, fr", ["fr"]),
        ("de;level=1, fr", ["fr"]),
        (",,, ,de,", ["de"]),
        ("<script>, de", ["de"]),
    ],
)
def test_parse_accept_language(header: str | None, expected: list[str]) -> None:
    assert parse_accept_language(header) == expected


def test_parse_accept_language_reads_a_bounded_number_of_entries() -> None:
    header = ",".join(["it"] * 1000 + ["de"])
    assert len(parse_accept_language(header)) <= MAX_PREFERENCES
    assert negotiate_ui_locale(ui_locales=None, saved=None, accept_language=header) == "en"


def test_huge_header_is_cheap() -> None:
    header = "de-AT;q=0.5," * 200_000 + "x" * 5_000_000
    started = time.perf_counter()
    tags = parse_accept_language(header)
    assert time.perf_counter() - started < 0.1
    assert tags[0] == "de-AT"
    assert len(tags) <= MAX_PREFERENCES


# --- ui_locales and negotiation ------------------------------------------------------------


def test_parse_ui_locales() -> None:
    assert parse_ui_locales("fr-CA fr  en") == ["fr-CA", "fr", "en"]
    assert parse_ui_locales(["de", "en"]) == ["de", "en"]
    assert parse_ui_locales(None) == []
    assert parse_ui_locales("") == []
    assert len(parse_ui_locales("de " * 10_000)) == MAX_PREFERENCES


@pytest.mark.parametrize(
    ("ui_locales", "saved", "accept_language", "expected"),
    [
        ("de", "fr", "es", "de"),
        ("xx de", "fr", "es", "de"),
        (["xx", "ar-EG"], None, None, "ar"),
        ("xx yy", "fr", "es", "fr"),
        (None, "fr", "es", "fr"),
        ("", "fr", "es", "fr"),
        (None, None, "it, es;q=0.9", "es"),
        (None, "xx", "es", "es"),
        (None, None, None, "en"),
        (None, None, "it, ja", "en"),
        (None, "", "", "en"),
    ],
)
def test_negotiate(
    ui_locales: str | list[str] | None,
    saved: str | None,
    accept_language: str | None,
    expected: str,
) -> None:
    assert (
        negotiate_ui_locale(ui_locales=ui_locales, saved=saved, accept_language=accept_language)
        == expected
    )


def test_text_direction() -> None:
    assert text_direction("ar") == "rtl"
    assert [text_direction(tag) for tag in ("en", "de", "fr", "es")] == ["ltr"] * 4


# --- properties ----------------------------------------------------------------------------

TAGISH = st.sampled_from([*SUPPORTED_LOCALES, "de-AT", "xx", "*", "EN-us", ""]) | st.text(
    max_size=20
)
HEADER = (
    st.none()
    | st.text(max_size=200)
    | st.lists(
        st.tuples(
            TAGISH, st.none() | st.text(max_size=6) | st.floats(0, 1).map(lambda q: f"{q:.3f}")
        ),
        max_size=12,
    ).map(lambda items: ",".join(t if q is None else f"{t};q={q}" for t, q in items))
)


@FAST
@given(header=HEADER)
def test_any_header_never_raises_and_gives_well_formed_tags(header: str | None) -> None:
    tags = parse_accept_language(header)
    assert len(tags) <= MAX_PREFERENCES
    for tag in tags:
        assert tag and tag != "*" and "," not in tag and ";" not in tag


@FAST
@given(
    ui_locales=st.none() | st.text(max_size=300) | st.lists(TAGISH, max_size=5),
    saved=st.none() | TAGISH,
    header=HEADER,
)
def test_negotiation_always_gives_a_supported_locale(
    ui_locales: str | list[str] | None, saved: str | None, header: str | None
) -> None:
    result = negotiate_ui_locale(ui_locales=ui_locales, saved=saved, accept_language=header)
    assert result in SUPPORTED_LOCALES


@FAST
@given(tag=st.text(max_size=80))
def test_lookup_never_raises_and_gives_supported_or_none(tag: str) -> None:
    assert lookup(tag) in (*SUPPORTED_LOCALES, None)


@FAST
@given(
    locale=st.sampled_from(SUPPORTED_LOCALES),
    region=st.from_regex(r"[A-Za-z]{2}|[0-9]{3}", fullmatch=True),
)
def test_a_region_falls_back_to_its_language(locale: str, region: str) -> None:
    assert lookup(f"{locale}-{region}") == locale
    assert lookup(f"{locale.upper()}-{region}") == locale
