#!/usr/bin/env bash
# The library exports exactly the symbols packaging/debian/libgatekit0.symbols lists: Debian's
# dpkg-gensymbols at check level 4 fails on any symbol added or removed (an ABI change must
# say so in that file, with the version that brings it).
#   scripts/check-symbols.sh LIB [OUT]   OUT: where to write the package's symbols file
set -euo pipefail
trap 'echo "check-symbols: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
lib=$(realpath "$1")
out=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^#define GATEKIT_VERSION_STRING "\(.*\)"/\1/p' "$root/include/gatekit/common.h")
work=$(mktemp -d /tmp/gatekit-symbols.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
printf 'Source: gatekit\n\nPackage: libgatekit0\nArchitecture: any\n' > "$work/debian/control"
grep -v '^#' "$root/packaging/debian/libgatekit0.symbols" > "$work/reference.symbols"
# stdin from /dev/null: dpkg-gensymbols otherwise waits on a terminal that is not there.
if ! (cd "$work" && dpkg-gensymbols -plibgatekit0 -v"$version" -e"$lib" -I"$work/reference.symbols" -O"$work/symbols" -c4 \
      </dev/null >"$work/log" 2>&1); then
    echo "check-symbols: $lib does not export what packaging/debian/libgatekit0.symbols lists:" >&2
    grep -E '^[-+] ' "$work/log" >&2 || cat "$work/log" >&2
    exit 1
fi
[ -z "$out" ] || cp "$work/symbols" "$out"
echo "check-symbols: $(grep -c '@Base' "$work/symbols") symbols, as packaging/debian/libgatekit0.symbols lists"
