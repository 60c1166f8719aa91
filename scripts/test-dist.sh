#!/usr/bin/env bash
# make test-dist: what `make wheel` and `make deb` built, installed as a user would.
#  - The wheel: a fresh virtualenv, `pip install` of the wheel alone with a clean environment
#    (env -i: no PYTHONPATH, no GATEKIT_LIBRARY, no Swift toolchain on PATH), then every README
#    Python program (the pytest tests marked "example") run by that virtualenv's interpreter.
#  - The .debs (as root, where apt-get works): `apt-get install ./dist/*.deb`, the README C
#    program compiled with plain `pkg-config --cflags --libs gatekit` and run, the tool and its
#    man page, then `apt-get remove --purge` and nothing of the packages left behind.
#   scripts/test-dist.sh DIST
set -uo pipefail
dist=$(realpath "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
passed=0 failed=0
ok()   { passed=$((passed + 1)); echo "  ok: $1"; }
fail() { failed=$((failed + 1)); echo "  FAILED: $1" >&2; }
work=$(mktemp -d /tmp/gatekit-dist.XXXXXX)
trap 'rm -rf "$work"' EXIT
clean=(env -i PATH=/usr/bin:/bin HOME="$work" LANG=C.UTF-8)

echo "== the wheel"
wheel=$(ls "$dist"/libgatekit-*.whl 2>/dev/null | head -n 1)
if [ -z "$wheel" ]; then
    fail "a libgatekit wheel in $dist (make wheel)"
else
    case "$(basename "$wheel")" in
        *-py3-none-manylinux_*) ok "the wheel is a platform wheel for any CPython 3: $(basename "$wheel")" ;;
        *) fail "the wheel's tags: $(basename "$wheel")" ;;
    esac
    # glibc 2.35 (Ubuntu 22.04) and newer: the static C++ runtime must not raise the policy.
    glibc_minor=$(basename "$wheel" | sed -n 's/.*manylinux_2_\([0-9]*\)_.*/\1/p')
    if [ -n "$glibc_minor" ] && [ "$glibc_minor" -le 35 ]; then ok "the wheel installs on glibc 2.$glibc_minor and newer"; else fail "the wheel needs glibc 2.${glibc_minor:-?} (more than 2.35)"; fi
    "$python" -c 'import sys, venv; venv.create(sys.argv[1], with_pip=True)' "$work/venv"
    if "${clean[@]}" sh -c 'command -v swift' >/dev/null 2>&1; then fail "no Swift toolchain on the clean PATH"; else ok "no Swift toolchain on the clean PATH"; fi
    if "${clean[@]}" "$work/venv/bin/python" -m pip install -q --no-index --disable-pip-version-check "$wheel"; then
        ok "pip install of the wheel alone, offline, in a fresh virtualenv"
    else
        fail "pip install of the wheel"
    fi
    loaded=$("${clean[@]}" "$work/venv/bin/python" -c 'import gatekit; print(gatekit.library_path()); print(gatekit.__version__, gatekit.version())' 2>&1)
    case "$loaded" in
        "$work"/venv/lib/python3*/site-packages/gatekit/libgatekit.so.0*) ok "import gatekit loads the wheel's own library" ;;
        *) fail "import gatekit from the wheel: $loaded" ;;
    esac
    lib=$(head -n 1 <<<"$loaded")
    if [ -f "$lib" ] && ! ldd "$lib" | grep -q libswift; then ok "the wheel's library needs no Swift runtime"; else fail "the wheel's library: $(ldd "$lib" 2>&1 | grep libswift)"; fi
    # SQLite is opened on the first store open: from the wheel itself, not from the system.
    mapped=$("${clean[@]}" "$work/venv/bin/python" -c 'import sys, gatekit
with gatekit.Store(sys.argv[1]) as s:
    s.eula.accept("terms", gatekit.hash_bytes(b"v1"))
print("".join(l for l in open("/proc/self/maps") if "libsqlite3" in l))' "$work/wheel-store.sqlite" 2>&1)
    case "$mapped" in
        *"$work"/venv/lib/python3*/site-packages/gatekit/libsqlite3.so.0*) ok "a store opened from the wheel uses the wheel's own libsqlite3" ;;
        *) fail "the wheel's store: $mapped" ;;
    esac
    # The tool rides in the wheel (gatekit/bin/gatekit behind the `gatekit` command), on the
    # wheel's own library: a pip-only user runs the docs' shell commands.
    tool=$("${clean[@]}" "$work/venv/bin/gatekit" --version 2>&1); code=$?
    # The library the tool's loader resolves (through its $ORIGIN/.. run path), as a real path.
    linked=$(ldd "$work"/venv/lib/python3*/site-packages/gatekit/bin/gatekit 2>&1 | awk '$1 == "libgatekit.so.0" {print $3}')
    linked=$(realpath -e "$linked" 2>/dev/null || echo "not found: $linked")
    if [ "$code" = 0 ] && [[ "$tool" == "gatekit "* ]] && [[ "$linked" == "$work"/venv/lib/python3*/site-packages/gatekit/libgatekit.so.0 ]]; then
        ok "the wheel's gatekit command runs its tool on the wheel's library: $tool"
    else
        fail "the wheel's gatekit command: exit $code, $tool; $linked"
    fi
    # The Play stand-in rides in the wheel too (`libgatekit[standin]` adds the cryptography
    # package it needs; here the interpreter's own, through system site packages, offline):
    # served from the wheel, the wheel's tool asks it for a purchase it does not have.
    "$python" -c 'import sys, venv; venv.create(sys.argv[1], with_pip=True, system_site_packages=True)' "$work/standin-venv"
    "${clean[@]}" "$work/standin-venv/bin/python" -m pip install -q --no-index --disable-pip-version-check "$wheel"
    "${clean[@]}" "$work/standin-venv/bin/python" -m gatekit.standin.play "$work/play-standin" 2>"$work/play-standin.log" &
    standin=$!
    for _ in $(seq 300); do [ -s "$work/play-standin/env" ] || ! kill -0 "$standin" 2>/dev/null && break; sleep 0.05; done
    asked=$(. "$work/play-standin/env" 2>/dev/null && "${clean[@]}" "$work/standin-venv/bin/gatekit" play subscription no-such-token --package "$GATEKIT_TEST_PLAY_PACKAGE" \
        --service-account "$GATEKIT_TEST_PLAY_SERVICE_ACCOUNT" --base-url "$GATEKIT_TEST_PLAY_URL" --ca-file "$GATEKIT_TEST_PLAY_CA" 2>&1)
    kill "$standin" 2>/dev/null; wait "$standin" 2>/dev/null
    if grep -q notFound <<<"$asked" && [[ "$(head -c 300 "$work/play-standin/requests.jsonl" 2>/dev/null)" == *androidpublisher* ]]; then
        ok "python -m gatekit.standin.play from the wheel serves the wheel's tool (Google's notFound, the request logged)"
    else
        fail "the wheel's Play stand-in: $asked $(tail -3 "$work/play-standin.log" 2>/dev/null)"
    fi
    # And the Stripe stand-in: the wheel's tool reads its subscription with its test key.
    "${clean[@]}" "$work/standin-venv/bin/python" -m gatekit.standin.stripe "$work/stripe-standin" 2>"$work/stripe-standin.log" &
    standin=$!
    for _ in $(seq 300); do [ -s "$work/stripe-standin/env" ] || ! kill -0 "$standin" 2>/dev/null && break; sleep 0.05; done
    asked=$(. "$work/stripe-standin/env" 2>/dev/null && "${clean[@]}" "$work/standin-venv/bin/gatekit" stripe get /v1/subscriptions/sub_standin \
        --api-key-file "$GATEKIT_TEST_STRIPE_KEY_FILE" --base-url "$GATEKIT_TEST_STRIPE_URL" --ca-file "$GATEKIT_TEST_STRIPE_CA" 2>&1)
    kill "$standin" 2>/dev/null; wait "$standin" 2>/dev/null
    if grep -q '"id": "sub_standin"' <<<"$asked" && grep -q '"version": "2026-06-24.dahlia"' "$work/stripe-standin/requests.jsonl" 2>/dev/null; then
        ok "python -m gatekit.standin.stripe from the wheel serves the wheel's tool (its subscription, the pinned version logged)"
    else
        fail "the wheel's Stripe stand-in: $asked $(tail -3 "$work/stripe-standin.log" 2>/dev/null)"
    fi
    meta=$(unzip -p "$wheel" '*.dist-info/METADATA')
    if grep -q '^Name: libgatekit' <<<"$meta" && grep -qE '^License(-Expression)?: MIT' <<<"$meta" && grep -q '^Requires-Python: >=3.9' <<<"$meta" &&
       grep -q '^Classifier: ' <<<"$meta" && grep -q '^Provides-Extra: standin' <<<"$meta" &&
       grep -qE "^Requires-Dist: cryptography.*extra == .standin." <<<"$meta"; then
        ok "the wheel's metadata: name, licence, Python versions, classifiers, the standin extra"
    else
        fail "the wheel's metadata"
    fi
    if (cd "$root/python" && GATEKIT_EXAMPLE_PYTHON="$work/venv/bin/python" "$python" -m pytest -q -m example -p no:cacheprovider tests); then
        ok "every README Python program, run by the wheel's virtualenv"
    else
        fail "the README Python programs from the wheel"
    fi
