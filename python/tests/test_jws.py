"""StoreKit 2 signed data through the Python package: Apple's vectors, typed decoding of
every model payload, forgeries made with a throw-away PKI, entitlement, threads."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from gatekit import jws
from gatekit.jws import IdentityError, SignatureError, SignedDataError, SignedDataVerifier, VerificationStatus

from conftest import REPO_ROOT, utc
from gatekit.apple_enums import (AutoRenewStatus, Environment, ExpirationIntent, InAppOwnershipType, NotificationTypeV2,
                                 OfferType, PurchasePlatform, RevocationReason, Status, Subtype, TransactionReason)
from gatekit.apple_enums import Type as PurchaseType

FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", REPO_ROOT.parent / "shared" / "fixtures"))
APPLE = FIXTURES / "jws" / "apple-test"
X509 = FIXTURES / "jws" / "x509"

needs_fixtures = pytest.mark.skipif(not APPLE.is_dir(), reason=f"fixtures not found at {FIXTURES} (set GATEKIT_FIXTURES)")


def fixture_jws(name: str) -> str:
    return (APPLE / name).read_text().strip()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def header_of(signed: str) -> dict:
    return json.loads(unb64url(signed.split(".")[0]))


def rehead(signed: str, header: dict) -> str:
    parts = signed.split(".")
    return ".".join([b64url(json.dumps(header).encode()), parts[1], parts[2]])


def apple_test_root() -> bytes:
    return (APPLE / "certs" / "testCA.der").read_bytes()


from signing import CHAIN, PKI, b64url, pki  # noqa: E402,F401  (pki is a fixture)



def now_ms() -> int:
    return int(time.time() * 1000)


def transaction(signed_ms: Optional[int] = None, **extra) -> dict:
    t = signed_ms if signed_ms is not None else now_ms()
    payload = {"transactionId": "2000000123", "originalTransactionId": "2000000100", "bundleId": "com.example",
               "productId": "pro.monthly", "purchaseDate": t - 1000, "expiresDate": t + 86_400_000,
               "type": "Auto-Renewable Subscription", "environment": "Sandbox", "signedDate": t}
    payload.update(extra)
    return payload


# ---- Apple's vectors --------------------------------------------------------------------------

@needs_fixtures
def test_apple_mock_notification_and_its_failures():
    sandbox = SignedDataVerifier("com.example", "Sandbox", test_anchor=apple_test_root())
    n = sandbox.verify_notification(fixture_jws("mock_signed_data/testNotification"))
    assert n.notificationType == "TEST"
    assert n.signedDate == 1681314324000
    assert n.data is not None and n.data.appAppleId == 1234 and n.data.bundleId == "com.example"
    assert n.data.environment == "Sandbox"
    # Marked as test-signed, with the replay identity (SHA-256 of the signed payload bytes).
    signed = fixture_jws("mock_signed_data/testNotification")
    assert n.test_signed is True and "gatekit" not in n.raw
    assert n.identity == hashlib.sha256(unb64url(signed.split(".")[1])).hexdigest()
    # Sandbox data for a Production verifier: Apple's verdict (another environment), with or
    # without the test-only flag (test-signed data claiming Production: test_identity_checks_…).
    with pytest.raises(IdentityError) as e:
        SignedDataVerifier("com.example", "Production", 1234, apple_test_root()).verify_notification(signed)
    assert e.value.code == jws.EJWS_ENVIRONMENT and e.value.status == VerificationStatus.INVALID_ENVIRONMENT
    with pytest.raises(IdentityError) as e:
        SignedDataVerifier("com.example", "Production", 1234, apple_test_root(),
                           test_production=True).verify_notification(signed)
    assert e.value.code == jws.EJWS_ENVIRONMENT
    with pytest.raises(IdentityError) as e:
        SignedDataVerifier("com.example", "Production", 1235, apple_test_root(),
                           test_production=True).verify_notification(signed)
    assert e.value.code == jws.EJWS_APP_APPLE_ID
    with pytest.raises(IdentityError) as e:
        SignedDataVerifier("com.examplex", "Sandbox", test_anchor=apple_test_root()).verify_notification(
            fixture_jws("mock_signed_data/wrongBundleId"))
    assert e.value.code == jws.EJWS_BUNDLE_ID
    with pytest.raises(SignatureError) as e:
        sandbox.verify_notification(fixture_jws("mock_signed_data/missingX5CHeaderClaim"))
    assert e.value.code == jws.EJWS_MALFORMED and "x5c" in e.value.detail
    with pytest.raises(SignatureError) as e:
        sandbox.verify_transaction(fixture_jws("mock_signed_data/legacyTransaction"))
    assert e.value.code == jws.EJWS_MALFORMED


@needs_fixtures
def test_apple_mock_transaction_and_renewal():
    sandbox = SignedDataVerifier("com.example", "Sandbox", test_anchor=apple_test_root())
    t = sandbox.verify_transaction(fixture_jws("mock_signed_data/transactionInfo"))
    assert (t.environment, t.bundleId, t.signedDate) == ("Sandbox", "com.example", 1672956154000)
    r = sandbox.verify_renewal_info(fixture_jws("mock_signed_data/renewalInfo"))
    assert (r.environment, r.signedDate) == ("Sandbox", 1672956154000)
    # The test chain against the real Apple Root CA - G3: refused.
    with pytest.raises(SignatureError) as e:
        SignedDataVerifier("com.example", "Sandbox").verify_transaction(fixture_jws("mock_signed_data/transactionInfo"))
    assert e.value.code == jws.EJWS_UNTRUSTED


@needs_fixtures
def test_malformed_parts():
    sandbox = SignedDataVerifier("com.example", "Sandbox", test_anchor=apple_test_root())
    good = fixture_jws("mock_signed_data/transactionInfo")
    h, p, s = good.split(".")
    for bad in [f"{h}.{p}", f"{good}.{s}", f"{h}=.{p}.{s}", f"{h}.{p}.{s}=", f"{h} .{p}.{s}", f".{p}.{s}",
                f"{h}..{s}", f"{h}.{p}.", "", "...", "é.é.é"]:
        with pytest.raises(SignatureError) as e:
            sandbox.verify_transaction(bad)
        assert e.value.code == jws.EJWS_MALFORMED, bad[:40]
    assert sandbox.verify_transaction(good).bundleId == "com.example"


@needs_fixtures
def test_xcode_signed_data_only_with_its_certificate_as_test_anchor():
    signed = fixture_jws("xcode/xcode-signed-transaction")
    cert = base64.b64decode(header_of(signed)["x5c"][0])
    bundle = "com.example.naturelab.backyardbirds.example"
    for env in jws.ENVIRONMENTS:
        with pytest.raises(SignatureError) as e:
            SignedDataVerifier(bundle, env, app_apple_id=1).verify_transaction(signed)
        assert e.value.code == jws.EJWS_TEST_SIGNED
    with pytest.raises(SignatureError) as e:
        SignedDataVerifier(bundle, "Xcode", test_anchor=apple_test_root()).verify_transaction(signed)
    assert e.value.code == jws.EJWS_UNTRUSTED
    xcode = SignedDataVerifier(bundle, "Xcode", test_anchor=cert)
    t = xcode.verify_transaction(signed)
    assert t.purchaseDate == 1697679936049 and t.raw["purchaseDate"] == pytest.approx(1697679936049.7297)
    assert (t.transactionId, t.productId, t.environment, t.isUpgraded) == ("0", "pass.premium", "Xcode", False)
    assert t.raw["deviceVerificationNonce"] == "7edea87d-98f0-42d0-9682-49ca81022f73"   # member no model knows
    r = xcode.verify_renewal_info(fixture_jws("xcode/xcode-signed-renewal-info"))
    assert r.renewalDate == 1700358336049 and r.autoRenewStatus == 1
    a = xcode.verify_app_transaction(fixture_jws("xcode/xcode-signed-app-transaction"))
    assert a.originalPurchaseDate == -62135769600000 and a.receiptType == "Xcode"
    with pytest.raises(SignatureError) as e:
        xcode.verify_transaction(signed, verify_time=utc(1761962975))   # the certificate expired in 2024
    assert e.value.code == jws.EJWS_CERT_TIME


@needs_fixtures
def test_x509_vectors_through_signed_data():
    """Apple's renewalInfo is signed by LEAF_CERT's key: swapping its x5c shows each chain verdict."""
    renewal = fixture_jws("mock_signed_data/renewalInfo")
    der = {n: (X509 / f"{n}.der").read_bytes() for n in ["ROOT_CA", "INTERMEDIATE_CA", "LEAF_CERT", "LEAF_CERT_INVALID_OID",
                                                          "INTERMEDIATE_CA_INVALID_OID", "LEAF_CERT_FOR_INTERMEDIATE_CA_INVALID_OID",
                                                          "REAL_APPLE_ROOT", "REAL_APPLE_INTERMEDIATE", "REAL_APPLE_SIGNING_CERTIFICATE"]}
    assert base64.b64decode(header_of(renewal)["x5c"][0]) == der["LEAF_CERT"]
    test = SignedDataVerifier("com.example", "Sandbox", test_anchor=der["ROOT_CA"])
    assert test.verify_renewal_info(renewal, verify_time=utc(1761962975)).environment == "Sandbox"

    def code(names: List[str], verifier: SignedDataVerifier, at: int) -> int:
        with pytest.raises(SignedDataError) as e:
            verifier.verify_renewal_info(rehead(renewal, {"alg": "ES256", "x5c": [base64.b64encode(der[n]).decode() for n in names]}),
                                         verify_time=utc(at))
        return e.value.code

    assert code(["LEAF_CERT", "INTERMEDIATE_CA", "ROOT_CA"], test, 2280946846) == jws.EJWS_CERT_TIME
    assert code(["LEAF_CERT_INVALID_OID", "INTERMEDIATE_CA", "ROOT_CA"], test, 1761962975) == jws.EJWS_LEAF_OID
    assert code(["LEAF_CERT_FOR_INTERMEDIATE_CA_INVALID_OID", "INTERMEDIATE_CA_INVALID_OID", "ROOT_CA"], test, 1761962975) == jws.EJWS_INTERMEDIATE_OID
    assert code(["LEAF_CERT", "INTERMEDIATE_CA"], test, 1761962975) == jws.EJWS_CHAIN_LENGTH
    real = SignedDataVerifier("com.example", "Sandbox")
    assert code(["LEAF_CERT", "INTERMEDIATE_CA", "ROOT_CA"], real, 1761962975) == jws.EJWS_UNTRUSTED
    # The real production chain passes the pinned G3 in 2026; the test key's signature then fails.
    assert code(["REAL_APPLE_SIGNING_CERTIFICATE", "REAL_APPLE_INTERMEDIATE", "REAL_APPLE_ROOT"], real, 1767225600) == jws.EJWS_SIGNATURE
    assert code(["REAL_APPLE_SIGNING_CERTIFICATE", "REAL_APPLE_INTERMEDIATE", "REAL_APPLE_ROOT"], real, 2280946846) == jws.EJWS_CERT_TIME


@needs_fixtures
def test_same_verdicts_as_apples_python_library():
    """Where Apple's SignedDataVerifier accepts or refuses Apple's vectors, so does GateKit."""
    lib = pytest.importorskip("appstoreserverlibrary.signed_data_verifier", reason="pip install app-store-server-library")
    from appstoreserverlibrary.models.Environment import Environment

    def apple(env, bundle, app_id=None):
        v = lib.SignedDataVerifier([apple_test_root()], False, env, bundle, app_id)
        v._chain_verifier.enable_strict_checks = False   # Apple's test certificates lack key identifiers
        return v

    cases = [("testNotification", Environment.SANDBOX, "com.example", None, "notification"),
             ("testNotification", Environment.PRODUCTION, "com.example", 1234, "notification"),
             ("testNotification", Environment.PRODUCTION, "com.example", 1235, "notification"),
             ("wrongBundleId", Environment.SANDBOX, "com.examplex", None, "notification"),
             ("missingX5CHeaderClaim", Environment.SANDBOX, "com.example", None, "notification"),
             ("transactionInfo", Environment.SANDBOX, "com.example", None, "transaction"),
             ("renewalInfo", Environment.SANDBOX, "com.example", None, "renewal-info")]
    for name, env, bundle, app_id, kind in cases:
        signed = fixture_jws(f"mock_signed_data/{name}")
        method = {"notification": "verify_and_decode_notification", "transaction": "verify_and_decode_signed_transaction",
                  "renewal-info": "verify_and_decode_renewal_info"}[kind]
        try:
            getattr(apple(env, bundle, app_id), method)(signed)
            apple_ok = True
        except lib.VerificationException:
            apple_ok = False
        try:
            SignedDataVerifier(bundle, env.value, app_id, apple_test_root()).verify_json(kind, signed)
            ours_ok = True
        except SignedDataError:
            ours_ok = False
        assert apple_ok == ours_ok, (name, env, app_id)


# ---- every field of Apple's model payloads ----------------------------------------------------

def model(name: str) -> dict:
    return json.loads((APPLE / "models" / f"{name}.json").read_text())


def signed_notification(pki: PKI, name: str) -> str:
    n = model(name)
    for part, key, nested in [("data", "signedTransactionInfo", "signedTransaction"),
                              ("data", "signedRenewalInfo", "signedRenewalInfo"),
                              ("appData", "signedAppTransactionInfo", "appTransaction")]:
        if part in n and key in n[part]:
            n[part][key] = pki.sign(model(nested), CHAIN)
    return pki.sign(n, CHAIN)


def check_transaction(t: jws.JWSTransaction) -> None:
    assert t == jws.JWSTransaction(
        raw={}, transactionId="23456", originalTransactionId="12345", webOrderLineItemId="34343", bundleId="com.example",
        productId="com.example.product", subscriptionGroupIdentifier="55555", purchaseDate=1698148900000,
        originalPurchaseDate=1698148800000, expiresDate=1698149000000, quantity=1, type="Auto-Renewable Subscription",
        appAccountToken="7e3fb20b-4cdb-47cc-936d-99d65f608138", inAppOwnershipType="PURCHASED", signedDate=1698148900000,
        revocationReason=1, revocationDate=1698148950000, isUpgraded=True, offerType=1, offerIdentifier="abc.123",
        environment="LocalTesting", transactionReason="PURCHASE", storefront="USA", storefrontId="143441", price=10990,
        currency="USD", offerDiscountType="PAY_AS_YOU_GO", appTransactionId="71134", offerPeriod="P1Y",
        billingPlanType="MONTHLY", advancedCommerceInfo=model("signedTransaction")["advancedCommerceInfo"],
        commitmentInfo=model("signedTransaction")["commitmentInfo"],
        rawType="Auto-Renewable Subscription", rawInAppOwnershipType="PURCHASED", rawRevocationReason=1, rawOfferType=1,
        rawEnvironment="LocalTesting", rawTransactionReason="PURCHASE", rawOfferDiscountType="PAY_AS_YOU_GO")
    assert t.raw == model("signedTransaction")
    # Apple's enumerations as enums, Apple's way: the member as enum, the value as sent in rawX.
    assert (t.type, t.inAppOwnershipType, t.revocationReason, t.offerType, t.environment, t.transactionReason) == (
        PurchaseType.AUTO_RENEWABLE_SUBSCRIPTION, InAppOwnershipType.PURCHASED, RevocationReason.REFUNDED_DUE_TO_ISSUE,
        OfferType.INTRODUCTORY_OFFER, Environment.LOCAL_TESTING, TransactionReason.PURCHASE)
    assert type(t.type) is PurchaseType and type(t.offerType) is OfferType


def with_raw(m: Dict[str, Any], *names: str) -> Dict[str, Any]:
    """A model's members plus the rawX members its enumerations carry."""
    return {**m, **{"raw" + n[0].upper() + n[1:]: m[n] for n in names if n in m}}


