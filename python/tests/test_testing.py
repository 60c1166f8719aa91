"""gatekit.testing and `gatekit test` (issue 25, test data for users): a test PKI, data of every
kind signed under it, a subscription's whole life played through the ledger, and that what it
signs is test-signed everywhere — refused without the anchor or as Production, kept apart by
the ledger, and named as such when a question forgets the test flag."""
from __future__ import annotations

import json
import os
import stat
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import gatekit
from gatekit.jws import EJWS_PAYLOAD_FIELD, EJWS_TEST_SIGNED, EJWS_UNTRUSTED, SignedDataError, SignedDataVerifier
from gatekit.ledger import Reason, SubscriptionStatus
from gatekit.testing import KINDS, TestPKI

from conftest import REPO_ROOT

TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
BUNDLE = "com.example.app"
START = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def pki(tmp_path: Path) -> TestPKI:
    return TestPKI.create(tmp_path / "pki")


def day(n: float) -> datetime:
    return START + timedelta(days=n)


def test_the_pki_is_owner_only_and_made_once(tmp_path: Path, pki: TestPKI):
    assert stat.S_IMODE(pki.directory.stat().st_mode) == 0o700
    for name in ("root.der", "intermediate.der", "leaf.der", "leaf.key"):
        assert stat.S_IMODE((pki.directory / name).stat().st_mode) == 0o600
    assert (pki.directory / "leaf.key").read_text().startswith("-----BEGIN PRIVATE KEY-----")
    key = (pki.directory / "leaf.key").read_bytes()
    with pytest.raises(gatekit.GateKitError, match="already exists"):
        TestPKI.create(pki.directory)
    assert (pki.directory / "leaf.key").read_bytes() == key
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(gatekit.UnsafeStoreError):
        TestPKI.create(shared)
    assert list(shared.iterdir()) == []


def test_each_kind_verifies_only_under_its_anchor(pki: TestPKI):
    tx = pki.transaction(bundleId=BUNDLE, productId="pro.lifetime", transactionId="1", purchaseDate=START, type="Non-Consumable")
    renewal = pki.renewal_info(originalTransactionId="1", productId="pro.monthly", signedDate=START)
    note = pki.notification("TEST", bundleId=BUNDLE, signedDate=START)
    app = pki.app_transaction(bundleId=BUNDLE, signedDate=START)
    verifier = pki.verifier(BUNDLE)
    decoded = verifier.verify_transaction(tx)
    assert decoded.productId == "pro.lifetime" and decoded.purchaseDate == 1767225600000
    assert verifier.verified("transaction", tx)[1] is True            # marked test-signed
    assert verifier.verify_renewal_info(renewal).autoRenewProductId == "pro.monthly"
    assert verifier.verify_notification(note).notificationType.value == "TEST"
    assert verifier.verify_app_transaction(app).bundleId == BUNDLE
    # Without the anchor it is a forgery; under another PKI's anchor too.
    with pytest.raises(SignedDataError) as refused:
        SignedDataVerifier(BUNDLE, "Sandbox").verify_transaction(tx)
    assert refused.value.code == EJWS_UNTRUSTED
    other = TestPKI.create(pki.directory.parent / "other")
    with pytest.raises(SignedDataError) as foreign:
        other.verifier(BUNDLE).verify_transaction(tx)
    assert foreign.value.code == EJWS_UNTRUSTED


def test_test_signed_data_never_passes_as_production(pki: TestPKI):
    tx = pki.transaction(bundleId=BUNDLE, productId="p", transactionId="1", purchaseDate=START, environment="Production")
    with pytest.raises(SignedDataError) as refused:
        pki.verifier(BUNDLE, "Production", app_apple_id=1234).verify_transaction(tx)
    assert refused.value.code == EJWS_TEST_SIGNED


