#!/usr/bin/env bash
# `make bench`: builds every bench/bench_*.c against the toolchain-free release library,
# runs it, then every bench/bench_*.py; prints Markdown and keeps it in .build/bench/results.md.
# BENCH=name (e.g. BENCH=ledger) runs only bench/bench_name.c and bench/bench_name.py.
set -euo pipefail
lib=$(realpath "$1")
libdir=$(dirname "$lib")
out=.build/bench
mkdir -p "$out"
flags="$(pkg-config --define-variable=libdir="$libdir" --cflags --libs gatekit) $(pkg-config --cflags --libs dbus-1)"
{
    echo "# make bench — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
    for src in bench/bench_${BENCH:-*}.c; do
        [ -e "$src" ] || continue
        name=$(basename "$src" .c)
        cc -std=c11 -O2 -D_GNU_SOURCE -Ibench -o "$out/$name" "$src" $flags -lcrypto -lssl -lsqlite3 -lpq -lcurl -ldl -lpthread
        "$out/$name" "$lib"
    done
    for src in bench/bench_${BENCH:-*}.py; do
        [ -e "$src" ] || continue
        GATEKIT_LIBRARY="$lib" PYTHONPATH=python "${PYTHON:-python3}" "$src" "$lib"
    done
} | tee "$out/results.md"
