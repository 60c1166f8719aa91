"""Webhooks delivered (docs/webhooks.md), each figure beside its reference from the same run:

1. change -> first delivery attempt: from an ingestion's commit (its call returned) to the
   receiver holding the event, with 1 and 4 worker processes each running a delivery thread
   (DeliveryWorker); beside it, the feed's own commit -> a waiting reader in another process
   having read the change (what every delivery waits on first).
2. deliveries per second to a fast receiver on loopback (one worker, one endpoint); beside it,
   the same bodies POSTed over one bare keep-alive HTTPS connection (Python's http.client, no
   signing, no store).
3. the outbox's cost on ingestion: ingesting Stripe subscriptions into a store with 3 endpoints
   and into one with none, A/B in alternating batches in one run.

    make bench BENCH=webhooks
"""
from __future__ import annotations

import http.client
import json
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Tuple

import gatekit
from gatekit.standin._https import tls_material

DAY = 86_400
LATENCY_CHANGES = int(os.environ.get("GATEKIT_BENCH_WEBHOOK_CHANGES", "120"))
THROUGHPUT = int(os.environ.get("GATEKIT_BENCH_WEBHOOK_DELIVERIES", "1000"))
OUTBOX_ITEMS = int(os.environ.get("GATEKIT_BENCH_OUTBOX_ITEMS", "1000"))


class Receiver:
    """A fast receiver: answers 204 at once, keeps each event id's first arrival time."""

    def __init__(self, folder: Path) -> None:
        context = tls_material(folder)
        self.ca = str(folder / "ca.pem")
        self.arrived: Dict[str, float] = {}
        self.bodies: List[Tuple[bytes, Dict[str, str]]] = []
        self.count = 0
        lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                now = time.time()
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                key = self.headers.get("webhook-id") or ""
                with lock:
                    receiver.count += 1
                    if key.startswith("evt_") and len(receiver.bodies) < THROUGHPUT:
                        receiver.bodies.append((body, {k: v for k, v in self.headers.items() if k.lower().startswith("webhook-")}))
                    receiver.arrived.setdefault(key, now)
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}/hooks"


def subscription(sub_id: str, now: int) -> bytes:
    return json.dumps({
        "id": sub_id, "object": "subscription", "customer": f"cus_{sub_id}", "status": "active", "livemode": True,
        "start_date": now - DAY, "cancel_at_period_end": False, "cancel_at": None, "canceled_at": None, "ended_at": None,
        "pause_collection": None, "trial_start": None, "trial_end": None, "metadata": {"app_user_id": f"u_{sub_id}"},
        "items": {"object": "list", "has_more": False, "data": [{
            "id": f"si_{sub_id}", "object": "subscription_item", "quantity": 1, "current_period_start": now - DAY,
            "current_period_end": now + 29 * DAY, "price": {"id": "price_m", "object": "price", "product": "prod_pro",
                                                            "currency": "usd", "unit_amount": 999, "type": "recurring",
                                                            "recurring": {"interval": "month", "interval_count": 1}}}]}}).encode()


def at(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


WORKER = r"""
import sys, time, datetime, gatekit
from gatekit.ledger_webhooks import DeliveryWorker
where, ca, stop = sys.argv[1], sys.argv[2], sys.argv[3]
import os
with gatekit.Store(where) as store, DeliveryWorker(store, ca_file=ca, allow_private=True):
    print("ready", flush=True)
    while not os.path.exists(stop):
        time.sleep(0.05)
"""

READER = r"""
import sys, time, datetime, gatekit
where, count = sys.argv[1], int(sys.argv[2])
with gatekit.Store(where) as store:
    after = 0
    print("ready", flush=True)
    while after < count:
        store.ledger.wait_changes(after, datetime.timedelta(seconds=5))
        page = store.ledger.changes(after)
        now = time.time()
        for change in page.changes:
            print(change.seq, now, flush=True)
        after = page.last
"""


def percentile(values: List[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def latency(folder: Path, receiver: Receiver, workers: int) -> Tuple[List[float], List[float]]:
    """(change -> delivered ms, commit -> reader ms) over LATENCY_CHANGES commits, 40 ms apart."""
    where = str(folder / f"latency-{workers}.sqlite")
    store = gatekit.Store(where)
    store.ledger.add_webhook_endpoint(receiver.url, allow_private=True)
    stop = folder / f"stop-{workers}"
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, where, receiver.ca, str(stop)], stdout=subprocess.PIPE, text=True, env=env)
             for _ in range(workers)]
    reader = subprocess.Popen([sys.executable, "-c", READER, where, str(LATENCY_CHANGES)], stdout=subprocess.PIPE, text=True, env=env)
    for p in procs + [reader]:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    committed: Dict[int, float] = {}
    now = int(time.time())
    for i in range(LATENCY_CHANGES):
        store.ledger.ingest_stripe(subscription(f"sub_l{workers}_{i:04d}", now), at(now - 60))
        committed[i + 1] = time.time()
        time.sleep(0.04)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(f"evt_{seq}" in receiver.arrived for seq in committed):
        time.sleep(0.05)
    read: Dict[int, float] = {}
    assert reader.stdout is not None
    for line in reader.stdout:
        seq, when = line.split()
        read[int(seq)] = float(when)
    reader.wait(timeout=60)
    stop.touch()
    for p in procs:
        p.wait(timeout=60)
    store.close()
    delivered = [(receiver.arrived[f"evt_{seq}"] - t) * 1000 for seq, t in committed.items() if f"evt_{seq}" in receiver.arrived]
    woken = [(read[seq] - t) * 1000 for seq, t in committed.items() if seq in read]
    receiver.arrived.clear()
    receiver.bodies.clear()
    return delivered, woken


