#!/usr/bin/env bash
# Builds the libFuzzer binary: the core's sources (every layer of Sources/GateKitCore) plus
# Fuzz/Targets/*.swift compiled as one module (the layers' imports of each other are dropped:
# here they are one module) with -sanitize=fuzzer,address (coverage + ASan), linked against OpenSSL and
# SQLite (libpq, libdbus and libcurl are loaded at run time, as in the library). Kept out of Package.swift so `swift build` and `swift test` never pay for it.
#   Fuzz/build.sh [OUTPUT]   (default .build/fuzz/gatekit-fuzz; FUZZ_OPT=-Onone for a quicker build)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/fuzz/gatekit-fuzz}
mkdir -p "$(dirname "$out")"
swiftc=${SWIFTC:-$(command -v swiftc)}
work=$(dirname "$out")/sources
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
sources=()
while IFS= read -r f; do
    copy="$work/$(echo "$f" | tr / _)"
    sed -E '/^(@testable )?import GateKit[A-Za-z]+$/d' "$f" > "$copy"
    sources+=("$copy")
done < <(find Sources/GateKitCore Fuzz/Targets -name '*.swift' | sort)
# -O (FUZZ_OPT): libFuzzer wants speed; Swift's own checks (bounds, overflow) stay on in -O.
# `make test`'s smoke builds with -Onone: a third of the build for seconds of fuzzing. Whole-module
# with two LLVM threads: one type-check of the module instead of one per batch of files (the
# build took 4 minutes of `make test` in batch mode, 2 this way).
# Run from the output's folder: the threaded whole-module build leaves its module files
# (GateKitFuzz-1.swiftmodule, …) in the working folder, which must not be the checkout.
root=$PWD
outdir=$(cd "$(dirname "$out")" && pwd)
(cd "$outdir" && "$swiftc" -swift-version 6 "${FUZZ_OPT:--O}" -g -parse-as-library -module-name GateKitFuzz -package-name gatekit \
    -sanitize=fuzzer,address -use-ld=lld -wmo -num-threads 2 \
    -I "$root/Sources/COpenSSL" -I "$root/Sources/CSQLite" -I "$root/Sources/CPostgres" -I "$root/Sources/CDBus" -I "$root/Sources/CCurl" \
     $(pkg-config --cflags-only-I libcrypto sqlite3 dbus-1 libcurl | sed 's/-I/-Xcc -I/g') \
    -lcrypto -lsqlite3 \
    "${sources[@]}" -o "$outdir/$(basename "$out")")
echo "built $out (${#sources[@]} Swift files)"
