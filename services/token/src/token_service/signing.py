"""Which algorithm signs each token the token endpoint issues.

- Access token: the algorithm of the APIs whose scopes were granted
  (``accessTokenSigningAlg``, stored per API). The provider's own API is left out of the
  choice: its tokens are verified by the provider itself, by the key that ``kid`` names,
  whatever the algorithm, and a token that names only it stays RS256. When the granted
  APIs disagree (one ES256, another EdDSA), the token is signed with RS256, the default:
  a spent code or refresh token must still yield tokens (refusing would burn it), and
  docs/decisions.md tells operators to give such APIs separate clients or scope requests.
- ID token: the client's ``id_token_signed_response_alg``
  (:class:`~idp_common.storage.repos.clients.ClientRecord`).

The choice is made when the scope→API mapping is loaded into the worker's cache
(:meth:`token_service.context.TokenContext.audiences_for`), so signing a token costs one
dict lookup for its algorithm (:meth:`idp_common.crypto.keys.KeySet.signing_key_at`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from idp_common.protocol.constants import SIGNING_ALGORITHM

__all__ = ["TokenAudiences", "access_token_alg", "token_audiences"]


class TokenAudiences(NamedTuple):
    """The audiences of the APIs owning some scopes (sorted) and their tokens' algorithm."""

    audiences: tuple[str, ...] = ()
    alg: str = SIGNING_ALGORITHM


def access_token_alg(pairs: Iterable[tuple[str, str]], provider_audience: str) -> str:
    """The algorithm of an access token for the APIs ``pairs`` (audience, algorithm): see
    the module text."""
    chosen = {alg for audience, alg in pairs if audience != provider_audience}
    return chosen.pop() if len(chosen) == 1 else SIGNING_ALGORITHM


def token_audiences(pairs: Iterable[tuple[str, str]], provider_audience: str) -> TokenAudiences:
    """:class:`TokenAudiences` of (audience, algorithm) pairs sorted by audience."""
    found = list(pairs)
    audiences = tuple(dict.fromkeys(audience for audience, _ in found))
    return TokenAudiences(audiences, access_token_alg(found, provider_audience))
