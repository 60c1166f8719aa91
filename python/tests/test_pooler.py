"""Issue 48: the PostgreSQL store through a connection pooler — Debian's PgBouncer in front of the
test server, in transaction mode with a pool of 4 server connections (scripts/with-postgres.sh
starts it; the contract suites also run through it as the "pgbouncer" backend). Nothing stays
in a server session, the connection's settings hold in every transaction, another client's
commits are never answered stale (heard through a direct listen connection, or not cached),
a setting or listen connection GateKit cannot use is an error, and 32 processes through the
pool of 4 lose nothing and answer as 32 direct connections do."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator, List

import pytest

import gatekit
from gatekit.jws import SignedDataVerifier
from gatekit.permissions import Category, Decision, State

from conftest import child_env, pooled_server, postgres_server, worker
from ledger_lives import BUNDLE
from signing import CHAIN, PKI, pki  # noqa: F401  (pki is a fixture)
from test_ledger_hardening import NOW_MS, transaction
from test_postgres_hardening import app_id, assert_a_lock_wait_ends_at_the_statement_timeout, psql, schema

PGBOUNCER = "/usr/sbin/pgbouncer"
DAY_MS = 86_400_000


@pytest.fixture
def pgbouncer() -> Iterator:
    """Another PgBouncer in front of the test server, in the pool mode and with the startup
    parameters a test asks for; stopped afterwards."""
    if not os.path.exists(PGBOUNCER):
        if os.environ.get("GATEKIT_REQUIRE_POSTGRES") == "1":
            pytest.fail("GATEKIT_REQUIRE_POSTGRES=1 but no pgbouncer: run scripts/install-deps.sh")
        pytest.skip("no pgbouncer (Debian: pgbouncer): run scripts/install-deps.sh")
    parts = dict(item.split("=", 1) for item in postgres_server().split())
    started: List[subprocess.Popen] = []
    folder = Path(tempfile.mkdtemp(prefix="gatekit-pgbouncer-"))
    folder.chmod(0o755)  # readable by nobody, which runs it

    def start(mode: str, ignore: str = "", pool_size: int = 2) -> str:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        (folder / "users.txt").write_text('"gatekit" ""\n')
        ini = folder / f"{mode}.ini"
        ini.write_text(f"""[databases]
