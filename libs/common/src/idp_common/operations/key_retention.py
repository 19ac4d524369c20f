"""How long a retired signing key must stay published: the lifetimes of what it signed.

The provider signs three kinds of token (nothing else it issues is signed: codes and
refresh tokens are opaque):

- access tokens: ``SVC_ACCESS_TOKEN_TTL`` (one lifetime for every client; the admin API
  has no per-client lifetime);
- ID tokens: the same lifetime (``token_service.issuance.sign_id_token``), but the
  provider itself still accepts one as an ``id_token_hint`` for a day after it expired
  (:data:`~idp_common.protocol.oidc_id_token_hint.EXPIRED_GRACE_SECONDS`, OIDC
  RP-Initiated Logout 1.0 §2): pruning its key earlier would turn an application's
  ordinary sign-out into an error page;
- logout tokens: two minutes (docs/design.md §2).

So a retired key outlives its successor's activation by
``reload interval + access-token lifetime + 24 h + JWKS cache lifetime``
(:attr:`~idp_common.crypto.key_schedule.RotationTimings.retention`): with the defaults,
10 s + 600 s + 86 400 s + 300 s, 24 h 15 min 10 s.
"""

from __future__ import annotations

from idp_common.crypto.key_schedule import RotationTimings
from idp_common.protocol.constants import LOGOUT_TOKEN_TTL_SECONDS
from idp_common.protocol.oidc_id_token_hint import EXPIRED_GRACE_SECONDS

__all__ = ["longest_token_lifetime", "rotation_timings"]


def longest_token_lifetime(access_token_ttl: int) -> int:
    """Seconds a token the provider signs stays acceptable, for the longest-lived kind."""
    access_token = access_token_ttl
    id_token = access_token_ttl + EXPIRED_GRACE_SECONDS  # as an id_token_hint
    return max(access_token, id_token, LOGOUT_TOKEN_TTL_SECONDS)


def rotation_timings(
    *, access_token_ttl: int, jwks_cache_seconds: int, reload_seconds: int
) -> RotationTimings:
    """The rotation timings of a deployment's settings."""
    return RotationTimings(
        jwks_cache_seconds=jwks_cache_seconds,
        reload_seconds=reload_seconds,
        longest_token_seconds=longest_token_lifetime(access_token_ttl),
    )
