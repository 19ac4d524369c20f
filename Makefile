# Thin aliases of scripts/*.sh (which also work where make is not installed).
.DEFAULT_GOAL := help
.PHONY: help up down test check unit bench bench-activity bench-admin bench-backchannel bench-peer bench-face bench-growth bench-memory bench-metrics bench-levers bench-standing chaos fuzz

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

up: ## install what is missing and start the whole stack on :8080
	@bash scripts/up.sh

down: ## stop what `make up` started
	@bash scripts/down.sh

test: ## the whole test suite (lint, types, unit, integration, end-to-end)
	@bash scripts/test.sh

check: ## lint, types, import rules and every unit test (no HTTP, no database)
	@uv run --frozen ruff check . && uv run --frozen mypy && uv run --frozen lint-imports && uv run --frozen pytest -q libs/common/tests/unit services/*/tests/unit

bench: ## throughput/latency of the token and sign-in endpoints on an isolated stack, the standing check before/after (bench-standing, 3 rounds), then the activity dashboard at 10M audit rows
	@bash bench/run.sh

bench-activity: ## the activity dashboard's query at 10,000,000 audit rows (ROWS=...): cold roll-up, warm median/p95
	@bash bench/run.sh --activity --rows $${ROWS:-10000000}

bench-admin: ## latency and query count of the admin lists (10,000 users, a user in 50 groups)
	@bash bench/run.sh --admin

bench-backchannel: ## back-channel logout fan-out to 100 applications (prompt, and one silent)
	@bash bench/run.sh --backchannel

bench-metrics: ## the cost of metrics: token endpoint and userinfo with metrics on and off, alternating
	@bash bench/run.sh --metrics

bench-levers: ## the token service's lean transport on and off, in one process, interleaved
	@bash bench/run.sh --levers

bench-standing: ## what the token standing check costs: userinfo, introspection, /entity/profile on this tree and BEFORE=DIR (default ../before), alternating
	@bash bench/run.sh --standing

bench-peer: ## side by side with node-oidc-provider (mem and pg adapters), same proxy and load, one table
	@bash bench/run.sh --peer

bench-growth: ## token rows on an empty and a filled database (1M refresh tokens; TOKENS=10000000), sizes, the cleanup under load
	@bash bench/run.sh --growth --tokens $${TOKENS:-1000000}

bench-memory: ## RSS of every service's master and workers over 1,000,000 grants (flat or grows)
	@bash bench/run.sh --memory

bench-face: ## face verifications per second with 2 model processes, and the event loop's worst delay
	@bash bench/run.sh --face

chaos: ## fault injection under load (Postgres, Redis, NATS stopped; processes killed): one report table
	@bash scripts/chaos.sh

fuzz: ## coverage-guided fuzzing (atheris) of the JWT, form and image parsers for a bounded time
	@bash scripts/fuzz.sh
