"""A browser in a few words for a security notice: ``("Firefox 128", "Windows")`` from a
``User-Agent`` header.

The header is the caller's own text, and a security notice is read by someone who trusts
the provider: only names from the lists below (and a version made of digits) ever reach a
mail, never the header itself, so a caller cannot write "to undo this, visit ..." into the
owner's warning. A header naming none of them shows nothing. The console's sessions screen
shortens headers by the same lists (``web/console/src/screens/account/SessionsScreen.tsx``).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["MAX_USER_AGENT_CHARS", "describe_user_agent"]

#: Only this much of a header is looked at (real ones are well under 300 characters).
MAX_USER_AGENT_CHARS: Final = 512

#: The first that matches names the browser; its group is the major version.
_BROWSERS: Final = (
    (re.compile(r"Edg(?:e|A|iOS)?/(\d{1,4})"), "Edge"),
    (re.compile(r"OPR/(\d{1,4})"), "Opera"),
    (re.compile(r"Firefox/(\d{1,4})"), "Firefox"),
    (re.compile(r"(?:Headless)?Chrom(?:e|ium)/(\d{1,4})"), "Chrome"),
    (re.compile(r"Version/(\d{1,4})[^ ]* (?:Mobile/\S+ )?Safari/"), "Safari"),
)
_SYSTEMS: Final = (
    (re.compile(r"Windows NT"), "Windows"),
    (re.compile(r"Android"), "Android"),
    (re.compile(r"iPhone|iPad|iPod"), "iOS"),
    (re.compile(r"Mac OS X"), "macOS"),
    (re.compile(r"CrOS"), "ChromeOS"),
    (re.compile(r"Linux"), "Linux"),
)


def describe_user_agent(header: str | None) -> tuple[str | None, str | None]:
    """``(browser, system)``: a known browser with its major version and a known operating
    system, each None when the header names none (or there is no header)."""
    if not header or not isinstance(header, str):
        return None, None
    text = header[:MAX_USER_AGENT_CHARS]
    browser = None
    for pattern, name in _BROWSERS:
        found = pattern.search(text)
        if found is not None:
            browser = f"{name} {found.group(1)}"
            break
    system = next((name for pattern, name in _SYSTEMS if pattern.search(text)), None)
    return browser, system