def check_renewal(r: jws.JWSRenewalInfo) -> None:
    m = model("signedRenewalInfo")
    assert r == jws.JWSRenewalInfo(raw={}, **with_raw(m, "expirationIntent", "autoRenewStatus", "priceIncreaseStatus",
                                                    "offerType", "offerDiscountType", "environment"))
    assert type(r.autoRenewStatus) is AutoRenewStatus and type(r.expirationIntent) is ExpirationIntent
    assert r.eligibleWinBackOfferIds == ["eligible1", "eligible2"] and r.renewalPrice == 9990


def check_app_transaction(a: jws.JWSAppTransaction) -> None:
    m = model("appTransaction")
    assert a == jws.JWSAppTransaction(raw={}, **with_raw(m, "receiptType", "originalPlatform"))
    assert a.appAppleId == 531412 and a.originalPlatform is PurchasePlatform.IOS and a.rawOriginalPlatform == "iOS"


@needs_fixtures
def test_model_payloads_decode_every_field(pki):
    local = SignedDataVerifier("com.example", "LocalTesting", test_anchor=pki.der("root"))
    at = datetime.now(timezone.utc)   # the models date from 2023; the PKI was made just now
    check_transaction(local.verify_transaction(pki.sign(model("signedTransaction"), CHAIN), verify_time=at))
    check_renewal(local.verify_renewal_info(pki.sign(model("signedRenewalInfo"), CHAIN), verify_time=at))
    check_app_transaction(local.verify_app_transaction(pki.sign(model("appTransaction"), CHAIN), verify_time=at))

    n = local.verify_notification(signed_notification(pki, "signedNotification"), verify_time=at)
    assert (n.notificationType, n.subtype, n.notificationUUID, n.version, n.signedDate) == (
        "SUBSCRIBED", "INITIAL_BUY", "002e14d5-51f5-4503-b5a8-c3a1af68eb20", "2.0", 1698148900000)
    assert n.notificationType is NotificationTypeV2.SUBSCRIBED and n.subtype is Subtype.INITIAL_BUY
    assert n.data is not None
    assert (n.data.environment, n.data.appAppleId, n.data.bundleId, n.data.bundleVersion, n.data.status) == (
        "LocalTesting", 41234, "com.example", "1.2.3", 1)
    assert n.data.status is Status.ACTIVE and n.data.environment is Environment.LOCAL_TESTING
    assert n.data.signedTransactionInfo and n.data.signedRenewalInfo
    assert n.data.transactionInfo is not None and n.data.renewalInfo is not None
    check_transaction(n.data.transactionInfo)
    check_renewal(n.data.renewalInfo)

    c = local.verify_notification(signed_notification(pki, "signedConsumptionRequestNotification"), verify_time=at)
    assert c.notificationType == "CONSUMPTION_REQUEST" and c.data and c.data.consumptionRequestReason == "UNINTENDED_PURCHASE"

    s = local.verify_notification(signed_notification(pki, "signedSummaryNotification"), verify_time=at)
    assert s.summary == jws.NotificationSummary(raw={}, **with_raw(model("signedSummaryNotification")["summary"], "environment"))
    assert s.summary is not None and s.summary.storefrontCountryCodes == ["CAN", "USA", "MEX"] and s.summary.failedCount == 2

    r = local.verify_notification(signed_notification(pki, "signedRescindConsentNotification"), verify_time=at)
    assert r.appData is not None and r.appData.appAppleId == 41234 and r.appData.environment == "LocalTesting"
    assert r.appData.appTransactionInfo is not None
    check_app_transaction(r.appData.appTransactionInfo)

    production = SignedDataVerifier("com.example", "Production", 55555, test_anchor=pki.der("root"), test_production=True)
    p = production.verify_notification(signed_notification(pki, "signedExternalPurchaseTokenNotification"), verify_time=at)
    assert p.externalPurchaseToken == jws.NotificationExternalPurchaseToken(raw={}, **model("signedExternalPurchaseTokenNotification")["externalPurchaseToken"])
    sandbox = SignedDataVerifier("com.example", "Sandbox", test_anchor=pki.der("root"))
    sb = sandbox.verify_notification(signed_notification(pki, "signedExternalPurchaseTokenSandboxNotification"), verify_time=at)
    assert sb.externalPurchaseToken is not None and sb.externalPurchaseToken.externalPurchaseId.startswith("SANDBOX")
    with pytest.raises(IdentityError):
        production.verify_notification(signed_notification(pki, "signedExternalPurchaseTokenSandboxNotification"), verify_time=at)

    a = SignedDataVerifier("com.example", "Sandbox", test_anchor=pki.der("root"))
    app_data = model("appData")
    del app_data["signedAppTransactionInfo"]
    d = a.verify_notification(pki.sign({"notificationType": "RESCIND_CONSENT", "appData": app_data}, CHAIN), verify_time=at)
    assert d.appData is not None and d.appData.appAppleId == 987654321
    # A notification type newer than this package: the enum member is None, rawX keeps it.
    newer = a.verify_notification(pki.sign({"notificationType": "SOMETHING_NEW", "appData": app_data}, CHAIN), verify_time=at)
    assert newer.notificationType is None and newer.rawNotificationType == "SOMETHING_NEW"


