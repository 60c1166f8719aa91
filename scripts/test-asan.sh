#!/usr/bin/env bash
# make test-asan: the library built with AddressSanitizer, the C tests and the gatekit tool
# built with -fsanitize=address,undefined against it, then pytest on the same library.
#
# - Swift 6.3 on Linux rejects -sanitize=undefined for Swift code ("unsupported option");
#   Swift's own checks (bounds, overflow, nil) already trap where C would have UB, so the
#   Swift library gets ASan and the C side (tests, tool) gets ASan + UBSan.
# - Every C program uses the shared ASan runtime (-shared-libasan) so that pytest can
#   LD_PRELOAD the same runtime into Python and into the tool it spawns.
# - Leak detection (LSan) is ON for the C tests and the tool: a leak fails them.
#   It is OFF inside Python: CPython deliberately never frees interned objects and module
#   state at exit, so LSan would report thousands of interpreter "leaks" unrelated to
#   GateKit. Leaks through the C ABI are covered by the C tests here, make test-valgrind
#   and the RSS soak (bench/soak.c).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=.build-asan
OUT=.build/asan
CLANG=${ASAN_CLANG:-$(dirname "$(readlink -f "$(command -v swift)")")/clang}
RT_DIR=$(dirname "$("$CLANG" -print-file-name=libclang_rt.asan-x86_64.so)")
ASAN_RT=$RT_DIR/libclang_rt.asan-x86_64.so
[[ -f "$ASAN_RT" ]] || { echo "test-asan: no ASan runtime at $ASAN_RT"; exit 1; }

echo "== swift build -Xswiftc -sanitize=address --scratch-path $SCRATCH"
swift build --product gatekit -Xswiftc -sanitize=address --scratch-path "$SCRATCH" 2>&1 | grep -E "error|warning: |Compiling|Build" | tail -3
LIB_DIR=$PWD/$SCRATCH/debug
ln -sfn libgatekit.so "$LIB_DIR/libgatekit.so.0"

CFLAGS=(-std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g
        -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
        -shared-libasan -fuse-ld=lld -pthread -Iinclude)
LDFLAGS=(-L"$LIB_DIR" -Wl,-rpath,"$LIB_DIR" -Wl,-rpath,"$RT_DIR" -lgatekit)
mkdir -p "$OUT/tests"
"$CLANG" "${CFLAGS[@]}" -o "$OUT/gatekit" tools/gatekit/*.c "${LDFLAGS[@]}"
for src in Tests/c/test_*.c; do
    "$CLANG" "${CFLAGS[@]}" -o "$OUT/tests/$(basename "$src" .c)" "$src" "${LDFLAGS[@]}"
done

export SWIFT_BACKTRACE=enable=no
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export GATEKIT_TOOL=$PWD/$OUT/gatekit
export GATEKIT_LIBRARY=$LIB_DIR/libgatekit.so
export GATEKIT_SANITIZER=asan   # tests may shorten loads that are slow under ASan
export LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp:print_suppressions=0  # also for the tool the tests spawn
failed=0
for t in "$OUT"/tests/test_*; do
    echo "== $t (ASan+UBSan, leaks checked)"
    ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_string_checks=1 "$t" || failed=1
done

# Tests that compile a C example with `cc` get clang with the same sanitizers (the library
# needs the ASan runtime): a cc wrapper first on PATH.
mkdir -p "$OUT/bin"
printf '#!/bin/sh\nexec "%s" -fsanitize=address,undefined -shared-libasan -fuse-ld=lld -Wl,-rpath,"%s" "$@"\n' "$CLANG" "$RT_DIR" > "$OUT/bin/cc"
chmod +x "$OUT/bin/cc"
echo "== pytest with $ASAN_RT preloaded (leak checking off in Python, see above)"
(cd python && PATH=$PWD/../$OUT/bin:$PATH LD_PRELOAD=$ASAN_RT ASAN_OPTIONS=detect_leaks=0 python3 -m pytest -q -p no:cacheprovider tests) || failed=1
[[ $failed -eq 0 ]] && echo "test-asan: all passed" || { echo "test-asan: FAILED"; exit 1; }
