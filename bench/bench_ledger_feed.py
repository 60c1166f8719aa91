"""The change feed's latency: from an ingestion's commit (its call returned) to a host in another
process that was waiting on the feed (ledger_wait_changes) having read the change. Beside it,
measured in the same run on the same commits: a host that polls ledger_changes every 100 ms
instead of waiting. SQLite, and PostgreSQL when $GATEKIT_TEST_POSTGRES names a server.

    make bench BENCH=ledger_feed
"""
from __future__ import annotations

import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import List, Optional, Tuple

import gatekit
from gatekit.jws import SignedDataVerifier

ROOT = Path(__file__).resolve().parent.parent
COMMITS = int(os.environ.get("GATEKIT_BENCH_FEED_COMMITS", "200"))

# The reader: prints "<seq> <unix seconds>" for each change as soon as it has read it.
READER = r"""
import sys, time
from datetime import timedelta
import gatekit
where, app_id, mode, count = sys.argv[1], sys.argv[2] or None, sys.argv[3], int(sys.argv[4])
with gatekit.Store(where, app_id=app_id) as store:
    after = 0
    print("ready", flush=True)
    while after < count:
        if mode == "wait":
            store.ledger.wait_changes(after, timedelta(seconds=5))
        else:
            time.sleep(0.1)
        page = store.ledger.changes(after)
        now = time.time()
        for change in page.changes:
            print(change.seq, now, flush=True)
        after = page.last
"""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signed_items(pki: Path) -> List[bytes]:
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    key = serialization.load_pem_private_key((pki / "leaf.key").read_bytes(), None)
    header = b64url(json.dumps({"alg": "ES256", "x5c": [base64.b64encode((pki / f"{n}.der").read_bytes()).decode()
                                                        for n in ("leaf", "int", "root")]}).encode())
    now = int(time.time() * 1000)
    out = []
    for i in range(COMMITS):  # each a new purchase: each one change
        payload = {"transactionId": str(700_000 + i), "originalTransactionId": str(700_000 + i), "bundleId": "com.example",
                   "productId": "lifetime", "purchaseDate": now, "type": "Non-Consumable", "inAppOwnershipType": "PURCHASED",
                   "signedDate": now, "environment": "Sandbox"}
        text = header + "." + b64url(json.dumps(payload).encode())
        r, s = decode_dss_signature(key.sign(text.encode(), ec.ECDSA(hashes.SHA256())))  # type: ignore[union-attr]
        out.append((text + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))).encode())
    return out


def latencies(where: str, app_id: Optional[str], mode: str, items: List[bytes], verifier: SignedDataVerifier,
              at: datetime) -> List[float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    with gatekit.Store(where, app_id=app_id) as store:
        reader = subprocess.Popen([sys.executable, "-c", READER, where, app_id or "", mode, str(len(items))],
                                  stdout=subprocess.PIPE, text=True, env=env)
        assert reader.stdout is not None
        assert reader.stdout.readline().strip() == "ready"
        committed = []
        for item in items:
            time.sleep(0.02)  # commits apart: each one is waited for on its own
            store.ledger.ingest_transaction(item, verifier, at)
            committed.append(time.time())
        seen = {}
        for line in reader.stdout:
            seq, when = line.split()
            seen[int(seq)] = float(when)
        reader.wait(timeout=60)
    return [seen[i + 1] - committed[i] for i in range(len(items))]


def main() -> None:
    try:
        import cryptography  # noqa: F401
    except ImportError as error:
        print(f"\n## Change feed latency\n\nnot run: {error} (pip install cryptography)")
        return
    pki = Path(tempfile.mkdtemp(prefix="gatekit-bench-pki-"))
    subprocess.run([str(ROOT / "Tests" / "scripts" / "jws-test-pki.sh"), str(pki)], check=True, capture_output=True)
    verifier = SignedDataVerifier("com.example", "Sandbox", test_anchor=(pki / "root.der").read_bytes())
    at = datetime.fromtimestamp(time.time() + 60, timezone.utc)
    items = signed_items(pki)
    backends: List[Tuple[str, Optional[str]]] = [("SQLite", None)]
    if os.environ.get("GATEKIT_TEST_POSTGRES"):
        backends.append(("PostgreSQL", os.environ["GATEKIT_TEST_POSTGRES"]))
    rows = []
    for name, server in backends:
        for mode in ("wait", "poll"):
            folder = tempfile.mkdtemp(prefix="gatekit-bench-feed-")
            where = server or str(Path(folder) / "feed.sqlite")
            app_id = f"bench.feed.{uuid.uuid4().hex[:8]}" if server else None
            ms = [1000 * x for x in latencies(where, app_id, mode, items, verifier, at)]
            rows.append((name, mode, statistics.median(ms), sorted(ms)[int(0.95 * (len(ms) - 1))]))
    print(f"\n## Change feed latency ({COMMITS} commits, 20 ms apart)\n")
    print("`make bench BENCH=ledger_feed`: from an ingestion's return to a reader in another process having read the change.\n")
    print("| backend | reader | median ms | p95 ms |")
    print("|---|---|---|---|")
    for name, mode, median, p95 in rows:
        reader = "ledger_wait_changes, then ledger_changes" if mode == "wait" else "reference: ledger_changes every 100 ms"
        print(f"| {name} | {reader} | {median:.2f} | {p95:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
