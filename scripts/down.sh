#!/usr/bin/env bash
# Stop what scripts/up.sh started: the proxy, every replica of the five services (all at
# once: each drains SVC_SHUTDOWN_DRAIN_SECONDS, then finishes what is in flight), the mail
# catcher, the moto photo store, and the Redis or NATS server it had to start itself.
# PostgreSQL and servers that were already running stay.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
RUN="$VAR/run"

stop_pid() { stop_pids "$1"; }  # stop_pid LABEL (scripts/lib.sh)

if [ -f "$RUN/proxy.pid" ]; then
  [ -f "$RUN/proxy/nginx.conf" ] && nginx -q -c "$RUN/proxy/nginx.conf" -s quit 2>/dev/null || true
  stop_pid proxy
fi
# shellcheck disable=SC2046  # one word per label
stop_pids $(replica_labels_running)
stop_pid mail-catcher
stop_pid s3  # only when up.sh started it (a store it found running has no pid file)
# The provider's own Redis: a clean shutdown writes the append-only file out.
if [ -f "$RUN/redis.pid" ] && kill -0 "$(cat "$RUN/redis.pid")" 2>/dev/null; then
  say "stopping the identity provider's Redis"
  redis-cli -p "$IDP_REDIS_PORT" shutdown >/dev/null 2>&1 || stop_pid redis
  rm -f "$RUN/redis.pid"
fi

if [ -f "$RUN/started-infra" ]; then
  grep -qx redis "$RUN/started-infra" && { say "stopping Redis"; redis-cli -p 6379 shutdown nosave >/dev/null 2>&1 || true; }
  grep -qx nats "$RUN/started-infra" && { say "stopping NATS"; as_root start-stop-daemon --stop --oknodo --exec /usr/sbin/nats-server >/dev/null || true; }
  rm -f "$RUN/started-infra"
fi
say "stopped"
