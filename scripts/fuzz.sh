#!/usr/bin/env bash
# Coverage-guided fuzzing (atheris, i.e. libFuzzer for Python) of the parsers that read
# untrusted bytes: JWTs (access tokens, id_token_hint), OAuth forms and query parameters
# with client credentials, and uploaded images. See docs/fuzzing.md.
#
#   scripts/fuzz.sh [--seconds N] [TARGET ...]     targets: jwt form image (default: all)
#   FUZZ_SECONDS=N scripts/fuzz.sh                  the same bound from the environment
#   scripts/fuzz.sh --merge                         then add the inputs that reached new
#                                                   code to the committed corpus (libFuzzer
#                                                   -merge=1: only those, so it stays small)
#
# Each target runs for N seconds (default 60) from the committed corpus
# (tests/fuzz/corpus/<target>); new inputs go to var/fuzz/<target>/corpus (not committed),
# crash reproducers to tests/fuzz/crashes/<target>/ (to be committed with the fix). Exits
# non-zero when any target crashed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

SECONDS_EACH=${FUZZ_SECONDS:-60}
MERGE=0
TARGETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_EACH=${2:?--seconds needs a number}; shift 2 ;;
    --seconds=*) SECONDS_EACH=${1#--seconds=}; shift ;;
    --merge) MERGE=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    jwt|form|image) TARGETS+=("$1"); shift ;;
    *) die "unknown argument $1 (targets: jwt form image; --seconds N)" ;;
  esac
done
case "$SECONDS_EACH" in ''|*[!0-9]*) die "--seconds: expected a whole number, got $SECONDS_EACH" ;; esac
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(jwt form image)

ensure_python
say "atheris (uv sync --group fuzz)"
# --inexact: add atheris without removing what another group installed in .venv.
uv sync --frozen --inexact --quiet --group face --group fuzz || die "uv sync --group fuzz failed"

declare -A RESULT
failed=0
for target in "${TARGETS[@]}"; do
  work="$VAR/fuzz/$target"
  crashes="$ROOT/tests/fuzz/crashes/$target"
  mkdir -p "$work/corpus" "$crashes"
  log="$work/fuzz.log"
  say "fuzzing $target for ${SECONDS_EACH}s (log: ${log#"$ROOT"/})"
  set +e
  uv run --frozen --no-sync python -m tests.fuzz.run "$target" \
    -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$crashes/" \
    "$work/corpus" "$ROOT/tests/fuzz/corpus/$target" > "$log" 2>&1
  status=$?
  set -e
  runs=$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 | grep -Eo '[0-9]+' | head -n 1 || true)
  [ -n "$runs" ] || runs=$(grep -Eo 'stat::number_of_executed_units: [0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -n 1 || true)
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  cov=$(echo "$last" | grep -Eo 'cov: [0-9]+' | grep -Eo '[0-9]+' || true)
  ft=$(echo "$last" | grep -Eo 'ft: [0-9]+' | grep -Eo '[0-9]+' || true)
  corp=$(echo "$last" | grep -Eo 'corp: [0-9]+/[0-9a-zA-Z]+' | cut -d' ' -f2 || true)
  found=$(grep -Eo "Test unit written to [^ ]+" "$log" | sed 's/Test unit written to //' || true)
  if [ "$status" -ne 0 ] || [ -n "$found" ]; then
    failed=1
    grep -E -A25 'Uncaught Python exception|ERROR: libFuzzer' "$log" | head -n 40 || tail -n 40 "$log"
    RESULT[$target]="CRASH (exit $status) reproducer: ${found:-see $log}"
  else
    RESULT[$target]="ok"
  fi
  if [ "$MERGE" -eq 1 ] && [ "${RESULT[$target]}" = ok ]; then
    before=$(find "$ROOT/tests/fuzz/corpus/$target" -type f | wc -l)
    uv run --frozen --no-sync python -m tests.fuzz.run "$target" -merge=1 \
      "$ROOT/tests/fuzz/corpus/$target" "$work/corpus" > "$work/merge.log" 2>&1 \
      || die "merging the $target corpus failed (log: ${work#"$ROOT"/}/merge.log)"
    echo "$target: committed corpus $before -> $(find "$ROOT/tests/fuzz/corpus/$target" -type f | wc -l) files (git add tests/fuzz/corpus)"
  fi
  printf '%-6s executions: %-9s coverage: %-6s features: %-6s corpus: %-10s crashes: %s\n' \
    "$target" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "${RESULT[$target]}"
done

say "summary (${SECONDS_EACH}s per target)"
for target in "${TARGETS[@]}"; do printf '  %-6s %s\n' "$target" "${RESULT[$target]}"; done
if [ "$failed" -ne 0 ]; then
  echo "a target crashed: fix it, then commit the reproducer under tests/fuzz/crashes/ (tests/fuzz/test_regressions.py replays it)" >&2
  exit 1
fi