# ---- generated cases --------------------------------------------------------------------------

def failure(call) -> int:
    with pytest.raises(SignedDataError) as e:
        call()
    return e.value.code


def test_generated_forgeries(pki):
    v = SignedDataVerifier("com.example", "Sandbox", test_anchor=pki.der("root"))
    payload = transaction(futureField={"nested": [1, 2.5]})
    good = pki.sign(payload, CHAIN)
    t = v.verify_transaction(good)
    assert t.productId == "pro.monthly" and t.raw["futureField"] == {"nested": [1, 2.5]}
    h, p, s = good.split(".")
    other = b64url(json.dumps(transaction(productId="pro.lifetime")).encode())
    assert failure(lambda: v.verify_transaction(f"{h}.{other}.{s}")) == jws.EJWS_SIGNATURE
    sig = bytearray(unb64url(s))
    sig[7] ^= 1
    assert failure(lambda: v.verify_transaction(f"{h}.{p}.{b64url(bytes(sig))}")) == jws.EJWS_SIGNATURE
    assert failure(lambda: v.verify_transaction(pki.sign(payload, CHAIN, alg="none"))) == jws.EJWS_ALGORITHM
    assert failure(lambda: v.verify_transaction(b64url(b'{"alg":"none"}') + "." + p + ".")) == jws.EJWS_ALGORITHM
    assert failure(lambda: v.verify_transaction(pki.sign(payload, CHAIN, alg="HS256"))) == jws.EJWS_ALGORITHM
    assert failure(lambda: v.verify_transaction(pki.sign(payload, ["leaf_rsa", "int", "root"], alg="RS256"))) == jws.EJWS_ALGORITHM
    assert failure(lambda: v.verify_transaction(pki.sign(payload, ["leaf_rsa", "int", "root"]))) == jws.EJWS_SIGNATURE
    assert failure(lambda: v.verify_transaction(pki.sign(payload, CHAIN + ["other_root"]))) == jws.EJWS_CHAIN_LENGTH
    assert failure(lambda: v.verify_transaction(pki.sign(payload, ["leaf_bad_oid", "int", "root"]))) == jws.EJWS_LEAF_OID
    assert failure(lambda: v.verify_transaction(pki.sign(payload, ["leaf_under_bad_int", "int_bad_oid", "root"]))) == jws.EJWS_INTERMEDIATE_OID
    stranger = SignedDataVerifier("com.example", "Sandbox", test_anchor=pki.der("other_root"))
    assert failure(lambda: stranger.verify_transaction(good)) == jws.EJWS_UNTRUSTED
    assert failure(lambda: SignedDataVerifier("com.example", "Sandbox").verify_transaction(good)) == jws.EJWS_UNTRUSTED
    # Production-shaped chain (P-384 root and intermediate, P-256 signer).
    p384 = SignedDataVerifier("com.example", "Sandbox", test_anchor=pki.der("root384"))
    assert p384.verify_transaction(pki.sign(payload, ["leaf384", "int384", "root384"])).transactionId == "2000000123"


