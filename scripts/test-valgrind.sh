#!/usr/bin/env bash
# make test-valgrind: every C test under valgrind memcheck with full leak checking; a
# definite leak or any memory error fails the run. Uses the normal debug library.
# No suppressions were needed: the Swift runtime's one-time caches (metadata, conformance
# tables) show up only as "possibly lost"/"still reachable", which are not errors here.
# Forked children (crash-isolation in the tests) are checked too; they exit with _exit.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "test-valgrind: valgrind is not installed (apt-get install valgrind)"; exit 1; }
export SWIFT_BACKTRACE=enable=no
export GATEKIT_SANITIZER=valgrind   # tests may shorten loads that are slow under valgrind
export GATEKIT_TOOL=${GATEKIT_TOOL:-$PWD/.build/c/gatekit}
failed=0
for t in "$@"; do
    log=.build/c/valgrind-$(basename "$t").log; rm -f "$log".*
    echo "== valgrind $t"
    if valgrind --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
        --error-exitcode=99 --suppressions=scripts/valgrind.supp --child-silent-after-fork=no --track-fds=no --log-file="$log.%p" "$t"; then
        :
    else
        echo "   FAILED (exit $?): see $log.*"; failed=1
    fi
    # A forked child's error exits only that child: scan every process's log too.
    if grep -lE "ERROR SUMMARY: [1-9]|definitely lost: [1-9]" "$log".* >/dev/null 2>&1; then
        echo "   memcheck errors in: $(grep -lE "ERROR SUMMARY: [1-9]|definitely lost: [1-9]" "$log".* | tr '\n' ' ')"; failed=1
    fi
done
[[ $failed -eq 0 ]] && echo "test-valgrind: all clean" || { echo "test-valgrind: FAILED"; exit 1; }
