"""Request parameters of the OAuth endpoints, each given at most once (RFC 6749 §3.1, §3.2).

"Parameters sent without a value MUST be treated as if they were omitted from the
request" and "Request and response parameters MUST NOT be included more than once"
(§3.1): an empty value counts as absent, and a name given twice with a value is reported,
so that the endpoint refuses it in its own way (``invalid_request`` at the token
endpoint, an error redirect or page at authorize and logout). Unknown names are ignored.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

__all__ = ["group_pairs", "single_values"]


def group_pairs(pairs: Iterable[tuple[str, str]], known: Collection[str]) -> dict[str, list[str]]:
    """The values of each ``known`` name among ``pairs`` (a decoded form), in order."""
    grouped: dict[str, list[str]] = {}
    for name, value in pairs:
        if name in known:
            grouped.setdefault(name, []).append(value)
    return grouped


def single_values(params: Mapping[str, Sequence[str]]) -> tuple[dict[str, str], list[str]]:
    """One value per name given once, and the names given more than once, in order."""
    values: dict[str, str] = {}
    repeated: list[str] = []
    for name, given in params.items():
        present = [value for value in given if value != ""]
        if len(present) > 1:
            repeated.append(name)
        elif present:
            values[name] = present[0]
    return values, repeated
