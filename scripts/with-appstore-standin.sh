#!/usr/bin/env bash
# Runs a command with the local HTTPS stand-in of the App Store Server API listening on
# loopback (Tests/standin/appstore_api_standin.py: own CA, own API key, Apple's documented
# answers, every request checked). The command sees GATEKIT_TEST_APPSTORE_* (URL, CA, key,
# key id, issuer, bundle id, environment, test anchor, request log).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
dir=$(mktemp -d /tmp/gatekit-appstore.XXXXXX)
"$python" "$root/Tests/standin/appstore_api_standin.py" "$dir/standin" 2>"$dir/standin.log" &
standin=$!
stop() { kill "$standin" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"; }
trap stop EXIT
for _ in $(seq 300); do
    [ -s "$dir/standin/env" ] && break
    kill -0 "$standin" 2>/dev/null || { echo "with-appstore-standin: the stand-in did not start:" >&2; cat "$dir/standin.log" >&2; exit 1; }
    sleep 0.05
done
[ -s "$dir/standin/env" ] || { echo "with-appstore-standin: the stand-in did not start within 15 s" >&2; cat "$dir/standin.log" >&2; exit 1; }
# shellcheck disable=SC1091
. "$dir/standin/env"
"$@"
