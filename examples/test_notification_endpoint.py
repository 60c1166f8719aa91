"""How a server team tests its own App Store notification endpoint with GateKit's test data
(docs/testing.md): a test PKI, a subscription's whole life as the notifications Apple would
send, posted to the endpoint (here examples/notification_server.py, in-process), and the
answers checked at each step.

    python3 -m pytest -q examples/test_notification_endpoint.py
"""
from __future__ import annotations

import json
import sys
import threading
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator, Tuple

import pytest

import gatekit
from gatekit.ledger import Reason
from gatekit.testing import TestPKI

sys.path.insert(0, str(Path(__file__).parent))
from notification_server import serve  # noqa: E402  (the endpoint under test)

BUNDLE = "com.example.app"
START = datetime(2026, 1, 1, tzinfo=timezone.utc)


Endpoint = Tuple[TestPKI, gatekit.Store, str]


@pytest.fixture
def endpoint(tmp_path: Path) -> Iterator[Endpoint]:
    """The endpoint on a free loopback port, trusting the test PKI's root (test mode)."""
    pki = TestPKI.create(tmp_path / "pki")
    store = gatekit.Store(str(tmp_path / "ledger.sqlite"), app_id=BUNDLE)
    server = serve(store, pki.verifier(BUNDLE, "Sandbox"), port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield pki, store, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    store.close()


def post(base: str, signed_payload: str) -> int:
    body = json.dumps({"signedPayload": signed_payload}).encode()
    request = urllib.request.Request(base + "/appstore/notifications", data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_a_subscription_life_through_the_endpoint(endpoint: Endpoint) -> None:
    pki, store, base = endpoint
    life = pki.subscription(bundleId=BUNDLE, productId="pro.monthly", subscriptionGroupIdentifier="pro",
                            originalTransactionId="1000", start=START, period=timedelta(days=30), price=9990, currency="USD")
    assert post(base, life.subscribe()) == 200
    assert post(base, life.renew()) == 200                             # day 30: a new period
    assert post(base, life.fail_to_renew(grace=timedelta(days=6))) == 200   # day 60
    assert post(base, life.recover()) == 200                           # day 61: paid again
    assert post(base, life.refund()) == 200                            # day 64: refunded
    assert post(base, life.sent[0]) == 200                             # Apple retried: a duplicate

    def reason(day: float) -> Reason:
        at = START + timedelta(days=day)
        answer: Reason = store.ledger.entitled("1000", "pro", environment="Sandbox", at=at, test_signed=True).reason
        return answer

    assert reason(10) is Reason.SUBSCRIPTION
    assert reason(45) is Reason.SUBSCRIPTION
    assert reason(60.5) is Reason.GRACE_PERIOD
    assert reason(62) is Reason.SUBSCRIPTION
    assert reason(65) is Reason.REVOKED
    # Asked as App Store data (no test flag), nothing was bought, and the answer says why.
    plain = store.ledger.entitled("1000", "pro", environment="Sandbox", at=START + timedelta(days=10))
    assert not plain and plain.reason is Reason.ONLY_TEST_SIGNED


def test_forged_and_foreign_notifications_are_refused(endpoint: Endpoint, tmp_path: Path) -> None:
    pki, store, base = endpoint
    stranger = TestPKI.create(tmp_path / "stranger")          # a chain the endpoint does not trust
    life = stranger.subscription(bundleId=BUNDLE, productId="pro.monthly", subscriptionGroupIdentifier="pro",
                                 originalTransactionId="2000", start=START)
    assert post(base, life.subscribe()) == 400
    other_app = pki.subscription(bundleId="com.example.other", productId="pro.monthly",
                                 subscriptionGroupIdentifier="pro", originalTransactionId="3000", start=START)
    assert post(base, other_app.subscribe()) == 400
    assert store.ledger.history(environment="Sandbox", test_signed=True)["items"] == []
