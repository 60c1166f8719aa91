#!/usr/bin/env bash
# Runs a command with a private PostgreSQL server (Debian's postgresql) for the tests:
# initdb into a temporary folder as an unprivileged user, listening on a Unix socket in that
# folder and on 127.0.0.1 with TLS (a CA generated here), then stops it and removes the folder.
#
#   scripts/with-postgres.sh COMMAND...   the command sees
#     GATEKIT_TEST_POSTGRES       libpq key=value string for the test database (Unix socket)
#     GATEKIT_TEST_POSTGRES_TCP   the same over TCP on 127.0.0.1
#     GATEKIT_TEST_POSTGRES_CA    the CA that signed the server's certificate (PEM)
#     GATEKIT_TEST_POSTGRES_CTL   a command that runs pg_ctl on this server: `$CTL restart -m immediate`
#     GATEKIT_TEST_POSTGRES_LOG   the server's log
#     GATEKIT_TEST_POSTGRES_POOLED  the test database through Debian's PgBouncer in transaction
#                                 mode with a pool of 4 server connections (Unix socket)
#     GATEKIT_TEST_POSTGRES_NETNS / _REMOTE   as root: a network namespace joined to this one by a
#                                 veth pair, as a second host, and the libpq string that reaches
#                                 the server from it (10.77.N.1); unset when namespaces are not
#                                 available (not root, no iproute2)
set -euo pipefail

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "with-postgres: no PostgreSQL server (Debian: postgresql); run scripts/install-deps.sh" >&2; exit 1; }

dir=$(mktemp -d /tmp/gatekit-pg.XXXXXX)
chmod 0755 "$dir"
as_server=()
if [ "$(id -u)" -eq 0 ]; then
    # PostgreSQL refuses to run as root: the server runs as nobody, in folders nobody owns.
    as_server=(runuser -u nobody --)
