"""Hardening III, the ledger (docs/hardening.md): identity and exact bytes, on both backends.
Each test failed before its fix: an account transfer kept the old token entitled, a warm cache
merged canonically equivalent customers, a NUL cut a signed string short, a realtime request
passed as renewal info, a token equal to another customer's original transaction id inherited
its answers, a lone upgraded transaction entitled, two apps mixed in one ledger, and a batch of
versions of one transaction cost quadratic time."""
from __future__ import annotations

import copy
import time
import uuid
from typing import Any, Dict

import pytest

import gatekit
from gatekit.jws import SignedDataVerifier

from conftest import utc
from ledger_lives import BUNDLE, DAY, MODELS, model
from signing import CHAIN, PKI, pki  # noqa: F401  (pki is a fixture)

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"App Store API models not found at {MODELS} (set GATEKIT_FIXTURES)")

NOW_MS = int(time.time() * 1000)
VERIFY_AT = utc(int(time.time()) + 120)


@pytest.fixture(scope="module", autouse=True)
def certificate_check_time(pki: PKI) -> None:
    """The certificate-check time, taken once this module's PKI exists (its certificates are
    valid from their making): taken at import, it would precede a PKI made minutes later in a
    long run."""
    global VERIFY_AT
    VERIFY_AT = utc(int(time.time()) + 120)
GROUP = "21000001"


@pytest.fixture(scope="module")
def verifier(pki: PKI) -> SignedDataVerifier:
    return SignedDataVerifier(BUNDLE, "Sandbox", test_anchor=pki.der("root"))


def transaction(tid: str, original: str, *, signed: int, token: str | None = None, product: str = "pro.monthly",
                expires: int | None = None, **extra: Any) -> Dict[str, Any]:
    t = model("signedTransaction")
    for key in ("revocationDate", "revocationReason", "isUpgraded", "appAccountToken", "offerType", "offerIdentifier"):
        t.pop(key, None)
    t.update(transactionId=tid, originalTransactionId=original, bundleId=BUNDLE, productId=product,
             subscriptionGroupIdentifier=GROUP, purchaseDate=NOW_MS - DAY, originalPurchaseDate=NOW_MS - DAY,
             expiresDate=expires if expires is not None else NOW_MS + 30 * DAY, type="Auto-Renewable Subscription",
             signedDate=signed, environment="Sandbox", inAppOwnershipType="PURCHASED")
    if token is not None:
        t["appAccountToken"] = token
    t.update(extra)
    return t


def ask(store: gatekit.Store, customer: str, subject: str = "pro.monthly") -> gatekit.Entitlement:
    return store.ledger.entitled(customer, subject, environment="Sandbox", test_signed=True)


def test_an_account_transfer_leaves_the_old_account(store, pki, verifier):
    """Apple re-signs the transaction with another appAccountToken (Set App Account Token):
    only the newest version's token is entitled."""
    old, new = str(uuid.uuid4()), str(uuid.uuid4())
    store.ledger.ingest_transaction(pki.sign(transaction("700", "700", signed=NOW_MS - 2000, token=old), CHAIN), verifier, VERIFY_AT)
    assert ask(store, old).entitled
    store.ledger.ingest_transaction(pki.sign(transaction("700", "700", signed=NOW_MS - 1000, token=new), CHAIN), verifier, VERIFY_AT)
    assert ask(store, new).entitled
    assert ask(store, old).reason.name == "NO_PURCHASE"
    assert store.ledger.active(old, environment="Sandbox", test_signed=True) == []
    # The original transaction id itself still answers, and names the new token.
    assert ask(store, "700").entitled
    # An older version arriving late changes nothing: the newest still decides.
    store.ledger.ingest_transaction(pki.sign(transaction("700", "700", signed=NOW_MS - 3000, token=old), CHAIN), verifier, VERIFY_AT)
    assert not ask(store, old).entitled and ask(store, new).entitled