fi

echo "== the binding alone (pip install ./python)"
before=$(cd "$root" && git status --porcelain --ignored python/ 2>/dev/null)
# With the build tools `make wheel` keeps in their own virtualenv (scripts/build-wheel.sh).
tools_python="$root/.build/wheel-tools/bin/python"
if "$tools_python" -m pip wheel -q --no-deps --no-build-isolation --disable-pip-version-check -w "$work/binding" "$root/python" >/dev/null 2>&1; then
    after=$(cd "$root" && git status --porcelain --ignored python/ 2>/dev/null)
    if [ "$before" = "$after" ]; then ok "building from python/ writes nothing into it (no build/, no *.egg-info)"; else fail "building from python/ left: $(diff <(echo "$before") <(echo "$after") | tail -3)"; fi
    "$python" -c 'import sys, venv; venv.create(sys.argv[1], with_pip=True)' "$work/binding-venv"
    "${clean[@]}" "$work/binding-venv/bin/python" -m pip install -q --no-index --disable-pip-version-check "$work"/binding/*.whl
    message=$("${clean[@]}" "$work/binding-venv/bin/python" -c 'import gatekit; print(gatekit._native.library_path)' 2>&1)
    loader_cache=$(ldconfig -p)
    if grep -q "libgatekit.so.0 " <<<"$loader_cache"; then
        # A libgatekit0 installed system-wide (this machine has one): the binding alone finds it.
        if [ "$message" = libgatekit.so.0 ]; then ok "the binding alone loads the system's libgatekit0 (installed here)"; else fail "the binding alone with a system libgatekit0: $(tail -3 <<<"$message")"; fi
    elif grep -q "pip install libgatekit" <<<"$message" && grep -q "apt-get install libgatekit0" <<<"$message"; then
        ok "without a library, import gatekit says how to install one"
    else
        fail "the ImportError without a library: $(tail -3 <<<"$message")"
    fi
else
    fail "pip wheel ./python"
fi

echo "== the Debian packages"
debs=("$dist"/libgatekit0_*.deb "$dist"/libgatekit-dev_*.deb "$dist"/gatekit-tools_*.deb)
# SQLite is opened with dlopen (no ELF reference for dpkg-shlibdeps to find): named by hand.
if [ -f "${debs[0]}" ] && dpkg-deb -f "${debs[0]}" Depends | grep -q 'libsqlite3-0'; then
    ok "libgatekit0 depends on libsqlite3-0: $(dpkg-deb -f "${debs[0]}" Depends)"
else
    fail "libgatekit0's Depends lacks libsqlite3-0"
fi
# Debian's metadata: a maintainer with an address, the changelog, the ABI as a symbols file.
for deb in "${debs[@]}"; do
    name=$(basename "$deb" | cut -d_ -f1)
    if dpkg-deb -f "$deb" Maintainer | grep -qE '^[^<]+ <[^@ ]+@[^> ]+\.[a-z]+>$' && ! dpkg-deb -f "$deb" Maintainer | grep -q localhost; then
        ok "$name: Maintainer $(dpkg-deb -f "$deb" Maintainer)"
    else
        fail "$name: Maintainer '$(dpkg-deb -f "$deb" Maintainer)'"
    fi
    if dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./usr/share/doc/$name/changelog.Debian.gz" | gzip -dc |
        dpkg-parsechangelog -l - -SVersion | grep -qx "$(dpkg-deb -f "$deb" Version)"; then
        ok "$name: changelog.Debian.gz, newest entry $(dpkg-deb -f "$deb" Version)"
    else
        fail "$name: changelog.Debian.gz missing or not for $(dpkg-deb -f "$deb" Version)"
    fi
done
symbols=$(dpkg-deb --ctrl-tarfile "${debs[0]}" | tar -xOf - ./symbols 2>/dev/null | grep -c '@Base' || true)
listed=$(grep -c '@Base' "$root/packaging/debian/libgatekit0.symbols")
if [ "$symbols" = "$listed" ]; then ok "libgatekit0's symbols file: $symbols symbols"; else fail "libgatekit0's symbols file has $symbols symbols; packaging/debian lists $listed"; fi
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: installing the .debs needs root (apt-get); CI runs as root"
elif [ ! -f "${debs[0]}" ] || [ ! -f "${debs[1]}" ] || [ ! -f "${debs[2]}" ]; then
    fail "libgatekit0, libgatekit-dev and gatekit-tools in $dist (make deb)"
else
    apt-get remove -y -q --purge libgatekit0 libgatekit-dev gatekit-tools >/dev/null 2>&1
    if apt-get install -y -q "${debs[@]}" >"$work/apt-install.log" 2>&1; then ok "apt-get install ./libgatekit0 ./libgatekit-dev ./gatekit-tools"; else fail "apt-get install: $(tail -3 "$work/apt-install.log")"; fi
    cp "$root/examples/hello_eula.c" "$work/"
    if (cd "$work" && "${clean[@]}" sh -c 'cc -std=c11 -Wall -Werror -o hello_eula hello_eula.c $(pkg-config --cflags --libs gatekit)'); then
        ok "the README C program builds with plain pkg-config --cflags --libs gatekit"
        printf 'Terms\n' > "$work/EULA.txt"
        store=(GATEKIT_STORE="$work/store.sqlite")
        "${clean[@]}" "${store[@]}" "$work/hello_eula" "$work/EULA.txt" >/dev/null; first=$?
        "${clean[@]}" "${store[@]}" "$work/hello_eula" "$work/EULA.txt" --accept >/dev/null; second=$?
        "${clean[@]}" "${store[@]}" "$work/hello_eula" "$work/EULA.txt" >/dev/null; third=$?
        if [ "$first.$second.$third" = "3.0.0" ]; then ok "it gates a EULA (3, 0, 0)"; else fail "it exited $first, $second, $third; expected 3, 0, 0"; fi
        if "${clean[@]}" ldd "$work/hello_eula" | grep -qE "libgatekit.so.0 => (/usr)?/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/"; then ok "it finds libgatekit.so.0 in the system folders, no rpath"; else fail "the host's ldd"; fi
    else
        fail "the README C program with plain pkg-config"
    fi
    if "${clean[@]}" gatekit --version | grep -q "^gatekit "; then ok "gatekit is on the PATH"; else fail "gatekit --version"; fi
    # The README's Start here, block by block as written (scripts/doc_blocks.py): pip and
    # python3 are the wheel's virtualenv's, the rest the installed packages.
    if [ -x "$work/venv/bin/python" ]; then
        mkdir -p "$work/start/home"
        ln -s "$dist" "$work/start/dist"
        ln -s "$root/examples" "$work/start/examples"
        if env -i PATH="$work/venv/bin:/usr/bin:/bin" HOME="$work/start/home" LANG=C.UTF-8 \
            "$work/venv/bin/python" "$root/scripts/doc_blocks.py" "$work/start" dist; then
            answer=$(cd "$work/start" && env -i HOME="$work/start/home" "$work/venv/bin/python" -c 'import gatekit; print(gatekit.Store(app_id="com.example.app").eula.should_present("terms", "EULA.txt"))')
            if [ "$answer" = False ]; then ok "README Start here: Python, C and the tool share one store (Python now: $answer)"; else fail "README Start here: Python answers $answer after the C acceptance"; fi
        else
            fail "README Start here, run as written"
        fi
    else
        fail "README Start here needs the wheel's virtualenv (make wheel)"
    fi
    status=$(cd "$work" && "${clean[@]}" GATEKIT_STORE="$work/tool.sqlite" gatekit eula status --doc terms --file EULA.txt); code=$?
    if [ "$code" = 3 ] && [[ "$status" == present* ]]; then ok "the README's gatekit eula status: exit 3, $status"; else fail "gatekit eula status: exit $code, $status"; fi
    if [ -s /usr/share/man/man1/gatekit.1.gz ] && [ -s /usr/share/bash-completion/completions/gatekit ]; then ok "gatekit(1) and the bash completion"; else fail "gatekit(1) and the completion"; fi
    files=$(for d in "${debs[@]}"; do dpkg-deb -c "$d" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$'; done)
    apt-get remove -y -q --purge libgatekit0 libgatekit-dev gatekit-tools >"$work/apt-remove.log" 2>&1
    left=$(for f in $files; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done)
    installed=$(dpkg-query -W -f '${Package} ${Status}\n' libgatekit0 libgatekit-dev gatekit-tools 2>/dev/null | grep -v 'not-installed' || true)
    if [ -z "$left" ] && [ -z "$installed" ]; then ok "apt-get remove --purge leaves nothing behind ($(wc -w <<<"$files") files gone)"; else fail "left behind: $left $installed"; fi
fi

echo "dist: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
