#!/usr/bin/env bash
# Installs the Debian packages GateKit builds and tests with, when they are missing.
# As root it installs them; otherwise it names what is missing and fails.
set -euo pipefail
# libpq-dev: the PostgreSQL store; postgresql: the real server its tests start; pgbouncer: the
# pooler the store must refuse (python/tests/test_postgres_hardening.py).
# libdbus-1-dev: the desktop permission store; dbus-daemon, xdg-desktop-portal (its
# xdg-permission-store) and libglib2.0-bin (gdbus): the private desktop session its tests start.
# libcurl4-openssl-dev: the App Store Server API client (HTTPS on the OpenSSL GateKit already uses).
# dpkg-dev (dpkg-shlibdeps), patchelf and unzip: make deb and make wheel, and their test.
# chromium and chromium-driver: the ledger report's browser test (python/tests/test_report_browser.py).
# debootstrap: examples/Containerfile's base, built without an engine (scripts/test-container-recipe.py).
# valgrind: the launch order's callgrind (scripts/launch-order.py, tested in python/tests/test_docs.py).
packages=(libssl-dev libsqlite3-dev libpq-dev libcurl4-openssl-dev postgresql pgbouncer libdbus-1-dev dbus-daemon xdg-desktop-portal libglib2.0-bin
          pkg-config openssl dpkg-dev patchelf unzip chromium chromium-driver debootstrap valgrind "$@")
missing=()
for p in "${packages[@]}"; do
    [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == "install ok installed" ]] || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
    exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
