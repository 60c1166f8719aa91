"""App Store Server API calls from asyncio: gatekit.apple's AsyncAppStoreServerAPIClient (the
blocking libgatekit call on a bounded thread pool) beside Apple's own AsyncAppStoreServerAPIClient
(httpx), both against the same local HTTPS stand-in (scripts/with-appstore-standin.sh, which
`make bench` starts), interleaved in one run.

Rows: one call at a time (latency), and 96 calls at once with at most 16 in flight
(throughput); "verified" adds each client's verification of the signed member (Apple's
SignedDataVerifier for Apple's client, the client's own verifier for GateKit's). The last row
is how late a 1 ms ticker on the same event loop ran at worst during the 96 calls: what the
other coroutines of the server wait."""
from __future__ import annotations

import asyncio
import os
import ssl
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, List, Tuple

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))

from gatekit.apple.api_client import AsyncAppStoreServerAPIClient  # noqa: E402
from gatekit.jws import SignedDataVerifier  # noqa: E402

ROUNDS = 7
SEQUENTIAL = 40
BATCH = 96
IN_FLIGHT = 16

Call = Callable[[], Awaitable[Any]]


async def sequential_us(call: Call) -> float:
    t0 = time.perf_counter_ns()
    for _ in range(SEQUENTIAL):
        await call()
    return (time.perf_counter_ns() - t0) / SEQUENTIAL / 1e3


async def batch(call: Call) -> Tuple[float, float]:
    """BATCH calls, at most IN_FLIGHT at once: µs per call (wall) and the ticker's worst lateness (ms)."""
    slots = asyncio.Semaphore(IN_FLIGHT)
    worst = 0.0
    done = asyncio.Event()

    async def one() -> None:
        async with slots:
            await call()

    async def ticker() -> None:
        nonlocal worst
        while not done.is_set():
            t = time.perf_counter()
            await asyncio.sleep(0.001)
            worst = max(worst, (time.perf_counter() - t - 0.001) * 1e3)
    ticking = asyncio.ensure_future(ticker())
    t0 = time.perf_counter_ns()
    await asyncio.gather(*(one() for _ in range(BATCH)))
    elapsed = (time.perf_counter_ns() - t0) / BATCH / 1e3
    done.set()
    await ticking
    return elapsed, worst


async def run() -> int:
    e = os.environ
    if "GATEKIT_TEST_APPSTORE_URL" not in e:
        print("\n(async App Store Server API calls skipped: no stand-in; make bench starts one with scripts/with-appstore-standin.sh)")
        return 0
    try:
        import httpx
        from appstoreserverlibrary.api_client import AsyncAppStoreServerAPIClient as ApplesClient
        from appstoreserverlibrary.models.Environment import Environment
        from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier as ApplesVerifier
    except ImportError:
        print("\n(async App Store Server API calls skipped: pip install app-store-server-library httpx for Apple's reference)")
        return 0
    key = Path(e["GATEKIT_TEST_APPSTORE_KEY"]).read_bytes()
    anchor = Path(e["GATEKIT_TEST_APPSTORE_ANCHOR"]).read_bytes()
    ids = (e["GATEKIT_TEST_APPSTORE_KEY_ID"], e["GATEKIT_TEST_APPSTORE_ISSUER"], e["GATEKIT_TEST_APPSTORE_BUNDLE_ID"])
    common: Dict[str, Any] = {"base_url": e["GATEKIT_TEST_APPSTORE_URL"], "ca_file": e["GATEKIT_TEST_APPSTORE_CA"]}
    ours_raw = AsyncAppStoreServerAPIClient(key, *ids, "Sandbox", **common)
    ours_verified = AsyncAppStoreServerAPIClient(key, *ids, "Sandbox", **common,
                                                 verifier=SignedDataVerifier(ids[2], "Sandbox", test_anchor=anchor))
    theirs = ApplesClient(key, *ids, Environment.SANDBOX)
    theirs._base_url = e["GATEKIT_TEST_APPSTORE_URL"]
    await theirs.http_client.aclose()  # the same client Apple makes, trusting the stand-in's CA
    theirs.http_client = httpx.AsyncClient(verify=ssl.create_default_context(cafile=e["GATEKIT_TEST_APPSTORE_CA"]))
    apples_verifier = ApplesVerifier([anchor], False, Environment.SANDBOX, ids[2])

    async def apple_verified() -> None:
        r = await theirs.get_transaction_info("1234")
        apples_verifier.verify_and_decode_signed_transaction(r.signedTransactionInfo)

    rows: List[Tuple[str, Call, Call]] = [
        ("get_transaction_info, raw", lambda: ours_raw.get_transaction_info("1234"), lambda: theirs.get_transaction_info("1234")),
        ("get_transaction_info, signed member verified", lambda: ours_verified.get_transaction_info("1234"), apple_verified),
    ]
    print("\n## App Store Server API calls from asyncio (local HTTPS stand-in on loopback)\n")
    print(f"Median of {ROUNDS} interleaved rounds: {SEQUENTIAL} calls one after another, and {BATCH} calls at once with at most "
          f"{IN_FLIGHT} in flight.\n")
    print("| call | gatekit.apple async | Apple's async (httpx) | GateKit faster by |\n|---|---:|---:|---:|")
    stalls: Dict[str, List[float]] = {"gatekit": [], "apple": []}
    for name, ours, apples in rows:
        await ours()
        await apples()  # connections, caches and tokens warm
        seq: Tuple[List[float], List[float]] = ([], [])
        many: Tuple[List[float], List[float]] = ([], [])
        for _ in range(ROUNDS):  # interleaved: drift on the machine falls on both
            seq[0].append(await sequential_us(ours))
            seq[1].append(await sequential_us(apples))
            ours_batch, ours_stall = await batch(ours)
            apples_batch, apples_stall = await batch(apples)
            many[0].append(ours_batch)
            many[1].append(apples_batch)
            stalls["gatekit"].append(ours_stall)
            stalls["apple"].append(apples_stall)
        for label, (a_rounds, b_rounds) in ((f"{name}, one at a time", seq), (f"{name}, {IN_FLIGHT} in flight", many)):
            a, b = statistics.median(a_rounds), statistics.median(b_rounds)
            print(f"| {label} | {1e6 / a:,.0f}/s ({a:,.0f} µs) | {1e6 / b:,.0f}/s ({b:,.0f} µs) | **{b / a:.1f}×** |")
    print(f"| event loop: worst lateness of a 1 ms ticker during {BATCH} calls (median of rounds) | "
          f"{statistics.median(stalls['gatekit']):.1f} ms | {statistics.median(stalls['apple']):.1f} ms | |")
    await ours_raw.async_close()
    await ours_verified.async_close()
    await theirs.async_close()
    print("\nReproduce: `make bench BENCH=api_async`.")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(run()))