def test_a_chain_valid_now_but_not_at_the_signing_date(pki):
    v = SignedDataVerifier("com.example", "Sandbox", test_anchor=pki.der("root"))
    old = pki.sign(transaction(now_ms() - 10 * 86_400_000), CHAIN)
    with pytest.raises(SignatureError) as e:
        v.verify_transaction(old)
    assert e.value.code == jws.EJWS_CERT_TIME and "not valid at" in e.value.detail
    assert v.verify_transaction(old, verify_time=datetime.now(timezone.utc)).productId == "pro.monthly"


def test_identity_checks_and_field_types(pki):
    good = pki.sign(transaction(), CHAIN)
    with pytest.raises(IdentityError) as e:
        SignedDataVerifier("com.other", "Sandbox", test_anchor=pki.der("root")).verify_transaction(good)
    assert e.value.code == jws.EJWS_BUNDLE_ID
    with pytest.raises(IdentityError) as e:  # Sandbox data: Apple's verdict first
        SignedDataVerifier("com.example", "Production", 1, pki.der("root")).verify_transaction(good)
    assert e.value.code == jws.EJWS_ENVIRONMENT
    # Test-signed data that claims Production never passes as it, unless the test-only flag says so.
    claims_production = pki.sign(transaction(environment="Production"), CHAIN)
    with pytest.raises(SignatureError) as e:
        SignedDataVerifier("com.example", "Production", 1, pki.der("root")).verify_transaction(claims_production)
    assert e.value.code == jws.EJWS_TEST_SIGNED and "Production" in e.value.detail
    assert str(e.value).startswith("Verification failed with status VERIFICATION_FAILURE: ")
    assert SignedDataVerifier("com.example", "Production", 1, pki.der("root"),
                              test_production=True).verify_transaction(claims_production).transactionId == "2000000123"
    # The replay identity and the marking, through every path the package offers.
    sandbox = SignedDataVerifier("com.example", "Sandbox", test_anchor=pki.der("root"))
    identity = hashlib.sha256(unb64url(good.split(".")[1])).hexdigest()
    t = sandbox.verify_transaction(good)
    assert (t.identity, t.test_signed) == (identity, True)
    assert sandbox.verified("transaction", good) == (identity, True)
    assert sandbox.verify_json("transaction", good)["gatekit"] == {"version": 1, "identity": identity, "testSigned": True}
    v = SignedDataVerifier("com.example", "Sandbox", test_anchor=pki.der("root"))
    assert failure(lambda: v.verify_transaction(pki.sign(transaction(bundleId=7), CHAIN))) == jws.EJWS_PAYLOAD_FIELD
    with pytest.raises(ValueError):
        SignedDataVerifier("com.example", "Production")
    with pytest.raises(ValueError):
        SignedDataVerifier("com.example", "production", 1)
    with pytest.raises(gatekit_invalid()):
        SignedDataVerifier("com.example", "Sandbox", test_anchor=b"not DER").verify_transaction(good)


