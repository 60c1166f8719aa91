#!/usr/bin/env bash
# Runs a command inside a private desktop session: a session bus of its own (dbus-daemon with a
# configuration that activates nothing) and the real xdg-permission-store (Debian's
# xdg-desktop-portal) on it, for benchmarks of the portal provider. The command sees
# DBUS_SESSION_BUS_ADDRESS. (python/tests/desktop.py does the same per test.)
set -euo pipefail
store=/usr/libexec/xdg-permission-store
command -v dbus-daemon >/dev/null && [ -x "$store" ] || { echo "with-desktop-session: needs dbus-daemon and xdg-desktop-portal (scripts/install-deps.sh)" >&2; exit 1; }
dir=$(mktemp -d /tmp/gatekit-desktop.XXXXXX)
mkdir "$dir/bus" "$dir/data"
cat > "$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir=$dir/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
CONF
dbus-daemon --config-file="$dir/bus.conf" --nofork --print-address=3 3>"$dir/address" 2>"$dir/bus.log" &
daemon=$!
stop() { kill "${permstore:-}" "$daemon" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"; }
trap stop EXIT
for _ in $(seq 100); do [ -s "$dir/address" ] && break; sleep 0.05; done
export DBUS_SESSION_BUS_ADDRESS=$(head -1 "$dir/address")
XDG_DATA_HOME="$dir/data" "$store" --replace >/dev/null 2>&1 &
permstore=$!
for _ in $(seq 200); do
    gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.NameHasOwner org.freedesktop.impl.portal.PermissionStore 2>/dev/null | grep -q true && break
    sleep 0.05
done
"$@"
