"""App Store Server API calls per second from Python: GateKit's AppStoreServerAPIClient beside
Apple's own (pip install app-store-server-library), both against the same local HTTPS stand-in
(scripts/with-appstore-standin.sh, which `make bench` starts), interleaved in one run.

Apple's client decodes nothing; to compare the same work, "verified" rows add Apple's
SignedDataVerifier over each signed member of the answer, as a server must before trusting it."""
from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))

from gatekit import api_client as gk  # noqa: E402
from gatekit.jws import SignedDataVerifier  # noqa: E402

ROUNDS = 7
CALLS = 60


def microseconds_per_call(body: Callable[[], object]) -> float:
    """One round: CALLS calls, their mean in microseconds."""
    t0 = time.perf_counter_ns()
    for _ in range(CALLS):
        body()
    return (time.perf_counter_ns() - t0) / CALLS / 1e3


def main() -> int:
    e = os.environ
    if "GATEKIT_TEST_APPSTORE_URL" not in e:
        print("\n(App Store Server API calls skipped: no stand-in; make bench starts one with scripts/with-appstore-standin.sh)")
        return 0
    try:
        from appstoreserverlibrary.api_client import AppStoreServerAPIClient as ApplesClient
        from appstoreserverlibrary.models.Environment import Environment
        from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier as ApplesVerifier
    except ImportError:
        print("\n(App Store Server API calls skipped: pip install app-store-server-library for Apple's reference)")
        return 0
    key = Path(e["GATEKIT_TEST_APPSTORE_KEY"]).read_bytes()
    anchor = Path(e["GATEKIT_TEST_APPSTORE_ANCHOR"]).read_bytes()
    ids = (e["GATEKIT_TEST_APPSTORE_KEY_ID"], e["GATEKIT_TEST_APPSTORE_ISSUER"], e["GATEKIT_TEST_APPSTORE_BUNDLE_ID"])
    os.environ["REQUESTS_CA_BUNDLE"] = e["GATEKIT_TEST_APPSTORE_CA"]
    common: Dict[str, Any] = {"base_url": e["GATEKIT_TEST_APPSTORE_URL"], "ca_file": e["GATEKIT_TEST_APPSTORE_CA"], "max_retries": 0}
    ours_raw = gk.AppStoreServerAPIClient(key, *ids, "Sandbox", **common)
    ours_verified = gk.AppStoreServerAPIClient(key, *ids, "Sandbox", verifier=SignedDataVerifier(ids[2], "Sandbox", test_anchor=anchor),
                                               **common)
    theirs = ApplesClient(key, *ids, Environment.SANDBOX)
    theirs._base_url = e["GATEKIT_TEST_APPSTORE_URL"]
    apples_verifier = ApplesVerifier([anchor], False, Environment.SANDBOX, ids[2])

    def apple_info_verified() -> None:
        r = theirs.get_transaction_info("1234")
        apples_verifier.verify_and_decode_signed_transaction(r.signedTransactionInfo)

    from appstoreserverlibrary.models.TransactionHistoryRequest import TransactionHistoryRequest as ApplesHistoryRequest
    history = ApplesHistoryRequest()
    rows = [
        ("get_transaction_info, raw", lambda: ours_raw.get_transaction_info("1234"), lambda: theirs.get_transaction_info("1234")),
        ("get_transaction_info, signed member verified", lambda: ours_verified.get_transaction_info("1234"), apple_info_verified),
        ("get_transaction_history (2 signed), verified", lambda: ours_verified.get_transaction_history("1234", None, history),
         lambda: [apples_verifier.verify_and_decode_signed_transaction(t)
                  for t in theirs.get_transaction_history("1234", None, history).signedTransactions or []]),
        ("get_all_subscription_statuses, raw", lambda: ours_raw.get_all_subscription_statuses("1234"),
         lambda: theirs.get_all_subscription_statuses("1234")),
    ]
    # The floor: one keep-alive HTTPS GET of the same answer with a ready token, body parsed,
    # from http.client (what any Python client must at least spend, most of it the stand-in's).
    import http.client
    import json
    import ssl
    from urllib.parse import urlsplit
    from gatekit.appstore import APIToken
    url = urlsplit(e["GATEKIT_TEST_APPSTORE_URL"])
    connection = http.client.HTTPSConnection(url.hostname or "127.0.0.1", url.port,
                                             context=ssl.create_default_context(cafile=e["GATEKIT_TEST_APPSTORE_CA"]))
    headers = {"Authorization": f"Bearer {APIToken(key, *ids).token()}", "Accept": "application/json"}

    def floor() -> None:
        connection.request("GET", "/inApps/v1/transactions/1234", headers=headers)
        json.loads(connection.getresponse().read())

    floor()
    floor_rounds: List[float] = []
    print("\n## App Store Server API calls from Python (local HTTPS stand-in on loopback)\n")
    print(f"Median of {ROUNDS} interleaved rounds of {CALLS} calls each; calls per second = 10⁶ / median µs per call.\n")
    print("| call | GateKit | Apple's app-store-server-library | GateKit faster by |\n|---|---:|---:|---:|")
    rows_done: List[Any] = []
    for name, ours, apples in rows:
        ours()
        apples()  # connections, caches and tokens warm
        a_rounds: List[float] = []
        b_rounds: List[float] = []
        for _ in range(ROUNDS):  # interleaved: drift on the machine falls on both
            a_rounds.append(microseconds_per_call(ours))
            b_rounds.append(microseconds_per_call(apples))
            floor_rounds.append(microseconds_per_call(floor))
        a, b = statistics.median(a_rounds), statistics.median(b_rounds)
        print(f"| {name} | {1e6 / a:,.0f}/s ({a:,.0f} µs) | {1e6 / b:,.0f}/s ({b:,.0f} µs) | **{b / a:.1f}×** |")
        rows_done.append((name, a))
    f = statistics.median(floor_rounds)
    print(f"| reference: one keep-alive `http.client` GET of the same answer, token ready, JSON parsed | {1e6 / f:,.0f}/s ({f:,.0f} µs) | | |")
    print(f"\nGateKit's raw get_transaction_info is **{rows_done[0][1] / f:.2f}×** that floor (same run, interleaved).")
    print("\n(GateKit keeps its TLS connection open between calls, as Apple's Java and Swift clients do; Apple's Python client")
    print("opens one per call through `requests.request`. The stand-in signs each answer once and serves it from memory.)")
    print("Reproduce: `make bench BENCH=api`.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
