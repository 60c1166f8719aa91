#!/usr/bin/env bash
# One list of C functions, three places that must agree with it: the header declares them, the
# version script (Sources/GateKit/exports.map) exports exactly them, the library exports exactly
# them, and Sources/GateKit/HeaderConformance.swift type-checks each export against its
# declaration (a mismatch there fails the build). Any disagreement fails this check. It also
# checks that the libraries GateKit opens on first use stay unlinked.
set -euo pipefail
lib=$1 header=$2
root=$(cd "$(dirname "$0")/.." && pwd)
declared=$(grep -hE '^GATEKIT_API' "$header" "$(dirname "$header")"/gatekit/*.h | sed -E 's/\(.*//; s/.*[ *]([A-Za-z_][A-Za-z0-9_]*)$/\1/' | sort)
exported=$(nm -D -g --defined-only "$lib" | awk '$2 ~ /^[TW]$/ {print $3}' | sort)
mapped=$(sed -n '/global:/,/local:/p' "$root/Sources/GateKit/exports.map" | grep -E '^\s+[A-Za-z_][A-Za-z0-9_]*;' | tr -d ' ;' | sort)
checked=$(sed -nE 's/^    exactly\(.*type\(of: ([A-Za-z_][A-Za-z0-9_]*)\)\)$/\1/p' "$root/Sources/GateKit/HeaderConformance.swift" | sort)
status=0
compare() {
    if [ "$declared" != "$2" ]; then
        echo "check-exports: include/gatekit.h and $1 disagree:" >&2
        diff <(echo "$declared") <(echo "$2") | sed "s/^</  only in the header:/; s/^>/  only in $1:/" | grep only >&2
        status=1
    fi
}
compare "the library's exports" "$exported"
compare "exports.map" "$mapped"
compare "HeaderConformance.swift" "$checked"
if grep -qE '^\s+[A-Za-z_]*\*;' <(sed -n '/global:/,/local:/p' "$root/Sources/GateKit/exports.map"); then
    echo "check-exports: exports.map uses a glob; list each symbol" >&2
    status=1
fi
# The libraries loaded with dlopen on first use (SQLite, libpq, libdbus, libcurl) are never
# linked: a symbol of theirs left undefined would only fail at run time, in the host.
lazy=$(nm -D --undefined-only "$lib" | awk '{print $2}' | grep -E '^(sqlite3_|PQ|dbus_|curl_)' || true)
if [ -n "$lazy" ]; then
    echo "check-exports: $lib imports symbols of a library it loads with dlopen:" $lazy >&2
    status=1
fi
if readelf -d "$lib" | grep -qE 'NEEDED.*(sqlite|libpq|dbus|curl)'; then
    echo "check-exports: $lib links a library it loads with dlopen" >&2
    status=1
fi
if [ $status -ne 0 ]; then echo "exports: 0 passed, 1 failed"; exit 1; fi
echo "exports: $(echo "$declared" | wc -l) functions: header, exports.map, library and HeaderConformance.swift agree; no lazily loaded library is linked"
echo "exports: 1 passed, 0 failed"