def test_tokens_compare_case_insensitively_and_never_as_original_ids(store, pki, verifier):
    token = str(uuid.uuid4())
    store.ledger.ingest_transaction(pki.sign(transaction("800", "800", signed=NOW_MS - 1000, token=token), CHAIN), verifier, VERIFY_AT)
    assert ask(store, token.upper()).entitled  # Swift's uuidString spelling
    assert ask(store, token.lower()).entitled
    # A token that is not a UUID is no customer: it cannot reach another customer's answers
    # by equalling their original transaction id.
    store.ledger.ingest_transaction(pki.sign(transaction("801", "801", signed=NOW_MS - 1000, token="900"), CHAIN), verifier, VERIFY_AT)
    store.ledger.ingest_transaction(pki.sign(transaction("900", "900", signed=NOW_MS - 1000, product="other.product"), CHAIN), verifier, VERIFY_AT)
    assert ask(store, "900").reason.name == "NO_PURCHASE"  # 801 (token "900") is not customer 900's
    assert ask(store, "900", "other.product").entitled


def test_cache_keys_are_bytes_not_canonical_equivalence(store, pki, verifier):
    """'K-7007' with a Kelvin sign (U+212A) is canonically equivalent to it with a K: a warm
    handle must not answer one with the other's entitlement."""
    store.ledger.ingest_transaction(pki.sign(transaction("901", "K-7007", signed=NOW_MS - 1000), CHAIN), verifier, VERIFY_AT)
    assert ask(store, "K-7007").entitled           # warms the cache
    assert ask(store, "\u212a-7007").reason.name == "UNKNOWN_CUSTOMER"
    assert ask(store, "K-7007").entitled


@pytest.mark.parametrize("member", ["appAccountToken", "productId", "transactionId", "originalTransactionId"])
def test_a_nul_inside_a_signed_string_is_refused(store, pki, verifier, member):
    t = transaction("902", "902", signed=NOW_MS - 1000, token=str(uuid.uuid4()))
    t[member] = t[member] + "\u0000tail"
    with pytest.raises(gatekit.jws.SignedDataError) as caught:
        store.ledger.ingest_transaction(pki.sign(t, CHAIN), verifier, VERIFY_AT)
    assert caught.value.code == gatekit.jws.EJWS_PAYLOAD_FIELD and "NUL" in str(caught.value)
    with pytest.raises(gatekit.jws.SignedDataError) as direct:
        verifier.verify_transaction(pki.sign(t, CHAIN), VERIFY_AT)
    assert direct.value.code == gatekit.jws.EJWS_PAYLOAD_FIELD


def test_a_realtime_request_is_not_a_renewal_info(store, pki, verifier):
    store.ledger.ingest_transaction(pki.sign(transaction("903", "903", signed=NOW_MS - 1000, expires=NOW_MS - DAY), CHAIN),
                                    verifier, VERIFY_AT)
    grace = model("signedRenewalInfo")
    grace.update(originalTransactionId="903", signedDate=NOW_MS - 500, environment="Sandbox", isInBillingRetryPeriod=True,
                 gracePeriodExpiresDate=NOW_MS + DAY)
    grace.pop("appAccountToken", None)
    store.ledger.ingest_renewal_info(pki.sign(grace, CHAIN), verifier, VERIFY_AT)
    assert ask(store, "903").reason.name == "GRACE_PERIOD"
    realtime = model("decodedRealtimeRequest")
    realtime.update(originalTransactionId="903", signedDate=NOW_MS - 100, environment="Sandbox")
    with pytest.raises(gatekit.jws.SignedDataError, match="renewal info"):
        store.ledger.ingest_renewal_info(pki.sign(realtime, CHAIN), verifier, VERIFY_AT)
    # A renewal info must have what every one has: autoRenewStatus.
    bare = {"originalTransactionId": "903", "signedDate": NOW_MS - 50, "environment": "Sandbox", "isInBillingRetryPeriod": False}
    with pytest.raises(gatekit.jws.SignedDataError, match="autoRenewStatus"):
        store.ledger.ingest_renewal_info(pki.sign(bare, CHAIN), verifier, VERIFY_AT)
    assert ask(store, "903").reason.name == "GRACE_PERIOD"


