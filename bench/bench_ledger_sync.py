"""The ledger's sync from Apple's notification history (issue 28), beside what bounds it,
measured in the same run on the same items: N signed notifications (default 100,000; each with
its signed transaction) held by the App Store Server API stand-in (make bench starts it), then

- the API alone: every page fetched, nothing verified (Apple's pages hold 20 records);
- the verification ceiling: every notification verified (nested transaction too), nothing stored;
- the sync: ledger_sync_notifications from an empty store — fetch, verify, record, checkpoint —
  on SQLite, and on PostgreSQL when $GATEKIT_TEST_POSTGRES names a server.

    GATEKIT_BENCH_SYNC_ITEMS=20000 make bench BENCH=ledger_sync
"""
from __future__ import annotations

import base64
import ctypes
import json
import os
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import gatekit
from gatekit import _bindings, api_client as gk
from gatekit.jws import SignedDataVerifier

ROOT = Path(__file__).resolve().parent.parent
ITEMS = int(os.environ.get("GATEKIT_BENCH_SYNC_ITEMS", "100000"))
DAY = 86_400_000


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signer(pki: Path) -> Callable[[Dict[str, Any]], str]:
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    key = serialization.load_pem_private_key((pki / "leaf.key").read_bytes(), None)
    header = b64url(json.dumps({"alg": "ES256", "x5c": [base64.b64encode((pki / f"{n}.der").read_bytes()).decode()
                                                        for n in ("leaf", "int", "root")]}).encode())

    def sign(payload: Dict[str, Any]) -> str:
        text = header + "." + b64url(json.dumps(payload, separators=(",", ":")).encode())
        r, s = decode_dss_signature(key.sign(text.encode(), ec.ECDSA(hashes.SHA256())))  # type: ignore[union-attr]
        return text + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
    return sign


