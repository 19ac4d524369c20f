"""Where a browser session lives in Redis: the keys the session store writes
(:mod:`idp_common.state.sessions`) and the token-standing check reads
(:mod:`idp_common.state.session_standing`), every one under the deployment's prefix.

- ``session:<sid>``: the session's JSON, expiring when the session has been idle too long;
- ``session-apps:<sid>``: the applications reached and the last activity;
- ``user-sessions:<user id>``: the sids of a person's sessions;
- ``sessions-live``: every live sid, scored with the moment it expires if idle;
- ``session-moved:<sid>``: for a sid a session had before a re-authentication continued
  it under a new one, that new sid. Tokens issued before the re-authentication carry the
  old sid and still stand on the session: a reader follows the pointer to it.
"""

from __future__ import annotations

from typing import Final

from idp_common.protocol.constants import REFRESH_TOKEN_TTL_SECONDS

#: How long a moved sid keeps pointing at the session it became: as long as a refresh
#: token issued under it lives unused; a refresh that follows it extends it again.
MOVED_SID_SECONDS: Final = REFRESH_TOKEN_TTL_SECONDS


def session_key(prefix: str, sid: str) -> str:
    return f"{prefix}session:{sid}"


def apps_key(prefix: str, sid: str) -> str:
    return f"{prefix}session-apps:{sid}"


def index_key(prefix: str, user_id: str) -> str:
    return f"{prefix}user-sessions:{user_id}"


def live_key(prefix: str) -> str:
    return f"{prefix}sessions-live"


def moved_key(prefix: str, sid: str) -> str:
    return f"{prefix}session-moved:{sid}"