fi
mkdir -p "$dir/data" "$dir/tls"
port=$("${PYTHON:-python3}" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# TLS: a CA and a server certificate for localhost / 127.0.0.1.
(
    cd "$dir/tls"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=GateKit test CA" \
        -keyout ca.key -out ca.pem 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
        -keyout server.key -out server.csr 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > san.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext \
        -out server.pem 2>/dev/null
    chmod 0600 server.key ca.key
)
if [ ${#as_server[@]} -gt 0 ]; then chown -R nobody "$dir/data" "$dir/tls"; chown nobody "$dir"; fi

ctl=("${as_server[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60)
netns=""
bouncer=""
stop() {
    if [ -n "$bouncer" ]; then kill "$bouncer" 2>/dev/null || true; wait "$bouncer" 2>/dev/null || true; fi
    # Immediate: the folder is removed next, so a shutdown checkpoint (tens of seconds of
    # writes and fsyncs after a whole test run) would save nothing.
    "${ctl[@]}" stop -m immediate >/dev/null 2>&1 || true
    if [ -n "$netns" ]; then ip netns del "$netns" 2>/dev/null || true; ip link del "$netns-h" 2>/dev/null || true; fi
    rm -rf "$dir"
}
trap stop EXIT

# A second "host": a network namespace reaching the server over a veth pair (private to this
# machine). The server also listens on the pair's host end; only that peer may log in there.
listen='127.0.0.1'
net=$(( ($$ % 200) + 20 ))
if [ "$(id -u)" -eq 0 ] && command -v ip >/dev/null && ip netns add "gk$$" 2>/dev/null; then
    netns="gk$$"
    if ip link add "$netns-h" type veth peer name "$netns-g" && ip link set "$netns-g" netns "$netns" \
        && ip addr add "10.77.$net.1/24" dev "$netns-h" && ip link set "$netns-h" up \
        && ip netns exec "$netns" ip addr add "10.77.$net.2/24" dev "$netns-g" \
        && ip netns exec "$netns" ip link set "$netns-g" up && ip netns exec "$netns" ip link set lo up; then
        listen="127.0.0.1,10.77.$net.1"
    else
        echo "with-postgres: could not wire the network namespace; the two-host test will say so" >&2
        ip netns del "$netns" 2>/dev/null || true
        netns=""
    fi
fi

"${as_server[@]}" "$bin/initdb" -D "$dir/data" -U gatekit -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
cat >> "$dir/data/postgresql.conf" <<CONF
listen_addresses = '$listen'
port = $port
unix_socket_directories = '$dir'
max_connections = 200
ssl = on
ssl_cert_file = '$dir/tls/server.pem'
ssl_key_file = '$dir/tls/server.key'
CONF
[ -n "$netns" ] && echo "host all all 10.77.$net.2/32 trust" >> "$dir/data/pg_hba.conf"
"${ctl[@]}" start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
"$bin/psql" -X -q -h "$dir" -p "$port" -U gatekit -d postgres -c "CREATE DATABASE gatekit_test" >/dev/null
# A database no store lives in, made now while the server is idle (test_pooler.py: a listen
# connection to another database is refused; made under load, CREATE and DROP DATABASE took 40 s).
"$bin/psql" -X -q -h "$dir" -p "$port" -U gatekit -d postgres -c "CREATE DATABASE gatekit_elsewhere" >/dev/null

export GATEKIT_TEST_POSTGRES="host=$dir port=$port user=gatekit dbname=gatekit_test"
export GATEKIT_TEST_POSTGRES_TCP="host=127.0.0.1 port=$port user=gatekit dbname=gatekit_test"
export GATEKIT_TEST_POSTGRES_CA="$dir/tls/ca.pem"
export GATEKIT_TEST_POSTGRES_CTL="${ctl[*]}"
export GATEKIT_TEST_POSTGRES_LOG="$dir/server.log"
if [ -n "$netns" ]; then
    export GATEKIT_TEST_POSTGRES_NETNS="$netns"
    # Over TCP GateKit requires verified TLS: the test CA, and the chain only (the certificate
    # names localhost and 127.0.0.1, not this address).
    export GATEKIT_TEST_POSTGRES_REMOTE="host=10.77.$net.1 port=$port user=gatekit dbname=gatekit_test sslmode=verify-ca sslrootcert=$dir/tls/ca.pem"
fi
# PgBouncer in transaction mode, 4 server connections for every client: what a fleet of
# many-process hosts puts in front of the server. It passes no startup `options`, as shipped.
[ -x /usr/sbin/pgbouncer ] || { echo "with-postgres: no PgBouncer (Debian: pgbouncer); run scripts/install-deps.sh" >&2; exit 1; }
bport=$("${PYTHON:-python3}" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$dir/bouncer"
printf '"gatekit" ""\n' > "$dir/bouncer/users.txt"
cat > "$dir/bouncer/pgbouncer.ini" <<INI
[databases]
gatekit_test = host=$dir port=$port dbname=gatekit_test user=gatekit
[pgbouncer]
listen_addr =
listen_port = $bport
unix_socket_dir = $dir/bouncer
auth_type = trust
auth_file = $dir/bouncer/users.txt
pool_mode = transaction
default_pool_size = 4
reserve_pool_size = 0
max_client_conn = 1000
logfile = $dir/bouncer/pgbouncer.log
INI
if [ ${#as_server[@]} -gt 0 ]; then chown -R nobody "$dir/bouncer"; fi
"${as_server[@]}" /usr/sbin/pgbouncer -q "$dir/bouncer/pgbouncer.ini" 2>>"$dir/bouncer/stderr.log" &
bouncer=$!
for _ in $(seq 200); do [ -S "$dir/bouncer/.s.PGSQL.$bport" ] && break; sleep 0.05; done
[ -S "$dir/bouncer/.s.PGSQL.$bport" ] || { cat "$dir/bouncer/pgbouncer.log" >&2; echo "with-postgres: PgBouncer did not start" >&2; exit 1; }
export GATEKIT_TEST_POSTGRES_POOLED="host=$dir/bouncer port=$bport user=gatekit dbname=gatekit_test"

echo "with-postgres: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on $dir (port $port), PgBouncer $(/usr/sbin/pgbouncer --version | awk 'NR==1 {print $2}') in transaction mode on $dir/bouncer (port $bport)"
"$@"