def throughput(folder: Path, receiver: Receiver) -> Tuple[float, float]:
    """(deliveries per second through GateKit, bare keep-alive POSTs per second) of the same bodies."""
    store = gatekit.Store(str(folder / "throughput.sqlite"))
    store.ledger.add_webhook_endpoint(receiver.url, allow_private=True)
    now = int(time.time())
    store.ledger.ingest_stripe_batch([subscription(f"sub_t{i:05d}", now) for i in range(THROUGHPUT)], at(now - 60))
    started = time.perf_counter()
    sent = 0
    while sent < THROUGHPUT:
        result = store.ledger.deliver_webhooks(ca_file=receiver.ca, allow_private=True, budget=timedelta(seconds=30))
        sent += result.delivered
        if result.attempted == 0:
            break
    gatekit_rate = sent / (time.perf_counter() - started)
    store.close()
    # The same bodies and headers GateKit sent, POSTed again over one keep-alive connection.
    sent_bodies = list(receiver.bodies) or [(b"{}", {})]
    context = ssl.create_default_context(cafile=receiver.ca)
    connection = http.client.HTTPSConnection("127.0.0.1", receiver.server.server_address[1], context=context)
    started = time.perf_counter()
    for i in range(THROUGHPUT):
        body, headers = sent_bodies[i % len(sent_bodies)]
        connection.request("POST", "/hooks", body=body, headers={**headers, "Content-Type": "application/json", "webhook-id": f"bare_{i}"})
        connection.getresponse().read()
    bare_rate = THROUGHPUT / (time.perf_counter() - started)
    connection.close()
    return gatekit_rate, bare_rate


def outbox_cost(folder: Path) -> Tuple[float, float]:
    """(µs per ingested item with 3 endpoints, without), medians of alternating batches of 50."""
    with_endpoints = gatekit.Store(str(folder / "outbox-a.sqlite"))
    without = gatekit.Store(str(folder / "outbox-b.sqlite"))
    for i in range(3):
        with_endpoints.ledger.add_webhook_endpoint(f"https://hooks{i}.example.com/in")
    now = int(time.time())
    a: List[float] = []
    b: List[float] = []
    for batch in range(OUTBOX_ITEMS // 50):
        for store, sink, tag in ((with_endpoints, a, "a"), (without, b, "b")) if batch % 2 == 0 else ((without, b, "b"), (with_endpoints, a, "a")):
            started = time.perf_counter()
            for i in range(50):
                store.ledger.ingest_stripe(subscription(f"sub_{tag}{batch:03d}_{i:02d}", now), at(now - 60))
            sink.append((time.perf_counter() - started) / 50 * 1e6)
    with_endpoints.close()
    without.close()
    return statistics.median(a), statistics.median(b)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        receiver = Receiver(folder)
        print("\n## Webhooks delivered (bench/bench_webhooks.py, SQLite)\n")
        print("| measure | GateKit | reference (same run) | ratio |")
        print("|---|---|---|---|")
        for workers in (1, 4):
            delivered, woken = latency(folder, receiver, workers)
            print(f"| change → delivered, {workers} worker process{'es' if workers > 1 else ''}: median / p99 ms "
                  f"({len(delivered)} of {LATENCY_CHANGES}) | {statistics.median(delivered):.1f} / {percentile(delivered, 99):.1f} "
                  f"| commit → waiting reader: {statistics.median(woken):.1f} / {percentile(woken, 99):.1f} "
                  f"| {statistics.median(delivered) / max(statistics.median(woken), 0.001):.1f}× |")
        gatekit_rate, bare_rate = throughput(folder, receiver)
        print(f"| deliveries per second, one worker, {THROUGHPUT} queued | {gatekit_rate:.0f} | bare keep-alive POST: {bare_rate:.0f} "
              f"| {gatekit_rate / bare_rate:.2f}× |")
        with_endpoints, without = outbox_cost(folder)
        print(f"| ingestion µs per item with 3 endpoints (median of batches) | {with_endpoints:.0f} | without endpoints: {without:.0f} "
              f"| {with_endpoints / without:.2f}× |")
        receiver.server.shutdown()


if __name__ == "__main__":
    main()
