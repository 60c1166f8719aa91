"""Both stores in one ledger, offline: a catalog for the App Store and Google Play, alice's app
account holding an Apple subscription and a Play purchase, and one question, "is alice entitled
to pro?", answered from whichever store entitles her then.

No network and no account are needed: the Apple data is signed by a test PKI made here and the
Play answers are what Google answers for a license tester. Test data of both stores lands in one
scope: Apple's test-signed data and a license tester's Play purchase are both test data, asked
with test_signed=True in environment "Production" (Play has no sandbox; Apple test data for
Production passes a verifier made with test_production=True).

    python3 both_stores.py [STORE]      exit 0: alice is entitled to pro now (from Google Play)

With STORE the ledger stays there for the tool to ask (docs/play.md, "Quick start").
"""
from __future__ import annotations

import datetime
import json
import sys
import tempfile
from pathlib import Path

import gatekit
from gatekit.testing import PlaySubscriptionLife, TestPKI

APP = "com.example.app"            # the bundle id and the package name
ALICE = "7e3fb20b-4c1a-4a6e-9f0e-3c1d2b5a6f70"  # her app account: appAccountToken, obfuscatedExternalAccountId
DAY = datetime.timedelta(days=1)


def main(argv: list[str]) -> int:
    now = datetime.datetime.now(datetime.timezone.utc)
    with tempfile.TemporaryDirectory() as scratch:
        path = argv[1] if len(argv) > 1 else str(Path(scratch) / "ledger.sqlite")
        pki = TestPKI.create(Path(scratch) / "pki")
        with gatekit.Store(path) as store:
            ledger = store.ledger
            # One catalog for both stores: each store's product ids, the same entitlement names.
            ledger.declare_catalog({"products": {
                "com.example.pro.monthly": {"type": "auto-renewable", "entitlements": ["pro"]},  # App Store
                "pro.monthly": {"type": "auto-renewable", "entitlements": ["pro"]},              # Google Play
            }})
            # On iOS: a month of pro bought 40 days ago, not renewed.
            apple = pki.subscription(bundleId=APP, productId="com.example.pro.monthly", subscriptionGroupIdentifier="pro",
                                     originalTransactionId="2000000001", start=now - 40 * DAY, environment="Production",
                                     appAccountToken=ALICE, appAppleId=1234567890)
            verifier = pki.verifier(APP, "Production", 1234567890, test_production=True)
            ledger.ingest_notification(apple.subscribe(), verifier)
            ledger.ingest_notification(apple.expire(), verifier)
            # On Android, 5 days ago: pro again, as a license tester (Google marks it testPurchase).
            play = PlaySubscriptionLife(APP, "pro.monthly", "play-token-alice-1", start=now - 5 * DAY,
                                        test_purchase=True, obfuscated_account_id=ALICE)
            play.subscribe()
            ledger.ingest_play_subscription(APP, play.purchase_token, json.dumps(play.resource()))
            # Asked by her app account: 20 days ago Apple's month entitled her, now Google's does.
            for label, at in (("20 days ago", now - 20 * DAY), ("10 days ago", now - 10 * DAY), ("now", None)):
                e = ledger.entitled(ALICE, "pro", environment="Production", test_signed=True, at=at)
                print(f"alice, pro, {label}: {'entitled' if e else 'not entitled'} ({e.reason.name.lower()}"
                      + (f", from {e.store}: {e.product_id})" if e.store else ")"))
            # Or by your own user id, once linked to her app account.
            ledger.link("alice", ALICE, environment="Production")
            return 0 if ledger.entitled("alice", "pro", environment="Production", test_signed=True, by_app_user=True) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
