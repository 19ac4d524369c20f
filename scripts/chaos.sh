#!/usr/bin/env bash
# Fault injection under load (make chaos): installs what is missing (the local servers'
# packages, the uv environment, the built pages, nginx), then runs tests/chaos, which
# starts PostgreSQL, Redis and NATS of its own on free ports, an isolated stack on them,
# a mixed load, injects seven faults one at a time, prints one row per fault and removes
# everything. The machine's servers are never stopped. Exit status 1: a row broke its
# bound. Options are passed on: bash scripts/chaos.sh --help (--only 1 3 runs faults 1, 3).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

# The run's own servers come from these packages (initdb and pg_ctl of postgresql).
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || apt_install postgresql
command -v redis-server >/dev/null || apt_install redis-server
command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] || apt_install nats-server
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || apt_install nginx-light
command -v setpriv >/dev/null || apt_install util-linux  # fault 7 drops root's file bypass
ensure_uv  # `uv run` below installs what the environment lacks and removes nothing
ensure_frontends  # the proxy of the stack serves the built pages; it waits for /console/

exec uv run --frozen python -m tests.chaos "$@"