def test_a_lone_upgraded_transaction_entitles_nowhere(store, pki, verifier):
    signed = pki.sign(transaction("904", "904", signed=NOW_MS - 1000, isUpgraded=True), CHAIN)
    assert not verifier.verify_transaction(signed, VERIFY_AT).is_entitled()
    store.ledger.ingest_transaction(signed, verifier, VERIFY_AT)
    got = ask(store, "904")
    assert not got.entitled and got.reason.name == "UPGRADED"


def test_now_and_an_explicit_now_agree_on_future_signed_versions(store, pki, verifier):
    """A version signed a little after this clock's now (Apple's clock runs ahead) counts in
    both `at=None` and an explicit `at=now`: one rule. The host reads its clock before the
    call (here a second before, as a slow host would): still now."""
    signed = NOW_MS + 60_000
    store.ledger.ingest_transaction(pki.sign(transaction("905", "905", signed=signed, revocationDate=NOW_MS - 10,
                                                         revocationReason=0), CHAIN), verifier, VERIFY_AT)
    implicit = ask(store, "905")
    explicit = store.ledger.entitled("905", "pro.monthly", environment="Sandbox", test_signed=True,
                                     at=utc(ms=int(time.time() * 1000) - 1000))
    assert implicit.reason == explicit.reason and implicit.reason.name == "REVOKED"
    # In the past, only what was signed by then counts.
    earlier = store.ledger.entitled("905", "pro.monthly", environment="Sandbox", test_signed=True, at=utc(ms=NOW_MS - 1000))
    assert earlier.reason.name == "UNKNOWN_CUSTOMER"  # nothing of it was signed by then


def test_one_ledger_per_app(store, pki, verifier):
    store.ledger.ingest_transaction(pki.sign(transaction("906", "906", signed=NOW_MS - 1000), CHAIN), verifier, VERIFY_AT)
    other_app = SignedDataVerifier("com.example.other", "Sandbox", test_anchor=pki.der("root"))
    t = transaction("907", "907", signed=NOW_MS - 1000, bundleId="com.example.other")
    with pytest.raises(gatekit.InvalidArgumentError, match="one ledger per app"):
        store.ledger.ingest_transaction(pki.sign(t, CHAIN), other_app, VERIFY_AT)
    with pytest.raises(gatekit.InvalidArgumentError, match="one ledger per app"):
        store.ledger.ingest_batch("transaction", [pki.sign(t, CHAIN)], other_app, VERIFY_AT)
    assert ask(store, "907").reason.name == "UNKNOWN_CUSTOMER"  # refused: never recorded
    assert ask(store, "906").entitled


def test_many_versions_of_one_transaction_in_one_batch(store, pki, verifier):
    """1,000 versions of one transaction (each a refund or reinstatement; a record compacts past
    64) in one batch: the newest decides, each is recorded once, and re-ingesting the batch
    changes nothing. (The cost per version is BENCHMARKS.md's, "One more version after N".)"""
    versions = []
    for i in range(1000):
        t = transaction("908", "908", signed=NOW_MS - 100_000 + i)
        if i % 2:
            t.update(revocationDate=NOW_MS - 100_000 + i, revocationReason=0)
        versions.append(pki.sign(t, CHAIN))
    results = store.ledger.ingest_batch("transaction", versions, verifier, VERIFY_AT)
    assert all(isinstance(r, gatekit.ledger.IngestResult) for r in results)
    assert sum(r.outcome.name == "NEW" for r in results) == 1000  # each newer than the ones before
    assert ask(store, "908").reason.name == "REVOKED"  # version 999 is a revocation
    again = store.ledger.ingest_batch("transaction", list(reversed(versions)), verifier, VERIFY_AT)
    assert all(r.outcome.name == "DUPLICATE" for r in again)
    late = pki.sign(transaction("908", "908", signed=NOW_MS - 200_000), CHAIN)
    assert store.ledger.ingest_batch("transaction", [late], verifier, VERIFY_AT)[0].outcome.name == "SUPERSEDED"
    assert ask(store, "908").reason.name == "REVOKED"