gatekit_test = host={parts['host']} port={parts['port']} dbname=gatekit_test user=gatekit
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {folder / 'users.txt'}
pool_mode = {mode}
default_pool_size = {pool_size}
query_wait_timeout = 15
ignore_startup_parameters = {ignore}
logfile = {folder / 'pgbouncer.log'}
""")
        for f in folder.iterdir():
            f.chmod(0o644)
        command = [PGBOUNCER, str(ini)]
        if os.geteuid() == 0:
            shutil.chown(folder, "nobody")  # its log file
            command = ["runuser", "-u", "nobody", "--"] + command  # it refuses to run as root
        started.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert started[-1].poll() is None, started[-1].stderr.read().decode() if started[-1].stderr else ""
                assert time.monotonic() < deadline, "pgbouncer did not listen"
                time.sleep(0.05)
        return f"host=127.0.0.1 port={port} user=gatekit dbname=gatekit_test sslmode=disable"
    yield start
    for p in started:
        p.terminate()
        p.wait()
    shutil.rmtree(folder, ignore_errors=True)


def through_pooler(sql: str) -> str:
    """One statement through the test pooler, as psql sends it (its own transaction)."""
    out = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", pooled_server(), "-c", sql],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


# ---- no session state -----------------------------------------------------------------------

def test_nothing_stays_in_the_pools_server_sessions():
    """After EULA, permission and ledger work through the pool, every server session the pool
    hands out has the server's own search_path and timeout and no prepared statement: GateKit
    set its path and settings inside each transaction (SET LOCAL) and ran unnamed statements."""
    app = app_id("sessions")
    with gatekit.Store(pooled_server(), app_id=app) as s:
        for i in range(20):
            s.eula.accept(f"doc{i}", gatekit.hash_bytes(b"terms %d" % i))
            assert not s.eula.should_present_hash(f"doc{i}", gatekit.hash_bytes(b"terms %d" % i))
        s.permissions.set_usage_description(Category.CAMERA, "to scan")
        s.permissions.record(Category.CAMERA, Decision.DONT_ASK)
        assert s.permissions.state(Category.CAMERA) == State.DO_NOT_ASK
        assert len(s.eula.history_all()) == 20
    direct = psql("SELECT current_setting('search_path') || '|' || current_setting('statement_timeout')")
    seen = {through_pooler("SELECT current_setting('search_path') || '|' || current_setting('statement_timeout') || '|' || "
                           "(SELECT count(*) FROM pg_prepared_statements) || '|' || "
                           "(SELECT count(*) FROM pg_listening_channels())") for _ in range(12)}
    assert seen == {direct + "|0|0"}, seen
    # The store it wrote is the one a direct connection reads.
    assert psql(f"SELECT count(*) FROM {schema(app)}.eula_decisions") == "20"


def test_an_idle_handle_holds_no_server_connection(pgbouncer):
    """M9: with one server connection in the pool, an idle handle after a write leaves it to
    others (a Flush sent after the transaction's Sync made PgBouncer keep it for GateKit)."""
    uri = pgbouncer("transaction", pool_size=1)
    with gatekit.Store(uri, app_id=app_id("idle")) as s:
        s.eula.accept("terms", gatekit.hash_bytes(b"terms"))
        s.permissions.set_usage_description(Category.CAMERA, "to scan")
        out = subprocess.run(["psql", "-X", "-q", "-A", "-t", uri, "-c", "SELECT 1"], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and out.stdout.strip() == "1", out.stderr
        assert not s.eula.should_present_hash("terms", gatekit.hash_bytes(b"terms"))


class FrontendRecorder:
    """A loopback TCP relay in front of the test server's socket that writes down the type of
    every message the client sends (the PostgreSQL frontend protocol: after the untyped startup
    messages, a type byte and a length)."""

    def __init__(self) -> None:
        parts = dict(item.split("=", 1) for item in postgres_server().split())
        self.server = os.path.join(parts["host"], f".s.PGSQL.{parts['port']}")
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.types: List[str] = []
        threading.Thread(target=self.accept, daemon=True).start()

    @property
    def uri(self) -> str:
        return f"host=127.0.0.1 port={self.listener.getsockname()[1]} user=gatekit dbname=gatekit_test sslmode=disable"

    def accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX)
            server.connect(self.server)
            threading.Thread(target=self.relay, args=(server, client, None), daemon=True).start()
            threading.Thread(target=self.relay, args=(client, server, bytearray()), daemon=True).start()

    def relay(self, source: socket.socket, target: socket.socket, parsed: "bytearray | None") -> None:
        started = False
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                data = b""
            if not data:
                target.close()
                return
            if parsed is not None:
                parsed += data
                while True:
                    if not started:  # the startup packet, or an SSL/GSS request before it: a length and no type
                        if len(parsed) < 8:
                            break
                        length = int.from_bytes(parsed[:4], "big")
                        if len(parsed) < length:
                            break
                        code = int.from_bytes(parsed[4:8], "big")
                        started = code not in (80877103, 80877104)
                        del parsed[:length]
                        continue
                    if len(parsed) < 5 or len(parsed) < 1 + int.from_bytes(parsed[1:5], "big"):
                        break
                    self.types.append(chr(parsed[0]))
                    del parsed[:1 + int.from_bytes(parsed[1:5], "big")]
            target.sendall(data)

    def close(self) -> None:
        self.listener.close()


def test_no_message_follows_the_sync_that_ends_a_transaction(pki):  # noqa: F811
    """M9, at the protocol: the Sync that ends a pipelined transaction is the last message of the
    transaction — a Flush sent after it reaches a transaction pooler once the transaction is
    over, and it gives the client a server connection for it and keeps it there (the idle
    handle held the pool's one connection). Recorded between GateKit and the server while a
    handle ingests, asks and accepts: no Flush right after a Sync, and an idle handle's last
    message is a Sync."""
    recorder = FrontendRecorder()
    verifier = SignedDataVerifier(BUNDLE, "Sandbox", test_anchor=pki.der("root"))
    at = datetime.fromtimestamp(time.time() + 120, timezone.utc)
    try:
        with gatekit.Store(recorder.uri, app_id=app_id("protocol")) as s:
            items = [pki.sign(transaction(str(8_100_000 + i), "8100000", signed=NOW_MS - 1000 + i), CHAIN) for i in range(3)]
            assert all(r.outcome.name == "NEW" for r in s.ledger.ingest_batch("transaction", items, verifier, at))
            assert s.ledger.ingest_transaction(pki.sign(transaction("8200000", "8200000", signed=NOW_MS), CHAIN), verifier, at).outcome.name == "NEW"
            s.eula.accept("terms", gatekit.hash_bytes(b"terms"))
            assert not s.eula.should_present_hash("terms", gatekit.hash_bytes(b"terms"))
            time.sleep(0.2)
            sent = "".join(recorder.types)
            assert "S" in sent and "SH" not in sent, sent
            assert sent.rstrip("X")[-1] == "S", sent
    finally:
        recorder.close()


def test_another_clients_session_settings_change_nothing_for_gatekit(pgbouncer):
    """M10 and L10: another pool client leaves bytea_output=escape and
    default_transaction_read_only=on in the one server session; GateKit's reads of a published
    text are not a corruption alarm and its writes are not refused."""
    uri = pgbouncer("transaction", pool_size=1)
    app = app_id("settings")
    with gatekit.Store(uri, app_id=app) as s:
        s.eula.publish("terms", "v1", {"en": b"Terms \x00\xff as bytes"}, default_language="en")
    out = subprocess.run(["psql", "-X", "-q", "-A", "-t", uri, "-c", "SET bytea_output = escape",
                          "-c", "SET default_transaction_read_only = on", "-c", "SHOW bytea_output"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "escape", out.stderr
    assert through(uri, "SHOW bytea_output") == "escape", "the setting stays in the pool's one server session"
    with gatekit.Store(uri, app_id=app) as s:
        presented = s.eula.should_present_at("terms", "alice", "en")
        assert s.eula.text("terms", presented.hash) == b"Terms \x00\xff as bytes"
        s.eula.accept("terms", presented.hash, user="alice")
        assert not s.eula.should_present_hash("terms", presented.hash, user="alice")
    assert through(uri, "SHOW default_transaction_read_only") == "on", "GateKit's settings were its transactions' own"


def through(uri: str, sql: str) -> str:
    out = subprocess.run(["psql", "-X", "-q", "-A", "-t", uri, "-c", sql], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


# ---- the connection's settings ----------------------------------------------------------------

def test_options_a_pooler_refuses_are_set_in_every_transaction():
    """PgBouncer as Debian ships it refuses the `options` startup parameter: GateKit connects
    without it and sets each -c name=value in every transaction instead."""
    assert_a_lock_wait_ends_at_the_statement_timeout(pooled_server() + " options='-c statement_timeout=2000'")


def test_an_options_search_path_never_replaces_the_stores():
    """A `-c search_path=…` in the options is set in every transaction too, but before the
    store's own path: the store's tables are still the ones read and written."""
    app = app_id("path")
    h = gatekit.hash_bytes(b"terms")
    with gatekit.Store(pooled_server() + " options='-c search_path=public'", app_id=app) as s:
        s.eula.accept("terms", h)
        assert not s.eula.should_present_hash("terms", h)
    assert psql(f"SELECT count(*) FROM {schema(app)}.eula_decisions") == "1"


def test_options_a_pooler_ignores_are_set_in_every_transaction(pgbouncer):
    """A pooler told to ignore `options` (ignore_startup_parameters) drops them silently:
    GateKit sets them itself, so they still hold."""
    tolerant = pgbouncer("transaction", "options")
    assert_a_lock_wait_ends_at_the_statement_timeout(tolerant + " options='-c statement_timeout=2000'")


def test_session_pooling_works_too(pgbouncer):
    session = pgbouncer("session", "options")
    app = app_id("session")
    h = gatekit.hash_bytes(b"terms")
    with gatekit.Store(session, app_id=app) as s:
        s.eula.accept("terms", h)
    with gatekit.Store(session, app_id=app) as s:
        assert not s.eula.should_present_hash("terms", h)
        assert [d.document_id for d in s.eula.history_all()] == ["terms"]


def test_settings_gatekit_cannot_apply_are_errors():
    """$PGOPTIONS (which libpq always sends) to a pooler that refuses it, and options that are
    not -c name=value settings, are errors naming what to change, never dropped."""
    code = "import gatekit, sys; gatekit.Store(sys.argv[1], app_id=sys.argv[2])"
    env = child_env()
    env["PGOPTIONS"] = "-c statement_timeout=1000"
    out = subprocess.run([sys.executable, "-c", code, pooled_server(), app_id("pgoptions")], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "InvalidArgumentError" in out.stderr and "$PGOPTIONS" in out.stderr, out.stderr
    with pytest.raises(gatekit.InvalidArgumentError, match='cannot be applied behind a connection pooler: "-d" is not a setting'):
        gatekit.Store(pooled_server() + " options='-d 5'", app_id=app_id("switch"))


# ---- other clients' commits -------------------------------------------------------------------

def record_elsewhere(where: str, app: str, decision: Decision) -> None:
    """A permission decision from another process (its own connection through the pool)."""
    assert worker("perm-record", (where, app), str(int(Category.CAMERA)), str(int(decision))).wait(60) == 0


def test_without_a_listen_connection_nothing_is_answered_stale():
    """Behind a pooler with no listen connection no commit can be heard, so nothing is cached:
    another process's decision is answered at once, with no wait for a notification."""
    app = app_id("unheard")
    with gatekit.Store(pooled_server(), app_id=app) as s:
        s.permissions.set_usage_description(Category.CAMERA, "to scan")
        assert s.permissions.state(Category.CAMERA) == State.UNKNOWN
        for decision, state in [(Decision.ASK_LATER, State.ASK_AGAIN), (Decision.AUTHORIZED, State.AUTHORIZED)]:
            record_elsewhere(pooled_server(), app, decision)
            assert s.permissions.state(Category.CAMERA) == state


def test_a_listen_connection_hears_other_clients_commits():
    """With a direct listen connection the handle caches, and another process's commit through
    the pool reaches it as a notification: seen within a second."""
    app = app_id("heard")
    with gatekit.Store(pooled_server(), app_id=app, listen_uri=postgres_server()) as s:
        s.permissions.set_usage_description(Category.CAMERA, "to scan")
        assert s.permissions.state(Category.CAMERA) == State.UNKNOWN
        record_elsewhere(pooled_server(), app, Decision.ASK_LATER)
        deadline = time.monotonic() + 1
        while s.permissions.state(Category.CAMERA) != State.ASK_AGAIN:
            assert time.monotonic() < deadline, "another client's commit was not heard within 1 s"
            time.sleep(0.005)
        # Its own commits change its answers at once.
        s.permissions.record(Category.CAMERA, Decision.AUTHORIZED)
        assert s.permissions.state(Category.CAMERA) == State.AUTHORIZED


def test_a_listen_connection_gatekit_cannot_use_is_an_error(tmp_path: Path):
    pooled, direct = pooled_server(), postgres_server()
    with pytest.raises(gatekit.InvalidArgumentError, match="listen connection must reach the server directly"):
        gatekit.Store(pooled, app_id=app_id("listen"), listen_uri=pooled)
    with pytest.raises(gatekit.InvalidArgumentError, match="is the server itself"):
        gatekit.Store(direct, app_id=app_id("listen"), listen_uri=direct)
    with pytest.raises(gatekit.InvalidArgumentError, match="not for the SQLite file"):
        gatekit.Store(str(tmp_path / "s.sqlite"), listen_uri=direct)
    # Another database of the same server (scripts/with-postgres.sh makes it at start).
    elsewhere = direct.replace("dbname=gatekit_test", "dbname=gatekit_elsewhere")
    with pytest.raises(gatekit.InvalidArgumentError, match="reaches \"gatekit_elsewhere started .*\", not the store's \"gatekit_test started"):
        gatekit.Store(pooled, app_id=app_id("listen"), listen_uri=elsewhere)


# ---- a fleet through a pool of 4 --------------------------------------------------------------

WORKERS, SUBSCRIPTIONS, RENEWALS = 32, 3, 2


def fleet_work(pki: PKI, folder: Path) -> Path:  # noqa: F811
    """Each of 32 workers' share: 3 subscriptions of its own, each bought and renewed (the
    renewal first for half of them), one expired, and one subscription every worker ingests
    (the same signed data 32 times)."""
    shared = [pki.sign(transaction("9000001", "9000000", signed=NOW_MS - 900), CHAIN)]
    items, customers = [], []
    for w in range(WORKERS):
        mine = []
        for n in range(SUBSCRIPTIONS):
            original = str(1_000_000 + 100 * w + n)
            expires = NOW_MS - DAY_MS if n == 2 else NOW_MS + 30 * DAY_MS
            renewals = [pki.sign(transaction(str(int(original) * 10 + r), original, signed=NOW_MS - 1000 + r,
                                             expires=expires - (RENEWALS - 1 - r) * DAY_MS), CHAIN) for r in range(RENEWALS)]
            mine += renewals[::-1] if n % 2 else renewals
        items.append(mine + shared)
        customers.append([str(1_000_000 + 100 * w + n) for n in range(SUBSCRIPTIONS)] + ["9000000"])
    work = folder / "work.json"
    # Verified a minute from now: the test PKI (made when this module's first test needed it)
    # is valid from then on.
    work.write_text(json.dumps({"bundle": BUNDLE, "anchor": pki.der("root").hex(), "verify_at_ms": int(time.time() * 1000) + 60_000,
                                "product": "pro.monthly", "items": items, "customers": customers}))
    return work


def run_fleet(where: str, app: str, work: Path) -> List[list]:
    procs = [worker("ledger-work", (where, app), str(work), str(w), stdout=subprocess.PIPE) for w in range(WORKERS)]
    answers = []
    for p in procs:
        out, _ = p.communicate(timeout=300)
        assert p.returncode == 0
        answers.append(json.loads(out))
    return answers


def test_32_processes_through_a_pool_of_4_lose_nothing_and_answer_as_direct(pki, tmp_path):  # noqa: F811
    """32 processes ingest and ask at once through the test pool of 4 server connections, and
    again directly with 32 connections: no error, every transaction recorded once, and every
    answer equal to the direct run's (and to what the data says)."""
    work = fleet_work(pki, tmp_path)
    pooled_app, direct_app = app_id("fleet"), app_id("fleet")
    gatekit.Store(pooled_server(), app_id=pooled_app).close()
    gatekit.Store(postgres_server(), app_id=direct_app).close()
    through_pool = run_fleet(pooled_server(), pooled_app, work)
    direct = run_fleet(postgres_server(), direct_app, work)
    assert through_pool == direct
    for w, answers in enumerate(through_pool):
        for n, (entitled, reason, transaction_id, _until) in enumerate(answers[:SUBSCRIPTIONS]):
            assert entitled == (n != 2), (w, n, reason)
            assert transaction_id == str((1_000_000 + 100 * w + n) * 10 + RENEWALS - 1)
        assert answers[SUBSCRIPTIONS][0] is True
    for app in (pooled_app, direct_app):
        recorded = psql(f"SELECT count(DISTINCT transaction_id) FROM {schema(app)}.ledger_transactions")
        assert recorded == str(WORKERS * SUBSCRIPTIONS * RENEWALS + 1)
