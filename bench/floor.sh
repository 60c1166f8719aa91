#!/usr/bin/env bash
# `make bench-floor` (issue 29): how fast would ingestion be if the ledger wrote less? Builds the
# library twice more from HEAD, each with one experiment patch —
#   bench/floor/no-derived-rows.patch: what an item implies (its subscription links, status
#     changes, answers and change-feed rows) still worked out, but not written;
#   bench/floor/item-and-versions-only.patch: nothing but the signed item and its versions (no
#     record read, no answers, no feed) —
# and runs the ingestion benchmarks (bench_ledger's SQLite table, bench_postgres's ingestion
# table) against this tree's library and the two, interleaved, BENCH_FLOOR_ROUNDS times (3),
# under the PostgreSQL server `make bench-floor` starts. The patched libraries are experiments:
# they keep none of the ledger's promises beyond storing what was signed.
set -euo pipefail
lib=$(realpath "$1")
rounds=${BENCH_FLOOR_ROUNDS:-3}
root=$(pwd)
work=$(mktemp -d /tmp/gatekit-floor-XXXXXX)
patches=(no-derived-rows item-and-versions-only)
cleanup() {
    for patch in "${patches[@]}"; do git -C "$root" worktree remove --force "$work/$patch" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

for patch in "${patches[@]}"; do
    echo "bench-floor: building HEAD with bench/floor/$patch.patch" >&2
    git worktree add -q --detach "$work/$patch" HEAD
    git -C "$work/$patch" apply "$root/bench/floor/$patch.patch"
    make -C "$work/$patch" --no-print-directory static >"$work/$patch.log" 2>&1 || { cat "$work/$patch.log" >&2; exit 1; }
done

flags="$(pkg-config --define-variable=libdir="$(dirname "$lib")" --cflags --libs gatekit) $(pkg-config --cflags --libs dbus-1)"
for name in bench_ledger bench_postgres; do
    cc -std=c11 -O2 -D_GNU_SOURCE -Ibench -o "$work/$name" "bench/$name.c" $flags -lcrypto -lssl -lsqlite3 -lpq -ldl -lpthread
done

echo "# make bench-floor — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
for round in $(seq 1 "$rounds"); do
    for variant in this "${patches[@]}"; do
        if [ "$variant" = this ]; then dir=$(dirname "$lib"); else dir="$work/$variant/.build-static/release"; fi
        echo
        echo "## Round $round: $variant"
        BENCH_LEDGER_MAX=1000 LD_LIBRARY_PATH="$dir" "$work/bench_ledger" "$dir/libgatekit.so" |
            grep -E '^### Ingestion|^\| (ceiling: verification alone \(|reference|\*\*ledger_ingest_[a-z]+, (one call|ledger_ingest_batch, 100))'
        BENCH_POSTGRES_PART=ingestion LD_LIBRARY_PATH="$dir" "$work/bench_postgres"
    done
done