def test_apples_argument_order_points_to_the_apple_module():
    """Apple's SignedDataVerifier(root_certificates, enable_online_checks, environment,
    bundle_id, app_apple_id) given to GateKit's own verifier says where Apple's lives."""
    from gatekit.apple_enums import Environment
    for args in (([b"root"], False, Environment.SANDBOX, "com.example", 1234), ([b"root"], True, "Sandbox", "com.example")):
        with pytest.raises(TypeError, match="use gatekit.apple.SignedDataVerifier"):
            SignedDataVerifier(*args)


def gatekit_invalid():
    import gatekit
    return gatekit.InvalidArgumentError


def test_entitlement(pki):
    v = SignedDataVerifier("com.example", "Sandbox", test_anchor=pki.der("root"))
    now = now_ms()
    good = pki.sign(transaction(now), CHAIN)
    assert v.is_entitled(good)
    assert v.is_entitled(good, "pro.monthly", at=utc(ms=now))
    assert not v.is_entitled(good, "pro.yearly", at=utc(ms=now))
    assert not v.is_entitled(good, at=utc(ms=now - 60_000))
    assert not v.is_entitled(good, at=utc(ms=now + 86_400_000))
    revoked = pki.sign(transaction(now, revocationDate=now, revocationReason=0), CHAIN)
    assert not v.is_entitled(revoked, at=utc(ms=now))
    assert not v.verify_transaction(revoked).is_entitled(utc(ms=now))
    assert v.verify_transaction(good).is_entitled(utc(ms=now))
    with pytest.raises(IdentityError):
        SignedDataVerifier("com.other", "Sandbox", test_anchor=pki.der("root")).is_entitled(good)
    # A transaction naming no product or purchase date proves nothing; a consumable never
    # entitles. The decoded rule and the library's agree, with or without a product.
    base = {"bundleId": "com.example", "environment": "Sandbox", "signedDate": now}
    for payload in (base, dict(base, productId="pro.monthly"), dict(base, purchaseDate=now - 1000),
                    dict(base, productId="coins", type="Consumable", purchaseDate=now - 1000)):
        bare = pki.sign(payload, CHAIN)
        assert not v.is_entitled(bare, at=utc(ms=now))
        assert not v.is_entitled(bare, payload.get("productId"), at=utc(ms=now))
        assert not v.verify_transaction(bare).is_entitled(utc(ms=now))


