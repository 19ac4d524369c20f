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

say "tests"
export IDP_TEST_PG_ADMIN_URL="$IDP_PG_ADMIN_URL"
exec uv run --frozen pytest "$@"
