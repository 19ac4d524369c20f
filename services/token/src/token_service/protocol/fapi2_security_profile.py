"""The FAPI 2.0 Security Profile (final, §5.3) for a client whose ``security_profile`` is
``fapi2``: which rule is enforced where.

=========================================== =================================================
FAPI 2.0 SP §5.3.2 rule                     enforced by
=========================================== =================================================
confidential client, ``private_key_jwt``    the admin API (``admin_service.client_rules``)
                                            and the client authentication of every endpoint
pushed authorization requests only          ``/oauth2/authorize``: :func:`rfc9126_par.must_push`
``request_uri`` lives under 600 s           ``SVC_PAR_REQUEST_TTL`` (60 s, at most 599)
``redirect_uri`` in the pushed request      always required (``oidc_authorize``)
PKCE with S256                              :func:`pkce_required` (S256 is the only method)
``response_type=code`` only                 the only response type (``oidc_authorize``)
authorization code at most 60 s             :func:`code_lifetime`: 30 s
``iss`` in the authorization response       every response (RFC 9207)
sender-constrained access tokens (DPoP)     the token endpoint (RFC 9449)
=========================================== =================================================
"""

from __future__ import annotations

from typing import Final

from idp_common.protocol.constants import AUTHORIZATION_CODE_TTL_SECONDS

__all__ = ["FAPI2_CODE_LIFETIME_SECONDS", "code_lifetime", "pkce_required"]

#: FAPI 2.0 SP §5.3.2.1 allows at most 60 s; the profile's clients get half.
FAPI2_CODE_LIFETIME_SECONDS: Final = 30


def pkce_required(*, public_client: bool, fapi2: bool) -> bool:
    """RFC 7636 is required of public clients (RFC 9700 §2.1.1) and of FAPI 2.0 clients."""
    return public_client or fapi2


def code_lifetime(*, fapi2: bool) -> int:
    """Seconds an authorization code stays good for the client."""
    return FAPI2_CODE_LIFETIME_SECONDS if fapi2 else AUTHORIZATION_CODE_TTL_SECONDS