def test_many_threads(pki):
    v = SignedDataVerifier("com.example", "Sandbox", test_anchor=pki.der("root"))
    good = pki.sign(transaction(), CHAIN)
    errors: List[BaseException] = []

    def work() -> None:
        try:
            for _ in range(100):
                assert v.verify_transaction(good).productId == "pro.monthly"
                with pytest.raises(SignatureError):
                    v.verify_transaction("a.b.c")
        except BaseException as e:  # noqa: BLE001 — reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_revocation_reason_newer_than_the_package_still_revokes():
    t = jws.JWSTransaction.from_json({"productId": "p", "purchaseDate": 1000, "revocationReason": 9})
    assert t.revocationReason is None and t.rawRevocationReason == 9
    assert not t.is_entitled(utc(ms=2000))
    assert jws.JWSTransaction.from_json({"productId": "p", "purchaseDate": 1000}).is_entitled(utc(ms=2000))


def test_unsigned_local_data_is_read_only_when_asked_and_marked_test_signed():
    """Xcode and LocalTesting data read as Apple's verifier reads it there (no signature check),
    only with unsigned_local=True, never for Sandbox or Production, always test-signed."""
    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
    signed = ".".join([part({"alg": "ES256"}), part({"transactionId": "23456", "bundleId": "com.example",
                                                     "environment": "LocalTesting", "signedDate": 1698148900000}), "c2ln"])
    local = SignedDataVerifier("com.example", "LocalTesting", unsigned_local=True)
    assert local.verify_transaction(signed).transactionId == "23456"
    assert local.verified("transaction", signed)[1] is True
    with pytest.raises(SignedDataError):
        SignedDataVerifier("com.example", "LocalTesting").verify_transaction(signed)
    for environment in ("Sandbox", "Production"):
        with pytest.raises(ValueError, match="unsigned_local"):
            SignedDataVerifier("com.example", environment, 1, unsigned_local=True)


