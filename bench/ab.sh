#!/usr/bin/env bash
# bench/ab.sh OLD [NEW]: the ledger's own work in instructions, OLD's library against NEW's
# (default HEAD). Builds each commit with `make static` in a temporary worktree, runs
# bench/ab/ledger_workload.c under callgrind (instruction counts: repeatable on a busy machine,
# where the wall clock of a 2-core VM moves 5-10 % between rounds), and prints the inclusive
# counts of batch ingestion and of the warm question for each.
set -euo pipefail
old=$(git rev-parse --short "$1"); new=$(git rev-parse --short "${2:-HEAD}")
root=$(pwd)
work=$(mktemp -d /tmp/gatekit-ab-XXXXXX)
cleanup() {
    for c in "$old" "$new"; do git -C "$root" worktree remove --force "$work/$c" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
for c in "$old" "$new"; do
    git worktree add -q --detach "$work/$c" "$c"
    make -C "$work/$c" --no-print-directory static >"$work/$c.log" 2>&1 || { cat "$work/$c.log" >&2; exit 1; }
    lib="$work/$c/.build-static/release"
    cc -O2 -I"$work/$c/include" -I"$root/bench" -o "$work/$c/workload" "$root/bench/ab/ledger_workload.c" -L"$lib" -Wl,-rpath,"$lib" \
        -lgatekit $(pkg-config --cflags --libs dbus-1) -lcrypto -lssl -lsqlite3 -lpq -lcurl -ldl -lpthread -lm
    (cd "$work/$c" && valgrind --tool=callgrind --callgrind-out-file="$work/$c.cg" ./workload >/dev/null 2>"$work/$c.err")
done
count() { callgrind_annotate --inclusive=yes "$1" 2>/dev/null | grep -E "$2" | head -1 | awk '{gsub(",", "", $1); print $1}'; }
printf '| measurement | %s | %s | %s / %s |\n|---|---:|---:|---:|\n' "$old" "$new" "$new" "$old"
for what in "batch ingestion (800 items):<compiler-generated>:.*0C11ingestBatch_4kind7options" "2,000 warm ledger_is_entitled:entitlement8customer2to5scope"; do
    a=$(count "$work/$old.cg" "${what#*:}"); b=$(count "$work/$new.cg" "${what#*:}")
    printf '| %s, instructions | %s | %s | %s× |\n' "${what%%:*}" "$a" "$b" "$(python3 -c "print(f'{$b / $a:.4f}')")"
done
