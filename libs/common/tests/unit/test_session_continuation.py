"""How long a browser session may be continued by re-authentications (docs/security.md,
attack 18)."""

from __future__ import annotations

from idp_common.state.sessions import MAX_CONTINUATIONS, BrowserSession


def session(previous: int) -> BrowserSession:
    return BrowserSession(
        sid="s",
        user_id="u",
        auth_time=0,
        amr=["pwd"],
        acr="urn:idp:acr:1fa",
        created_at=0,
        last_seen=0,
        previous_sids=[f"p{i}" for i in range(previous)],
    )


def test_a_session_continues_up_to_the_bound_then_starts_afresh() -> None:
    assert session(0).can_continue
    assert session(MAX_CONTINUATIONS - 1).can_continue
    assert not session(MAX_CONTINUATIONS).can_continue
    assert len(session(MAX_CONTINUATIONS).all_sids) == MAX_CONTINUATIONS + 1