def test_a_certificate_chain_checked_on_its_own():
    """verify_chain: an x5c chain by the rules of signed data, the leaf's key as PEM; each
    failure with Apple's status (the x5c of Apple's own test data, under Apple's test root;
    Apple's x509 vectors, OIDs included, run in test_apple_suite)."""
    x5c = header_of(fixture_jws("mock_signed_data/transactionInfo"))["x5c"]
    at = datetime(2023, 1, 9, tzinfo=timezone.utc)
    pem = jws.verify_chain(x5c, apple_test_root(), at)
    assert pem.startswith("-----BEGIN PUBLIC KEY-----\n") and pem.endswith("-----END PUBLIC KEY-----\n")
    cases = [
        (lambda: jws.verify_chain(x5c, None, at), jws.EJWS_UNTRUSTED, VerificationStatus.VERIFICATION_FAILURE),
        (lambda: jws.verify_chain(x5c[:2], apple_test_root(), at), jws.EJWS_CHAIN_LENGTH, VerificationStatus.INVALID_CHAIN_LENGTH),
        (lambda: jws.verify_chain(["not base64!"] + x5c[1:], apple_test_root(), at), jws.EJWS_CERTIFICATE,
         VerificationStatus.INVALID_CERTIFICATE),
        (lambda: jws.verify_chain(x5c, b"abc", at), jws.EJWS_CERTIFICATE, VerificationStatus.INVALID_CERTIFICATE),
        (lambda: jws.verify_chain(x5c, apple_test_root(), datetime(2042, 1, 1, tzinfo=timezone.utc)), jws.EJWS_CERT_TIME,
         VerificationStatus.VERIFICATION_FAILURE),
        (lambda: jws.verify_chain([x5c[1], x5c[1], x5c[2]], apple_test_root(), at), jws.EJWS_CHAIN_LENGTH,
         VerificationStatus.INVALID_CHAIN_LENGTH),  # the intermediate as leaf: a chain of two
    ]
    for call, code, status in cases:
        with pytest.raises(SignatureError) as e:
            call()
        assert (e.value.code, e.value.status) == (code, status), e.value


