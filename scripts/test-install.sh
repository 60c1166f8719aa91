#!/usr/bin/env bash
# `make install` yields a toolchain-free library that an installed C host and Python use
# with no Swift toolchain on any library path.
set -uo pipefail
prefix=$1
passed=0 failed=0
ok()   { passed=$((passed + 1)); echo "  ok: $1"; }
fail() { failed=$((failed + 1)); echo "  FAILED: $1" >&2; }
check() { local what=$1; shift; if "$@" >/dev/null 2>&1; then ok "$what"; else fail "$what"; fi; }

lib="$prefix/lib/libgatekit.so.0"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check "libgatekit.so.0 and the libgatekit.so link are installed" test -f "$lib" -a -L "$prefix/lib/libgatekit.so"
check "the SONAME is libgatekit.so.0" bash -c "readelf -d '$lib' | grep -q 'SONAME.*\[libgatekit.so.0\]'"
lib_ldd=$(ldd "$lib")
if grep -q libswift <<<"$lib_ldd"; then fail "ldd shows no libswift* ($(grep -c libswift <<<"$lib_ldd") found)"; else ok "ldd shows no libswift*"; fi
# A launch check loads libcrypto and nothing else: the C++ runtime is linked in, SQLite, libpq,
# libdbus and libcurl are opened on first use.
others=$(awk '{print $1}' <<<"$lib_ldd" | grep -vE '^(linux-vdso|/lib64/ld-linux|libc\.so|libm\.so|libcrypto\.so)' || true)
if [ -z "$others" ]; then ok "the library loads libcrypto, libm and libc only"; else fail "the library also loads: $(echo $others)"; fi
check "the header and pkg-config file are installed" test -f "$prefix/include/gatekit.h" -a -f "$prefix/include/gatekit/ledger.h" -a -f "$prefix/lib/pkgconfig/gatekit.pc"
check "gatekit(1) and the bash completion are installed" test -s "$prefix/share/man/man1/gatekit.1" -a -s "$prefix/share/bash-completion/completions/gatekit"

# A C host built from the installed pkg-config file, run with a clean environment: no
# LD_LIBRARY_PATH, no toolchain on PATH.
if PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc -std=c11 -Wall -Werror -o "$work/hello_eula" examples/hello_eula.c \
        $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs gatekit); then
    ok "examples/hello_eula.c builds against the installed gatekit.pc"
    printf 'Terms\n' > "$work/EULA.txt"
    run() { env -i PATH=/usr/bin:/bin HOME="$work" GATEKIT_STORE="$work/store.sqlite" "$@"; }
    run "$work/hello_eula" "$work/EULA.txt"; first=$?
    run "$work/hello_eula" "$work/EULA.txt" --accept; second=$?
    run "$work/hello_eula" "$work/EULA.txt"; third=$?
    if [ "$first.$second.$third" = "3.0.0" ]; then ok "the installed host gates a EULA (3, 0, 0)"; else fail "the installed host exited $first, $second, $third; expected 3, 0, 0"; fi
    # Captured first: `grep -q` closing the pipe early would fail the pipeline under pipefail.
    host_ldd=$(env -i PATH=/usr/bin:/bin ldd "$work/hello_eula")
    if grep -q "libgatekit.so.0 => $prefix/lib/" <<<"$host_ldd"; then ok "the host resolves libgatekit from the prefix"; else fail "the host does not resolve libgatekit from $prefix"; fi
    if grep -q libswift <<<"$host_ldd"; then fail "the host pulls in libswift*"; else ok "the host's ldd shows no libswift*"; fi
else
    fail "examples/hello_eula.c builds against the installed gatekit.pc"
fi

check "the installed gatekit tool runs" env -i PATH=/usr/bin:/bin "$prefix/bin/gatekit" version

site=$(ls -d "$prefix"/lib/python3*/site-packages 2>/dev/null | head -n 1)
if [ -n "$site" ] && out=$(env -i PATH=/usr/bin:/bin HOME="$work" PYTHONPATH="$site" "${PYTHON:-python3}" -c \
        'import gatekit; print(gatekit.library_path()); print(gatekit.hash_bytes(b"abc"))' 2>&1); then
    case "$out" in
        "$site/gatekit/libgatekit.so.0"*ba7816bf*) ok "the installed Python package loads the installed library" ;;
        *) fail "the installed Python package loaded: $out" ;;
    esac
else
    fail "the installed Python package imports (${out:-no site-packages under $prefix/lib})"
fi

echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
