#!/usr/bin/env bash
# Benchmark of the token and sign-in endpoints on an isolated stack: installs what is
# missing (wrk from Debian, the local servers, the uv environment, the built pages), then runs bench/run.py,
# which starts its own stack, measures, prints one table and removes the stack.
# Options are passed on: bash bench/run.sh --help
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
cd "$ROOT"

if [ "${1:-}" = "--activity" ]; then  # the activity dashboard at 10M audit rows (issue 28)
  shift  # PostgreSQL and Redis only: no stack, no wrk, no pages
  ensure_servers
  ensure_python
  export IDP_TEST_PG_ADMIN_URL="$IDP_PG_ADMIN_URL"
  exec uv run --frozen python -m bench.activity_dashboard "$@"
fi

# the memory run (bench/memory.py) drives its load with a Python generator only
[ "${1:-}" = "--memory" ] || command -v wrk >/dev/null || apt_install wrk
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || apt_install nginx-light
ensure_servers
ensure_python
ensure_frontends  # the proxy of the stack serves the built pages; it waits for /console/

export IDP_TEST_PG_ADMIN_URL="$IDP_PG_ADMIN_URL"
if [ "${1:-}" = "--admin" ]; then  # the admin lists (issue 4): bench/admin_lists.py
  shift
  exec uv run --frozen python -m bench.admin_lists "$@"
fi
if [ "${1:-}" = "--face" ]; then  # face verifications and the event loop (issue 7): bench/face.py
  shift
  exec uv run --frozen python -m bench.face "$@"
fi
if [ "${1:-}" = "--metrics" ]; then  # the cost of /metrics (issue 22): bench/metrics_cost.py
  shift
  exec uv run --frozen python -m bench.metrics_cost "$@"
fi
if [ "${1:-}" = "--memory" ]; then  # memory over a million grants (issue 24): bench/memory.py
  shift
  exec uv run --frozen python -m bench.memory "$@"
fi
if [ "${1:-}" = "--backchannel" ]; then  # the logout fan-out (issue 6): bench/backchannel.py
  shift
  exec uv run --frozen python -m bench.backchannel "$@"
fi
if [ "${1:-}" = "--profile" ]; then  # where the token service's time goes (issue 24): bench/profile.py
  shift
  exec uv run --frozen python -m bench.profile "$@"
fi
if [ "${1:-}" = "--levers" ]; then  # the token service's lean transport (issue 24): bench/levers.py
  shift
  exec uv run --frozen python -m bench.levers "$@"
fi
if [ "${1:-}" = "--peer" ]; then  # side by side with node-oidc-provider (issue 24): bench/peer/run.py
  shift
  command -v npm >/dev/null || apt_install npm
  exec uv run --frozen python -m bench.peer.run "$@"
fi
# The checkout the standing check is compared with: BEFORE=DIR, else ../before when it holds
# a synced environment (git worktree add ../before 815a817 && (cd ../before && uv sync --frozen)).
standing_before() {
  local dir="${BEFORE:-$ROOT/../before}"
  if [ -x "$dir/.venv/bin/python" ]; then echo "--before=$dir"; fi
}
if [ "${1:-}" = "--standing" ]; then  # what checking a token still stands costs: bench/standing_cost.py
  shift
  case " $* " in
    *" --before"*) exec uv run --frozen python -m bench.standing_cost "$@" ;;
  esac
  exec uv run --frozen python -m bench.standing_cost $(standing_before) "$@"
fi
if [ "${1:-}" = "--standing-profile" ]; then  # where the standing check's time goes: bench/standing_profile.py
  shift
  case " $* " in
    *" --before"*) exec uv run --frozen python -m bench.standing_profile "$@" ;;
  esac
  exec uv run --frozen python -m bench.standing_profile $(standing_before) "$@"
fi
if [ "${1:-}" = "--growth" ]; then  # cost as the data grows (issue 24 item 5): bench/growth.py
  shift
  exec uv run --frozen python -m bench.growth "$@"
fi
if [ "$#" -gt 0 ]; then
  exec uv run --frozen python -m bench.run "$@"
fi
uv run --frozen python -m bench.run
# `make bench` also compares userinfo, introspection and GET /entity/profile with the code
# before the standing check (bench/standing_cost.py; this tree alone without a checkout),
# three rounds at c=64, a few minutes.
status=0
uv run --frozen python -m bench.standing_cost $(standing_before) --rounds 3 --concurrency 64 || status=$?
# `make bench` also states the activity dashboard's query time at 10 million audit rows
# (issue 28; bench/activity_dashboard.py, its own database, a few minutes to fill).
uv run --frozen python -m bench.activity_dashboard
exit "$status"
