#!/usr/bin/env bash
# make quick DOMAIN=ledger: one domain's Swift suites, C test programs and pytest files
# (Tests/domains.tsv), on SQLite only, after an incremental build: the loop while changing a
# rule. The App Store API's, the ledger's and Google Play's tests get their local stand-in;
# nothing else is started.
#   scripts/quick.sh DOMAIN
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
start=$(date +%s)
swift build --build-tests 2>&1 | grep -E "error|warning: unre|Compiling|Build" | tail -3
ln -sfn libgatekit.so .build/debug/libgatekit.so.0
export SWIFT_BACKTRACE=enable=no GATEKIT_LIBRARY="$root/.build/debug/libgatekit.so" GATEKIT_TOOL="$root/.build/c/gatekit"
unset GATEKIT_TEST_BACKEND GATEKIT_TEST_POSTGRES
[ -z "$suites" ] || swift test --skip-build --filter "$suites" 2>&1 | grep -E "✘|Test run with" | tail -20
make --no-print-directory -s tool >/dev/null
for t in $c_tests; do make --no-print-directory -s ".build/c/tests/$t" >/dev/null; done
run_tests() {
    for t in $c_tests; do ".build/c/tests/$t" | tail -1; done
    (cd python && "${PYTHON:-python3}" -m pytest -q -p no:cacheprovider $(printf 'tests/%s ' $py_tests) -k "not postgresql")
}
if [ "$domain" = api ] || [ "$domain" = ledger ]; then  # the API client and the ledger's sync talk to the stand-in
    export -f run_tests; export c_tests py_tests
    scripts/with-appstore-standin.sh bash -c run_tests
elif [ "$domain" = play ]; then
    export -f run_tests; export c_tests py_tests
    scripts/with-play-standin.sh bash -c run_tests
else
    run_tests
fi
echo "quick: $domain in $(( $(date +%s) - start )) s"
