"""asyncio_entitlements.py: GateKit from asyncio code.

    python3 examples/asyncio_entitlements.py

GateKit's calls block (a write waits for fsync, a PostgreSQL store for the network), so an
event loop hands them to threads with asyncio.to_thread; one Store serves every thread. This
demo signs a subscription's notifications with a throw-away test PKI, records them
concurrently, asks 200 questions at once, and prints what the ledger answered.
"""
from __future__ import annotations

import asyncio
import tempfile
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import gatekit
from gatekit.ledger import Entitlement
from gatekit.testing import TestPKI

BUNDLE = "com.example.app"
START = datetime(2026, 1, 1, tzinfo=timezone.utc)


async def entitled(store: gatekit.Store, customer: str, product: str, at: datetime) -> Entitlement:
    """The ledger's answer without blocking the event loop."""
    return await asyncio.to_thread(store.ledger.entitled, customer, product, environment="Sandbox", at=at,
                                   test_signed=True)


async def main(folder: Path) -> "Counter[str]":
    pki = TestPKI.create(folder / "pki")
    verifier = pki.verifier(BUNDLE)
    with gatekit.Store(str(folder / "ledger.sqlite"), app_id=BUNDLE) as store:
        lives = [pki.subscription(bundleId=BUNDLE, productId="pro.monthly", subscriptionGroupIdentifier="pro",
                                  originalTransactionId=str(1000 + n), start=START) for n in range(20)]
        signed = [n for life in lives for n in (life.subscribe(), life.renew())]
        await asyncio.gather(*(asyncio.to_thread(store.ledger.ingest_notification, s, verifier) for s in signed))
        questions = [entitled(store, str(1000 + n % 20), "pro", START + timedelta(days=n % 90)) for n in range(200)]
        answers = await asyncio.gather(*questions)
    return Counter(a.reason.name.lower() for a in answers)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        counts = asyncio.run(main(Path(scratch)))
    print(", ".join(f"{reason}: {n}" for reason, n in sorted(counts.items())))