def test_what_gatekit_would_refuse_is_refused_at_signing(pki: TestPKI):
    with pytest.raises(SignedDataError, match="transactionId, which a renewal info never has") as wrong_kind:
        pki.sign("renewal-info", {"transactionId": "1", "originalTransactionId": "1", "autoRenewStatus": 1,
                                  "signedDate": START, "environment": "Sandbox"})
    assert wrong_kind.value.code == EJWS_PAYLOAD_FIELD
    with pytest.raises(SignedDataError, match="Apple spells it"):
        pki.transaction(bundleId=BUNDLE, productId="p", transactionId="1", purchaseDate=START, environment="sandbox")
    with pytest.raises(SignedDataError, match="lacks notificationType"):
        pki.sign("notification", {"notificationUUID": "u", "signedDate": START})
    with pytest.raises(ValueError, match="kind must be one of"):
        pki.sign("receipt", {})
    with pytest.raises((TypeError, ValueError)):
        pki.transaction(bundleId=BUNDLE, productId="p", transactionId="1", purchaseDate=datetime(2026, 1, 1))  # naive


def test_a_subscription_life_through_the_ledger(tmp_path: Path, pki: TestPKI):
    life = pki.subscription(bundleId=BUNDLE, productId="pro.monthly", subscriptionGroupIdentifier="pro",
                            originalTransactionId="1000", start=START, appAccountToken="6f1e1d55-7a1d-4c5e-9a3e-2f7b3c1d0e9a")
    events = [life.subscribe(), life.renew(), life.fail_to_renew(), life.recover(), life.disable_auto_renew(), life.expire()]
    with gatekit.Store(str(tmp_path / "s.sqlite"), app_id=BUNDLE) as store:
        verifier = pki.verifier(BUNDLE)
        for signed in reversed(events):  # any order gives the same answers
            assert store.ledger.ingest_notification(signed, verifier).test_signed is True
        assert store.ledger.ingest_notification(events[0], verifier).outcome.name == "DUPLICATE"

        def answer(n: float, customer: str = "1000") -> gatekit.Entitlement:
            return store.ledger.entitled(customer, "pro", environment="Sandbox", at=day(n), test_signed=True)

        assert answer(1).reason is Reason.SUBSCRIPTION and answer(1).until == day(30)
        assert answer(45).reason is Reason.SUBSCRIPTION and answer(45).until == day(60)
        assert answer(60.5).reason is Reason.BILLING_RETRY                    # no grace period given
        assert answer(70).reason is Reason.SUBSCRIPTION and answer(70).until == day(91)   # recovered on day 61
        assert answer(92).reason is Reason.EXPIRED
        assert answer(45, "6f1e1d55-7a1d-4c5e-9a3e-2f7b3c1d0e9a").reason is Reason.SUBSCRIPTION  # by account token
        status = store.ledger.subscription_status("1000", environment="Sandbox", test_signed=True)
        assert status["data"][0]["lastTransactions"][0]["status"] == SubscriptionStatus.EXPIRED
        # The same customer asked about as App Store data: nothing was bought, and it says why.
        plain = store.ledger.entitled("1000", "pro", environment="Sandbox", at=day(45))
        assert not plain and plain.reason is Reason.ONLY_TEST_SIGNED
        assert store.ledger.entitled("1000", "pro", environment="Xcode", at=day(45)).reason is Reason.UNKNOWN_CUSTOMER
        assert store.ledger.entitled("999", "pro", environment="Sandbox", at=day(45)).reason is Reason.UNKNOWN_CUSTOMER


def test_grace_period_and_refund(tmp_path: Path, pki: TestPKI):
    life = pki.subscription(bundleId=BUNDLE, productId="pro.monthly", subscriptionGroupIdentifier="pro",
                            originalTransactionId="2000", start=START, period=timedelta(days=7))
    events = [life.subscribe(), life.fail_to_renew(grace=timedelta(days=3))]
    with gatekit.Store(str(tmp_path / "s.sqlite"), app_id=BUNDLE) as store:
        verifier = pki.verifier(BUNDLE)
        for signed in events:
            store.ledger.ingest_notification(signed, verifier)
        grace = store.ledger.entitled("2000", "pro.monthly", environment="Sandbox", at=day(8), test_signed=True)
        assert grace.reason is Reason.GRACE_PERIOD and grace.until == day(10)
        assert store.ledger.entitled("2000", "pro.monthly", environment="Sandbox", at=day(11), test_signed=True).reason \
            is Reason.BILLING_RETRY
        store.ledger.ingest_notification(life.recover(), verifier)            # day 8: paid
        store.ledger.ingest_notification(life.refund(after=timedelta(days=2)), verifier)  # day 10: refunded
        assert store.ledger.entitled("2000", "pro.monthly", environment="Sandbox", at=day(9), test_signed=True).reason \
            is Reason.SUBSCRIPTION
        assert store.ledger.entitled("2000", "pro.monthly", environment="Sandbox", at=day(11), test_signed=True).reason \
            is Reason.REVOKED


