#!/usr/bin/env bash
# Run the whole test suite. Installs what is missing (as scripts/up.sh does), then runs
# pytest: the suite starts its own isolated stack (own database, Redis prefix, NATS
# prefix, keys, ports), so it passes whether or not `make up` is running.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

ensure_system_packages
ensure_servers
ensure_python
ensure_frontends
ensure_interop_node

say "TypeScript unit tests"
(cd web/auth && npm test --silent)
(cd web/console && npm test --silent)

say "ruff, mypy and import rules"
uv run --frozen ruff check .
uv run --frozen mypy
uv run --frozen lint-imports

export IDP_TEST_PG_ADMIN_URL="$IDP_PG_ADMIN_URL"
if [ "$#" -gt 0 ]; then  # the tests named on the command line, in one process
    say "tests"
    exec uv run --frozen pytest "$@"
fi
# The whole suite: IDP_TEST_WORKERS pytest workers (pytest-xdist), each with a stack of its
# own, a file's tests kept on one worker (module fixtures start once); then the tests
# marked `alone` (load, timing and races: replicas, key rotation under load, many requests
# at once) with nothing beside them. Both parts run; the exit status is the first failure's.
status=0
say "tests, ${IDP_TEST_WORKERS:-2} workers"
uv run --frozen pytest -n "${IDP_TEST_WORKERS:-2}" --dist loadfile -m "not alone" --durations=25 || status=$?
say "tests that run alone"
uv run --frozen pytest -m alone --durations=10 || status=$((status ? status : $?))
exit "$status"
