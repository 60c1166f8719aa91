"""Ledger ingestion of many versions of one transaction in one batch (Hardening III, finding
15: 5,000 versions took 25 s, quadratic). Each batch is timed beside its reference measured in
the same run: the same number of versions of as many *different* transactions (each
subscription read once: linear by construction). A ratio near 1 at every size means the
one-transaction batch is linear too. Verification is included in both (the same signatures).
Then one more version of a transaction that already has N versions, ingested alone, beside a
new transaction's first version in the same store (Hardening V: recording read every version
of the subscription; now the compactable ones, by index seeks): a ratio near 1 at every N
means the cost of a version does not grow with its transaction's history.
SQLite in a fresh file per batch; PostgreSQL too when $GATEKIT_TEST_POSTGRES names a server."""
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

import gatekit
from gatekit.jws import SignedDataVerifier

ROOT = Path(__file__).resolve().parent.parent
SIZES = [int(n) for n in os.environ.get("GATEKIT_BENCH_BATCH_SIZES", "1250,2500,5000").split(",")]


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main() -> None:
    try:
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    except ImportError as error:
        print(f"\n## Ledger batch scaling\n\nnot run: {error} (pip install cryptography)")
        return
    pki = Path(tempfile.mkdtemp(prefix="gatekit-bench-pki-"))
    subprocess.run([str(ROOT / "Tests" / "scripts" / "jws-test-pki.sh"), str(pki)], check=True, capture_output=True)
    key = serialization.load_pem_private_key((pki / "leaf.key").read_bytes(), None)
    header = b64url(json.dumps({"alg": "ES256", "x5c": [base64.b64encode((pki / f"{n}.der").read_bytes()).decode()
                                                        for n in ("leaf", "int", "root")]}).encode())
    now = int(time.time() * 1000)

    def sign(tid: str, original: str, signed: int) -> bytes:
        payload = {"transactionId": tid, "originalTransactionId": original, "bundleId": "com.example", "productId": "pro",
                   "subscriptionGroupIdentifier": "21000001", "purchaseDate": now - 86_400_000, "expiresDate": now + 86_400_000,
                   "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": signed,
                   "environment": "Sandbox"}
        text = header + "." + b64url(json.dumps(payload).encode())
        r, s = decode_dss_signature(key.sign(text.encode(), ec.ECDSA(hashes.SHA256())))
        return (text + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))).encode()

    verifier = SignedDataVerifier("com.example", "Sandbox", test_anchor=(pki / "root.der").read_bytes())
    at = datetime.fromtimestamp(time.time() + 60, timezone.utc)
    largest = max(SIZES)
    one = [sign("1", "1", now - largest + i) for i in range(largest)]
    many = [sign(str(10 + i), str(10 + i), now - largest + i) for i in range(largest)]
    backends = [("SQLite", None)]
    if os.environ.get("GATEKIT_TEST_POSTGRES"):
        backends.append(("PostgreSQL", os.environ["GATEKIT_TEST_POSTGRES"]))
    print("\n## Ledger batch scaling (`make bench BENCH=ledger_batch`)\n")
    print("| backend | versions | one transaction | reference: as many transactions | ratio |")
    print("|---|---:|---:|---:|---:|")
    scratch = Path(tempfile.mkdtemp(prefix="gatekit-bench-batch-"))
    for name, server in backends:
        for n in SIZES:
            seconds = []
            for items in (one[:n], many[:n]):
                where = server or str(scratch / f"{uuid.uuid4().hex}.sqlite")
                with gatekit.Store(where, app_id=f"bench.batch.{uuid.uuid4().hex[:12]}" if server else None) as store:
                    t0 = time.perf_counter()
                    store.ledger.ingest_batch("transaction", items, verifier, at)
                    seconds.append(time.perf_counter() - t0)
            print(f"| {name} | {n:,} | {seconds[0]:.2f} s | {seconds[1]:.2f} s | {seconds[0] / seconds[1]:.2f}x |", flush=True)
    print("\n## One more version after N versions of one transaction (`make bench BENCH=ledger_batch`)\n")
    print("Each figure the median of 40 single-item `ingest_batch` calls, interleaved: a new version of the")
    print("transaction that has N, and a new transaction's first version (the reference).\n")
    print("| backend | N versions held | one more version | reference: a new transaction | ratio |")
    print("|---|---:|---:|---:|---:|")
    more = [sign("1", "1", now + i) for i in range(40)]
    fresh = [sign(str(1_000_000 + i), str(1_000_000 + i), now + i) for i in range(40)]
    for name, server in backends:
        for n in SIZES:
            where = server or str(scratch / f"{uuid.uuid4().hex}.sqlite")
            with gatekit.Store(where, app_id=f"bench.batch.{uuid.uuid4().hex[:12]}" if server else None) as store:
                store.ledger.ingest_batch("transaction", one[:n], verifier, at)
                version, reference = [], []
                for a, b in zip(more, fresh):
                    t0 = time.perf_counter()
                    store.ledger.ingest_batch("transaction", [a], verifier, at)
                    t1 = time.perf_counter()
                    store.ledger.ingest_batch("transaction", [b], verifier, at)
                    version.append(t1 - t0)
                    reference.append(time.perf_counter() - t1)
            v, r = statistics.median(version) * 1000, statistics.median(reference) * 1000
            print(f"| {name} | {n:,} | {v:.2f} ms | {r:.2f} ms | {v / r:.2f}x |", flush=True)
    subprocess.run(["rm", "-rf", str(pki), str(scratch)], check=False)


if __name__ == "__main__":
    main()
