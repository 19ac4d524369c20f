"""Pure WebAuthn rules: RP id and origin from the issuer, the counter rule,
the ``amr`` of a passkey sign-in."""

from __future__ import annotations

import pytest

from idp_common.protocol.w3c_webauthn import (
    expected_origin,
    passkey_amr,
    relying_party_id,
    sign_count_regressed,
)


@pytest.mark.parametrize(
    ("issuer", "rp_id", "origin"),
    [
        ("https://ID.example.com/", "id.example.com", "https://id.example.com"),
        ("https://id.example.com:443/tenant", "id.example.com", "https://id.example.com"),
        ("http://localhost:8080", "localhost", "http://localhost:8080"),
        ("https://id.example.com:8443", "id.example.com", "https://id.example.com:8443"),
    ],
)
def test_rp_id_and_origin_come_from_the_issuer(issuer: str, rp_id: str, origin: str) -> None:
    assert relying_party_id(issuer) == rp_id
    assert expected_origin(issuer) == origin


@pytest.mark.parametrize(
    ("stored", "presented", "regressed"),
    [(0, 0, False), (0, 1, False), (5, 6, False), (5, 5, True), (5, 4, True), (5, 0, True)],
)
def test_sign_count_rule(stored: int, presented: int, regressed: bool) -> None:
    assert sign_count_regressed(stored, presented) is regressed


def test_amr_of_a_passkey() -> None:
    assert passkey_amr(backup_eligible=False, user_verified=True, after_password=False) == [
        "hwk",
        "user",
        "mfa",
    ]
    assert passkey_amr(backup_eligible=True, user_verified=True, after_password=False) == [
        "swk",
        "user",
        "mfa",
    ]
    assert passkey_amr(backup_eligible=False, user_verified=False, after_password=True) == [
        "pwd",
        "hwk",
        "mfa",
    ]
