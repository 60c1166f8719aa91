"""The PostgreSQL store's own contract: TLS, a server restarted under load, and the app's
schema on a shared database. (Every EULA, permission and ledger test also runs on PostgreSQL:
the `store` fixture is parametrised over both backends.)"""
from __future__ import annotations

import os
import shlex
import subprocess
import uuid
from pathlib import Path

import pytest

import gatekit
from conftest import postgres_server, worker


def app_id(tag: str) -> str:
    return f"test.{tag}.{uuid.uuid4().hex[:12]}"


def tcp_server() -> str:
    postgres_server()  # skips or fails with the reason when there is none
    return os.environ["GATEKIT_TEST_POSTGRES_TCP"]


def test_tls_verify_full_with_the_servers_ca(tmp_path: Path):
    conninfo = f"{tcp_server()} host=localhost sslmode=verify-full sslrootcert={os.environ['GATEKIT_TEST_POSTGRES_CA']}"
    with gatekit.Store(conninfo, app_id=app_id("tls")) as s:
        h = gatekit.hash_bytes(b"terms")
        s.eula.accept("terms", h)
        assert not s.eula.should_present_hash("terms", h)

    # Another CA: the server's certificate does not verify, and the error says so.
    other = tmp_path / "other-ca.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-days", "1", "-subj", "/CN=not the server's CA", "-keyout", str(tmp_path / "k.pem"),
                    "-out", str(other)], check=True, capture_output=True)
    with pytest.raises(gatekit.ConnectionLostError, match="certificate verify failed"):
        gatekit.Store(f"{tcp_server()} host=localhost sslmode=verify-full sslrootcert={other}", app_id=app_id("tls"))
    # verify-full also checks the name: the certificate is for localhost and 127.0.0.1 only.
    with pytest.raises(gatekit.ConnectionLostError):
        gatekit.Store(f"{tcp_server()} host=127.0.0.2 sslmode=verify-full sslrootcert={os.environ['GATEKIT_TEST_POSTGRES_CA']}",
                      app_id=app_id("tls"))


def test_the_path_names_the_server_without_the_password():
    conninfo = postgres_server()
    with gatekit.Store(conninfo + " password=not-needed-here", app_id=app_id("path")) as s:
        assert s.path.startswith("postgresql://gatekit@") and "not-needed" not in s.path
        s.check()