def tool(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=60, cwd=cwd)


def test_the_tool_signs_what_python_verifies(tmp_path: Path):
    made = tool("test", "pki", "pki", cwd=tmp_path)
    assert made.returncode == 0 and made.stdout.strip() == "pki/root.der"
    again = tool("test", "pki", "pki", cwd=tmp_path)
    assert again.returncode == 1 and "already exists" in again.stderr
    payload = {"notificationType": "TEST", "notificationUUID": "9a3e2f7b-0000-4000-8000-000000000001",
               "signedDate": 1767225600000, "version": "2.0", "data": {"bundleId": BUNDLE, "environment": "Sandbox"}}
    (tmp_path / "note.json").write_text(json.dumps(payload))
    signed = tool("test", "sign", "--pki", "pki", "--kind", "notification", "note.json", cwd=tmp_path)
    assert signed.returncode == 0, signed.stderr
    decoded = TestPKI(tmp_path / "pki").verifier(BUNDLE).verify_json("notification", signed.stdout.strip())
    assert decoded["notificationUUID"] == payload["notificationUUID"] and decoded["gatekit"]["testSigned"] is True
    wrong = tool("test", "sign", "--pki", "pki", "--kind", "renewal-info", "note.json", cwd=tmp_path)
    assert wrong.returncode == 10 and json.loads(wrong.stdout)["code"] == EJWS_PAYLOAD_FIELD and "notificationType" in wrong.stderr
    missing = tool("test", "sign", "--kind", "notification", "note.json", cwd=tmp_path)
    assert missing.returncode == 2 and "missing --pki" in missing.stderr.splitlines()[0]
    unknown = tool("test", "sign", "--pki", "pki", "--kind", "renewal", "note.json", cwd=tmp_path)
    assert unknown.returncode == 2 and "renewal-info" in unknown.stderr


def test_every_kind_has_one_name(pki: TestPKI):
    """The kinds Python signs are the tool's --kind / --type names."""
    usage = subprocess.run([TOOL, "test", "--help"], capture_output=True, text=True).stdout
    assert "|".join(KINDS) in usage
    jws_usage = subprocess.run([TOOL, "jws", "--help"], capture_output=True, text=True).stdout
    assert "renewal-info" in jws_usage and "|renewal|" not in jws_usage


def test_a_production_subscription_life_carries_the_apps_apple_id(tmp_path: Path, pki: TestPKI):
    """Issue 60, item 12: Production test data from the helper ingests (Apple signs appAppleId
    into Production notifications); without appAppleId the helper says what it needs."""
    with pytest.raises(ValueError, match="pass appAppleId="):
        pki.subscription(bundleId=BUNDLE, productId="pro.monthly", subscriptionGroupIdentifier="pro",
                         originalTransactionId="2000", start=START, environment="Production")
    life = pki.subscription(bundleId=BUNDLE, productId="pro.monthly", subscriptionGroupIdentifier="pro",
                            originalTransactionId="2000", start=START, environment="Production", appAppleId=1234)
    with gatekit.Store(str(tmp_path / "p.sqlite"), app_id=BUNDLE) as store:
        result = store.ledger.ingest_notification(life.subscribe(), pki.verifier(BUNDLE, "Production", app_apple_id=1234,
                                                                                 test_production=True))
        assert result.outcome.name == "NEW" and result.test_signed
        assert store.ledger.entitled("2000", "pro", environment="Production", at=day(1), test_signed=True).reason is Reason.SUBSCRIPTION