def test_the_app_and_environment_a_notification_is_about():
    """notification_subject: from data, else summary, else externalPurchaseToken (Sandbox iff
    its id starts with SANDBOX), else appData — as Apple's verifier takes them."""
    data = {"bundleId": "com.example", "appAppleId": 1, "environment": "Sandbox"}
    assert jws.notification_subject({"data": data, "summary": {"bundleId": "other"}}) == ("com.example", 1, "Sandbox")
    assert jws.notification_subject({"summary": {"bundleId": "s", "appAppleId": 2, "environment": "Production"}}) == ("s", 2, "Production")
    token = {"bundleId": "t", "appAppleId": 3, "externalPurchaseId": "SANDBOX_1"}
    assert jws.notification_subject({"externalPurchaseToken": token}).environment == "Sandbox"
    token["externalPurchaseId"] = "b2158121"
    assert jws.notification_subject(json.dumps({"externalPurchaseToken": token})) == ("t", 3, "Production")
    assert jws.notification_subject({"appData": {"bundleId": "a", "environment": "Sandbox"}}) == ("a", None, "Sandbox")
    assert jws.notification_subject({}) == (None, None, None)
    with pytest.raises(SignatureError) as e:
        jws.notification_subject("[1]")
    assert e.value.code == jws.EJWS_MALFORMED
    with pytest.raises(SignedDataError) as e:
        jws.notification_subject({"data": {"appAppleId": "one"}})
    assert e.value.code == jws.EJWS_PAYLOAD_FIELD