@pytest.mark.alone
def test_a_server_restart_under_four_writers_loses_no_returned_decision():
    """4 processes write 10,000 acceptances while the server is restarted with `-m immediate`
    (a crash for the clients): every acceptance that returned is present afterwards, the
    others returned errors, and each process carried on without reopening its store."""
    where, app = postgres_server(), app_id("restart")
    gatekit.Store(where, app_id=app).close()  # create the schema before the race
    per_process = 2500
    procs = [worker("accept-through-outage", (where, app), f"w{n}", str(per_process),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in range(4)]
    # Restart once every writer has started and the first is a tenth of the way through.
    early = {n: [p.stdout.readline()] for n, p in enumerate(procs) if p.stdout is not None}
    early[0] += [procs[0].stdout.readline() for _ in range(per_process // 10)] if procs[0].stdout else []
    ctl = shlex.split(os.environ["GATEKIT_TEST_POSTGRES_CTL"])
    restart = subprocess.run(ctl + ["restart", "-m", "immediate"], capture_output=True, text=True, timeout=120)
    if restart.returncode != 0:
        for p in procs:
            p.kill()
        log = Path(os.environ.get("GATEKIT_TEST_POSTGRES_LOG", "/nonexistent"))
        tail = log.read_text(errors="replace")[-4000:] if log.exists() else "(no server log)"
        pytest.fail(f"pg_ctl restart failed ({restart.returncode}): {restart.stdout}{restart.stderr}\nserver log:\n{tail}")
    confirmed, failed = {}, {}
    for n, p in enumerate(procs):
        # The rest through the same buffered reader that read the first lines.
        assert p.stdout is not None and p.stderr is not None
        out, err = p.stdout.read(), p.stderr.read()
        assert p.wait(timeout=600) == 0, err
        lines = [line.split() for line in early[n] + out.splitlines()]
        assert len(lines) == per_process  # every call returned, success or error
        confirmed[n] = {int(parts[1]) for parts in lines if parts[0] == "ok"}
        failed[n] = [int(parts[2]) for parts in lines if parts[0] == "err"]
        assert set(failed[n]) <= {gatekit.errors.ECONNECTION, gatekit.errors.EUNCERTAIN}, failed[n]
        # It recovered: the last acceptances, made after the restart, succeeded.
        assert per_process - 1 in confirmed[n]
    errors = sum(len(f) for f in failed.values())
    assert errors > 0, "the restart landed after the writers finished: nothing was tested"
    print(f"restart under load: {sum(len(c) for c in confirmed.values())} acceptances returned, {errors} errors "
          f"({sum(f.count(gatekit.errors.EUNCERTAIN) for f in failed.values())} uncertain)")
    with gatekit.Store(where, app_id=app) as s:
        for n in range(4):
            history = s.eula.history(user=f"w{n}")
            recorded = {d.document_id for d in history}
            assert {f"w{n}-{i}" for i in confirmed[n]} <= recorded
            # No call was recorded twice (a retried transaction never committed before).
            assert len(history) == len(recorded)


def test_the_watcher_wakes_on_another_clients_commit_not_on_its_interval():
    """With a one-hour interval the watcher would never poll during this test: the change can
    only reach the callback through the server's notification."""
    where, app = postgres_server(), app_id("watch")
    from gatekit.permissions import Category, Decision
    import threading
    arrived = threading.Event()
    with gatekit.Store(where, app_id=app) as s, gatekit.Store(where, app_id=app) as other:
        for c in (Category.CAMERA, Category.MICROPHONE):
            s.permissions.set_usage_description(c, "to test")
        s.permissions.subscribe(lambda category, old, new: arrived.set())
        s.permissions.watch_start(interval_ms=3_600_000)
        other.permissions.record(Category.CAMERA, Decision.DONT_ASK)
        assert arrived.wait(30), "the commit notification did not wake the watcher"
        assert s.permissions.watch_stop() is True


def test_the_tool_uses_a_postgresql_store(tmp_path: Path):
    """`gatekit --store <connection string> --app-id ID`: the tool and the library share the
    server's store."""
    from conftest import REPO_ROOT
    tool = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
    if not os.path.exists(tool):
        pytest.skip(f"the gatekit tool is not built at {tool} (make tool)")
    where, app = postgres_server(), app_id("tool")
    eula = tmp_path / "EULA.txt"
    eula.write_text("Terms\n")
    base = [tool, "--store", where, "--app-id", app, "eula"]
    assert subprocess.run(base + ["status", "--doc", "terms", "--file", str(eula)], capture_output=True).returncode == 3
    assert subprocess.run(base + ["accept", "--doc", "terms", "--file", str(eula)], capture_output=True).returncode == 0
    assert subprocess.run(base + ["status", "--doc", "terms", "--file", str(eula)], capture_output=True).returncode == 0
    with gatekit.Store(where, app_id=app) as s:
        assert not s.eula.should_present("terms", eula)


def test_two_hosts_eight_processes_exact_counts():
    """4 processes on this host (Unix socket) and 4 on a second one (a network namespace
    reaching the server over TCP) accept into one store at once: every acceptance is there
    exactly once."""
    where, app = postgres_server(), app_id("hosts")
    netns, remote = os.environ.get("GATEKIT_TEST_POSTGRES_NETNS"), os.environ.get("GATEKIT_TEST_POSTGRES_REMOTE")
    if not netns or not remote:
        if os.geteuid() == 0 and os.environ.get("GATEKIT_REQUIRE_POSTGRES") == "1":
            pytest.fail("running as root under make test, but scripts/with-postgres.sh made no network namespace")
        pytest.skip("no second host: network namespaces need root and iproute2 (scripts/with-postgres.sh)")
    import sys
    from conftest import WORKER, child_env
    gatekit.Store(where, app_id=app).close()
    per_process = 200
    procs = [worker("accept-many", (where, app), f"local{n}", str(per_process)) for n in range(4)]
    procs += [subprocess.Popen(["ip", "netns", "exec", netns, sys.executable, str(WORKER), "accept-many", remote, app,
                                f"remote{n}", str(per_process)], env=child_env()) for n in range(4)]
    for p in procs:
        assert p.wait(timeout=300) == 0
    with gatekit.Store(where, app_id=app) as s:
        everything = s.eula.history_all()
        assert len(everything) == 8 * per_process
        for tag in [f"local{n}" for n in range(4)] + [f"remote{n}" for n in range(4)]:
            mine = s.eula.history(user=tag)
            assert sorted(d.document_id for d in mine) == sorted(f"doc-{tag}-{i}" for i in range(per_process))


def test_uri_and_pg_environment_variables_reach_the_same_store(tmp_path: Path):
    """The key=value string, a postgresql:// URI and libpq's PG* variables (a bare
    "postgresql://" takes everything from them) name the same server and schema."""
    import sys
    from conftest import child_env
    from urllib.parse import quote
    conninfo, app = postgres_server(), app_id("forms")
    parts = dict(item.split("=", 1) for item in conninfo.split())
    h = gatekit.hash_bytes(b"terms")
    with gatekit.Store(conninfo, app_id=app) as s:
        s.eula.accept("terms", h)
    uri = f"postgres://{parts['user']}@{quote(parts['host'], safe='')}:{parts['port']}/{parts['dbname']}"
    with gatekit.Store(uri, app_id=app) as s:
        assert not s.eula.should_present_hash("terms", h)
    env = child_env()
    env.update(PGHOST=parts["host"], PGPORT=parts["port"], PGUSER=parts["user"], PGDATABASE=parts["dbname"])
    code = ("import gatekit, sys; s = gatekit.Store('postgresql://', app_id=sys.argv[1]); "
            "sys.exit(0 if not s.eula.should_present_hash('terms', sys.argv[2]) else 3)")
    assert subprocess.run([sys.executable, "-c", code, app, h], env=env, timeout=60).returncode == 0


@pytest.mark.alone
def test_delivery_outlives_a_server_restart_and_loses_no_change(tmp_path: Path):
    """A delivery thread sends a store's changes while the server is restarted with `-m
    immediate`: the changes committed before and after all arrive at the receiver, each
    purchase's in order, and the thread carried on by itself."""
    import time
    from gatekit.ledger_webhooks import DeliveryWorker
    from test_ledger_webhooks import Receiver, at, subscription
    where, app = postgres_server(), app_id("deliver-restart")
    receiver = Receiver(tmp_path)
    day = 86_400
    try:
        with gatekit.Store(where, app_id=app) as s, DeliveryWorker(s, ca_file=receiver.ca_file, allow_private=True):
            endpoint = s.ledger.add_webhook_endpoint(receiver.url("/restart"), allow_private=True)
            receiver.secrets["/restart"] = [endpoint.secret]
            now = int(time.time())
            committed = 0

            def ingest(i: int) -> None:
                nonlocal committed
                for _ in range(100):  # the server may be away: the call says so, and is made again
                    try:
                        s.ledger.ingest_stripe(subscription(f"sub_r{i:02d}", "active", now - day, now + 29 * day, user=f"r{i}"), at(now - 60))
                        committed += 1
                        return
                    except (gatekit.ConnectionLostError, gatekit.StoreError):
                        time.sleep(0.1)
                raise AssertionError("the store never came back")

            for i in range(10):
                ingest(i)
            ctl = shlex.split(os.environ["GATEKIT_TEST_POSTGRES_CTL"])
            restart = subprocess.run(ctl + ["restart", "-m", "immediate"], capture_output=True, text=True, timeout=120)
            assert restart.returncode == 0, restart.stderr
            for i in range(10, 20):
                ingest(i)
            deadline = time.monotonic() + 90
            while len({r["headers"]["webhook-id"] for r in receiver.at("/restart") if r["answered"] == 200}) < 20:
                assert time.monotonic() < deadline, f"{len(receiver.at('/restart'))} deliveries of 20"
                time.sleep(0.1)
        got = {r["json"]["data"]["originalTransactionId"] for r in receiver.at("/restart") if r["answered"] == 200}
        assert got == {f"sub_r{i:02d}" for i in range(20)} and committed == 20
        assert all(r["ours"] and r["theirs"] for r in receiver.at("/restart"))
    finally:
        receiver.close()
