"""Unit tests of admin_service.protocol.brand_fields (docs/branding.md)."""

from __future__ import annotations

import pytest

from admin_service.protocol.brand_fields import (
    brand_problems,
    link_problem,
    product_name_problem,
)


@pytest.mark.parametrize(
    "value",
    [
        "https://example.com/terms",
        "https://example.com/privacy#cookies",
        "http://localhost:8080/terms",
        "http://127.0.0.1/privacy",
        "https://" + "a" * 30 + ".example/" + "p" * 1950,
    ],
)
def test_links_accepted(value: str) -> None:
    assert link_problem(value) is None


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("http://example.com/terms", "https"),
        ("javascript:alert(1)", "https"),
        ("/terms", "https"),
        ("https:///terms", "host"),
        ("https://user:pw@example.com/", "user name"),
        ("https://example.com/a b", "spaces"),
        ("https://example.com/" + "x" * 2000, "2000"),
        ("ftp://example.com/terms", "https"),
        ("https://[::1/", "https"),
    ],
)
def test_links_refused(value: str, words: str) -> None:
    problem = link_problem(value)
    assert problem is not None and words in problem


def test_product_name() -> None:
    assert product_name_problem("Acme") is None
    assert product_name_problem("x" * 80) is None
    assert product_name_problem("x" * 81) == "must be at most 80 characters"
    assert product_name_problem("   ") == "must not be empty"
    assert product_name_problem("Acme\nCorp") is not None
    assert product_name_problem("Acme\u202eCorp") is not None  # bidi override


def test_brand_problems_normalises_and_names_wire_fields() -> None:
    values, problems = brand_problems(
        {"product_name": "  Acme  ", "primary_color": "#1A73E8", "terms_uri": None}
    )
    assert values == {"product_name": "Acme", "primary_color": "#1a73e8", "terms_uri": None}
    assert problems == []
    _, problems = brand_problems(
        {"primary_color": "#ffff00", "privacy_uri": "http://example.com", "product_name": ""}
    )
    fields = [field for field, _ in problems]
    assert fields == ["primaryColor", "privacyUri", "productName"]
    assert problems[0][1] == "contrast with white text is 1.0:1; WCAG AA needs at least 4.5:1"
