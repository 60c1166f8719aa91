#!/usr/bin/env bash
# make quick DOMAIN=ledger: one domain's Swift suites, C test programs and pytest files
# (Tests/domains.tsv), after an incremental build: the loop while changing a rule. Each domain's
# services are started as `make test` starts them (the App Store and Play stand-ins, PostgreSQL
# and PgBouncer for the store's domain) and required: a missing one fails, never skips. Other
# domains run on SQLite only.
#   scripts/quick.sh DOMAIN
# QUICK_STAGES (default "swift c python") picks stages; QUICK_FAIL_FAST=1 stops at the first
# failing test (make mutation's C and pytest stages).
set -euo pipefail
trap 'echo "quick: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
domain=${1:-}
row=$(awk -F'\t' -v d="$domain" '!/^#/ && $1 == d' Tests/domains.tsv)
if [ -z "$domain" ] || [ -z "$row" ]; then
    echo "quick: DOMAIN must be one of: $(awk -F'\t' '!/^#/ && NF {printf "%s ", $1}' Tests/domains.tsv)" >&2
    exit 2
fi
IFS=$'\t' read -r _ suites c_tests py_tests <<<"$row"
[ "$suites" = - ] && suites=""
[ "$c_tests" = - ] && c_tests=""
[ "$py_tests" = - ] && py_tests=""
start=$(date +%s)
swift build --build-tests 2>&1 | grep -E "error|warning: unre|Compiling|Build" | tail -3
ln -sfn libgatekit.so .build/debug/libgatekit.so.0
export SWIFT_BACKTRACE=enable=no GATEKIT_LIBRARY="$root/.build/debug/libgatekit.so" GATEKIT_TOOL="$root/.build/c/gatekit"
unset GATEKIT_TEST_BACKEND GATEKIT_TEST_POSTGRES
stages=" ${QUICK_STAGES:-swift c python} "
if [[ "$stages" == *" swift "* ]] && [ -n "$suites" ]; then
    swift test --skip-build --filter "$suites" 2>&1 | grep -E "✘|Test run with" | tail -20
fi
make --no-print-directory -s tool >/dev/null
for t in $c_tests; do make --no-print-directory -s ".build/c/tests/$t" >/dev/null; done
run_tests() {
    set -euo pipefail  # run by `bash -c`: a failing C program must fail the stage
    if [[ "$stages" == *" c "* ]]; then
        for t in $c_tests; do ".build/c/tests/$t" | tail -1; done
    fi
    if [[ "$stages" == *" python "* ]] && [ -n "$py_tests" ]; then
        (cd python && "${PYTHON:-python3}" -m pytest -q -p no:cacheprovider ${QUICK_FAIL_FAST:+-x} $(printf 'tests/%s ' $py_tests) ${pg_filter:+-k "$pg_filter"})
    fi
}
# What each domain's tests talk to, started and required as in `make test`.
services=() pg_filter="not postgresql"
case "$domain" in
    api) services=(scripts/with-appstore-standin.sh); export GATEKIT_REQUIRE_APPSTORE=1 ;;
    ledger) services=(scripts/with-appstore-standin.sh scripts/with-play-standin.sh scripts/with-stripe-standin.sh)
            export GATEKIT_REQUIRE_APPSTORE=1 GATEKIT_REQUIRE_PLAY=1 GATEKIT_REQUIRE_STRIPE=1 ;;
    play) services=(scripts/with-play-standin.sh); export GATEKIT_REQUIRE_PLAY=1 ;;
    stripe) services=(scripts/with-stripe-standin.sh); export GATEKIT_REQUIRE_STRIPE=1 ;;
    store) services=(scripts/with-postgres.sh); pg_filter=""; export GATEKIT_REQUIRE_POSTGRES=1 ;;
esac
export -f run_tests; export c_tests py_tests stages pg_filter
if [ ${#services[@]} -gt 0 ]; then
    "${services[@]}" bash -c run_tests
else
    run_tests
fi
echo "quick: $domain in $(( $(date +%s) - start )) s"
