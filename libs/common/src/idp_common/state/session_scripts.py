"""The Lua scripts of :class:`idp_common.state.sessions.SessionStore`: each is one atomic
step on a session and its ``session-apps`` set (see that module for the layout)."""

from __future__ import annotations

from dataclasses import dataclass

# KEYS: pairs of (session, session-apps), then the live-sessions set; ARGV: ttl, the ~seen
# member, then per pair: now (ms), member ("" for none), sid. EXPIRE answers 0 for a key that
# is gone: an ended session is left alone. GT: the latest moment stays, whichever touch
# arrives last; the live set scores the sid with its new expiry (seconds).
TOUCH = """
local live = KEYS[#KEYS]
for i = 1, (#KEYS - 1) / 2 do
  local session, apps = KEYS[2 * i - 1], KEYS[2 * i]
  local now, member, sid = ARGV[3 * i], ARGV[3 * i + 1], ARGV[3 * i + 2]
  if redis.call('EXPIRE', session, ARGV[1]) == 1 then
    if member ~= '' then redis.call('ZADD', apps, 'NX', now, member) end
    redis.call('ZADD', apps, 'GT', now, ARGV[2])
    redis.call('EXPIRE', apps, ARGV[1])
    redis.call('ZADD', live, 'GT', math.floor(now / 1000) + ARGV[1], sid)
  end
end
return 0
"""


@dataclass(frozen=True)
class Touch:
    session_key: str
    apps_key: str
    moment_ms: int
    member: bytes
    sid: str


# KEYS: old session, old apps, new session, new apps, the person's index, the live set,
# then the moved-sid pointers of every earlier sid. ARGV: ttl, index ttl, new JSON
# (continued), new JSON (fresh), new sid, old sid, now (ms), the pointers' ttl, then members
# to add (an older session's JSON clients). Answers 1 when it took over.
CONTINUE = """
local took_over = redis.call('DEL', KEYS[1]) == 1
if took_over then
  if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('RENAME', KEYS[2], KEYS[4]) end
  for i = 9, #ARGV do redis.call('ZADD', KEYS[4], 'NX', ARGV[7], ARGV[i]) end
  for i = 7, #KEYS do redis.call('SET', KEYS[i], ARGV[5], 'EX', ARGV[8]) end
  redis.call('EXPIRE', KEYS[4], ARGV[1])
  redis.call('SREM', KEYS[5], ARGV[6])
  redis.call('SET', KEYS[3], ARGV[3], 'EX', ARGV[1])
else
  redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[1])
end
redis.call('SADD', KEYS[5], ARGV[5])
redis.call('EXPIRE', KEYS[5], ARGV[2])
redis.call('ZREM', KEYS[6], ARGV[6])
redis.call('ZADD', KEYS[6], math.floor(ARGV[7] / 1000) + ARGV[1], ARGV[5])
return took_over and 1 or 0
"""
