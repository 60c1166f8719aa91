"""GateKit in the hosts servers run (docs/hosting.md): a real prefork server (gunicorn with
--preload, worker threads), a handle carried over fork (refused in the child, the parent's
connection untouched, on both backends), and asyncio."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import gatekit
from gatekit.testing import TestPKI

from conftest import REPO_ROOT, child_env, example, example_env

BUNDLE = "com.example.app"
START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def test_a_handle_carried_over_fork_is_refused_in_the_child(open_store):
    store = open_store()
    store.eula.accept("terms", "a" * 64)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report what happened through the pipe, then leave at once
        outcome = "used"
        try:
            store.eula.should_present_hash("terms", "a" * 64)
        except gatekit.ForkedStoreError as error:
            outcome = f"refused {error.code}"
        store.close()  # must leave the parent's connection alone
        os.write(write, outcome.encode())
        os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read) as pipe:
        assert pipe.read() == f"refused {gatekit.errors.EFORKED}"
    assert status == 0
    # The parent's handle still works: its connection was not closed by the child.
    assert store.eula.should_present_hash("terms", "a" * 64) is False
    store.eula.accept("terms", "b" * 64)
    assert store.eula.should_present_hash("terms", "b" * 64) is False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_gunicorn_with_preload_and_threads(tmp_path: Path):
    pytest.importorskip("gunicorn", reason="gunicorn (python/requirements-test.txt) runs the prefork example")
    pki = TestPKI.create(tmp_path / "pki")
    (tmp_path / "root.der").write_bytes(pki.anchor)
    port = free_port()
    env = dict(child_env(), BUNDLE_ID=BUNDLE, ENVIRONMENT="Sandbox", TEST_ANCHOR=str(tmp_path / "root.der"),
               GATEKIT_STORE=str(tmp_path / "ledger.sqlite"))
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "--preload", "--workers", "3", "--threads", "4",
                               "--bind", f"127.0.0.1:{port}", "wsgi_entitlements:app"],
                              cwd=REPO_ROOT / "examples", env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"

    def call(path: str, body: bytes = b""):
        request = urllib.request.Request(base + path, data=body or None, method="POST" if body else "GET")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read()), response.headers["X-Worker"]
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read()), error.headers["X-Worker"]

    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None:
                    pytest.fail(f"gunicorn exited: {server.stderr.read() if server.stderr else ''}")
                time.sleep(0.1)
        lives = [pki.subscription(bundleId=BUNDLE, productId="pro.monthly", subscriptionGroupIdentifier="pro",
                                  originalTransactionId=str(5000 + n), start=START) for n in range(12)]
        notes = [life.subscribe() for life in lives] + [life.renew() for life in lives[:6]]
        with ThreadPoolExecutor(16) as pool:
            posted = list(pool.map(lambda n: call("/appstore/notifications", json.dumps({"signedPayload": n}).encode()), notes))
        assert [status for status, _, _ in posted] == [200] * len(notes), posted
        # Every worker answers from the same ledger, whichever process recorded what.
        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(lambda n: call(f"/entitled/{5000 + n % 12}/pro"), range(120)))
        reasons = Counter(body["reason"] for status, body, _ in answers if status == 200)
        # Asked now (2026-11 and later): every period has ended, the renewed ones too.
        assert reasons == Counter({"expired": 120}), answers[:3]
        assert call("/entitled/5000/pro")[1]["productId"] == "pro.monthly"
        assert len({worker for _, _, worker in posted + answers}) >= 2   # several processes served
        assert call("/appstore/notifications", b'{"signedPayload": "forged"}')[0] == 400
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=30)
    assert "ForkedStoreError" not in errors and "Traceback" not in errors, errors[-2000:]


def test_asyncio_example_runs_as_documented():
    done = subprocess.run(example("asyncio_entitlements.py"), env=example_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "expired: 60, subscription: 140"
