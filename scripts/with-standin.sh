#!/usr/bin/env bash
# Runs a command with one of the local HTTPS stand-ins listening on loopback (the tests' own,
# Tests/standin/<NAME>_standin.py, or one the package ships, `python -m gatekit.standin.<NAME>`):
# the stand-in writes its settings as shell assignments into DIR/env, which the command sees in
# its environment. Stopped, and its folder removed, on exit.
#   scripts/with-standin.sh NAME COMMAND...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=$1
shift
python=${PYTHON:-python3}
dir=$(mktemp -d "/tmp/gatekit-$name.XXXXXX")
if [ -e "$root/Tests/standin/${name}_standin.py" ]; then
    "$python" "$root/Tests/standin/${name}_standin.py" "$dir/standin" 2>"$dir/standin.log" &
else
    PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" "$python" -m "gatekit.standin.$name" "$dir/standin" 2>"$dir/standin.log" &
fi
standin=$!
stop() { kill "$standin" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"; }
trap stop EXIT
for _ in $(seq 300); do
    [ -s "$dir/standin/env" ] && break
    kill -0 "$standin" 2>/dev/null || { echo "with-standin: the $name stand-in did not start:" >&2; cat "$dir/standin.log" >&2; exit 1; }
    sleep 0.05
done
[ -s "$dir/standin/env" ] || { echo "with-standin: the $name stand-in did not start within 15 s" >&2; cat "$dir/standin.log" >&2; exit 1; }
# shellcheck disable=SC1091
. "$dir/standin/env"
"$@"
