"""Which signing algorithm an API or a client may be registered for.

Pure rule, no framework: :func:`signing_alg_problem` answers why ``value`` cannot be the
algorithm of an API's access tokens or of a client's ID tokens or userinfo answers, given
the algorithms the provider holds a current key for
(:attr:`idp_common.crypto.keys.KeySet.algorithms`), or None.

- The four algorithms the provider implements: RS256, PS256, ES256 (RFC 7518 §3.3-§3.5)
  and EdDSA with Ed25519 (RFC 8037 §3.1). ``none`` (RFC 7518 §3.6) and the HMAC family
  are always refused: a shared-secret or unsigned token is no proof that the provider
  issued it (RFC 8725 §2.1).
- An algorithm the provider holds no key for would fail every issuance; it is refused with
  the command that adds the key.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from idp_common.protocol.constants import SIGNING_ALGORITHMS

__all__ = ["generate_hint", "signing_alg_problem"]

_SUPPORTED: Final = ", ".join(SIGNING_ALGORITHMS)


def generate_hint(alg: str) -> str:
    """The operator command that adds a key of ``alg``."""
    return f"idp keys generate --alg {alg}"


def signing_alg_problem(value: object, held: Collection[str]) -> str | None:
    """Why ``value`` cannot be a registered signing algorithm, or None (see the module)."""
    if not isinstance(value, str) or value not in SIGNING_ALGORITHMS:
        text = value if isinstance(value, str) else ""
        plain = text.isascii() and text.isalnum() and len(text) <= 20
        shown = text if plain else "this value"
        if plain and (text.lower() == "none" or text.upper().startswith("HS")):
            return f"{shown} is never accepted (unsigned and HMAC tokens); one of {_SUPPORTED}"
        return f"unsupported algorithm {shown}; one of {_SUPPORTED}"
    if value not in held:
        return f"no {value} signing key; generate one with {generate_hint(value)}"
    return None