def notifications(sign: Callable[[Dict[str, Any]], str], bundle: str, now: int) -> List[Tuple[int, str]]:
    """ITEMS notifications over the last 20 days: a subscription and its renewals, five per customer."""
    out = []
    start = now - 20 * DAY
    for i in range(ITEMS):
        at = start + i * (20 * DAY) // ITEMS
        original = str(1_000_000 + i // 5)
        tx = {"transactionId": str(10_000_000 + i), "originalTransactionId": original, "bundleId": bundle, "productId": "pro.monthly",
              "subscriptionGroupIdentifier": "21000001", "purchaseDate": at, "originalPurchaseDate": at, "expiresDate": at + 30 * DAY,
              "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": at, "environment": "Sandbox",
              "transactionReason": "PURCHASE" if i % 5 == 0 else "RENEWAL"}
        n = {"notificationType": "SUBSCRIBED" if i % 5 == 0 else "DID_RENEW", "notificationUUID": str(uuid.uuid4()),
             "data": {"environment": "Sandbox", "bundleId": bundle, "appAppleId": 41234, "signedTransactionInfo": sign(tx)},
             "version": "2.0", "signedDate": at}
        out.append((at, sign(n)))
    return out


def control(method: str, path: str, body: Dict[str, Any]) -> None:
    context = ssl.create_default_context(cafile=os.environ["GATEKIT_TEST_APPSTORE_CA"])
    request = urllib.request.Request(os.environ["GATEKIT_TEST_APPSTORE_URL"] + path, data=json.dumps(body).encode(), method=method,
                                     headers={"Authorization": f"Bearer {os.environ['GATEKIT_TEST_APPSTORE_CONTROL']}"})
    with urllib.request.urlopen(request, context=context, timeout=600) as answer:
        answer.read()


def client(bundle: str) -> gk.AppStoreServerAPIClient:
    e = os.environ
    return gk.AppStoreServerAPIClient(Path(e["GATEKIT_TEST_APPSTORE_KEY"]).read_bytes(), e["GATEKIT_TEST_APPSTORE_KEY_ID"],
                                      e["GATEKIT_TEST_APPSTORE_ISSUER"], bundle, gk.Environment.SANDBOX,
                                      base_url=e["GATEKIT_TEST_APPSTORE_URL"], ca_file=e["GATEKIT_TEST_APPSTORE_CA"], max_retries=0)


def main() -> None:
    if not os.environ.get("GATEKIT_TEST_APPSTORE_CONTROL"):
        print("\n## Ledger sync\n\nnot run: no App Store Server API stand-in (make bench starts one)")
        return
    try:
        import cryptography  # noqa: F401
    except ImportError as error:
        print(f"\n## Ledger sync\n\nnot run: {error} (pip install cryptography)")
        return
    pki = Path(tempfile.mkdtemp(prefix="gatekit-bench-pki-"))
    subprocess.run([str(ROOT / "Tests" / "scripts" / "jws-test-pki.sh"), str(pki)], check=True, capture_output=True)
    bundle = f"com.example.bench.{uuid.uuid4().hex[:8]}"
    now = int(time.time() * 1000)
    made = time.perf_counter()
    items = notifications(signer(pki), bundle, now)
    made = time.perf_counter() - made
    control("PUT", "/standin/world", {"bundleId": bundle, "notifications": [
        {"signedPayload": jws, "sendAttempts": [{"attemptDate": at, "sendAttemptResult": "TIMED_OUT"}]} for at, jws in items]})
    verifier = SignedDataVerifier(bundle, "Sandbox", test_anchor=(pki / "root.der").read_bytes())
    verify_at = datetime.fromtimestamp(time.time() + 60, timezone.utc)
    since = datetime.fromtimestamp((now - 21 * DAY) / 1000, timezone.utc)
    request = {"startDate": now - 21 * DAY, "endDate": now}

    with client(bundle) as api:
        started, token, pages = time.perf_counter(), None, 0
        while True:
            page = api.get_notification_history(token, request)
            pages += 1
            if not page.hasMore:
                break
            token = page.paginationToken
        fetch = time.perf_counter() - started
    # The ceiling through the C call that verifies without decoding into JSON (jws_verify, one
    # handle per item), so Python builds nothing the sync does not build either.
    options = verifier.c_options(verify_at)
    handle = ctypes.POINTER(_bindings.gatekit_jws)()
    texts = [jws.encode() for _, jws in items]
    started = time.perf_counter()
    for text in texts:
        if _bindings.jws_verify(ctypes.byref(handle), _bindings.GATEKIT_JWS_NOTIFICATION, text, ctypes.byref(options)) != 0:
            raise RuntimeError(_bindings.gatekit_last_error())
        _bindings.jws_free(handle)
    ceiling = time.perf_counter() - started

    rows = []
    backends = [("SQLite", None)]
    if os.environ.get("GATEKIT_TEST_POSTGRES"):
        backends.append(("PostgreSQL", os.environ["GATEKIT_TEST_POSTGRES"]))
    for name, server in backends:
        folder = tempfile.mkdtemp(prefix="gatekit-bench-sync-")
        where = server or str(Path(folder) / "sync.sqlite")
        with gatekit.Store(where, app_id=f"bench.sync.{uuid.uuid4().hex[:8]}" if server else None) as store, client(bundle) as api:
            started = time.perf_counter()
            report = store.ledger.sync_notifications(api, verifier, since=since, verify_time=verify_at)
            took = time.perf_counter() - started
            assert report.new == ITEMS and report.rejected == 0, report.raw
        rows.append((name, took, report.pages))

    print(f"\n## Ledger sync from notification history ({ITEMS:,} items)\n")
    print(f"`GATEKIT_BENCH_SYNC_ITEMS={ITEMS} make bench BENCH=ledger_sync` — each notification carries its signed "
          f"transaction; the stand-in (Python, loopback HTTPS) serves Apple's 20 records a page. Made in {made:.0f} s.\n")
    print("| what | seconds | items/s | vs the verification ceiling |")
    print("|---|---|---|---|")
    print(f"| the API alone: {pages:,} pages fetched, nothing verified | {fetch:.1f} | {ITEMS / fetch:,.0f} | {ceiling / fetch:.2f}× |")
    print(f"| the verification ceiling: every item verified, nothing stored | {ceiling:.1f} | {ITEMS / ceiling:,.0f} | 1.00× |")
    for name, took, sync_pages in rows:
        print(f"| sync, {name}: fetched, verified, recorded with a checkpoint per page ({sync_pages:,} pages) | {took:.1f} | "
              f"{ITEMS / took:,.0f} | {ceiling / took:.2f}× |")


if __name__ == "__main__":
    sys.exit(main())
