"""Customer lives for the ledger tests: realistic sequences of signed App Store data built from
Apple's documented payload shapes (../shared/fixtures/appstore-api/models), signed with the
throw-away test PKI, and the answers each life must give (a table written by hand from Apple's
rules, docs/ledger.md). Tests/GateKitCoreTests/LedgerLivesTests.swift holds the same lives and
table in Swift (the core's rules without the C ABI): a row changed here is changed there."""
from __future__ import annotations

import copy
import json
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from conftest import REPO_ROOT
from signing import CHAIN, PKI

FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", REPO_ROOT.parent / "shared" / "fixtures"))
MODELS = FIXTURES / "appstore-api" / "models"

DAY = 86_400_000
MONTH = 30 * DAY
T0 = 1_735_689_600_000  # 2025-01-01T00:00:00Z
BUNDLE = "com.example"
APP_APPLE_ID = 41234
AUTO = "Auto-Renewable Subscription"

_TRANSACTION_DROP = ("revocationReason", "revocationDate", "isUpgraded", "offerType", "offerIdentifier",
                     "offerDiscountType", "offerPeriod", "advancedCommerceInfo", "commitmentInfo", "billingPlanType",
                     "appAccountToken", "webOrderLineItemId")
_RENEWAL_DROP = ("advancedCommerceInfo", "commitmentInfo", "gracePeriodExpiresDate", "offerType", "offerIdentifier",
                 "offerDiscountType", "offerPeriod", "expirationIntent", "eligibleWinBackOfferIds", "appAccountToken",
                 "renewalBillingPlanType")


def model(name: str) -> Dict[str, Any]:
    value: Dict[str, Any] = json.loads((MODELS / f"{name}.json").read_text())
    return value


@dataclass
class Life:
    """One customer's signed items, in the order Apple would have sent them."""
    pki: PKI
    name: str
    original: str
    environment: str = "Sandbox"
    token: Optional[str] = None
    group: str = "20000001"
    items: List[Tuple[str, str]] = field(default_factory=list)   # (kind, compact JWS)
    bundle: str = BUNDLE

    def _sign(self, payload: Dict[str, Any]) -> str:
        return self.pki.sign(payload, CHAIN)

    def tx(self, tid: str, product: str, purchase: int, expires: Optional[int] = None, signed: Optional[int] = None,
           type: str = AUTO, group: Optional[str] = "", **extra: Any) -> Dict[str, Any]:
        t = model("signedTransaction")
        for key in _TRANSACTION_DROP:
            t.pop(key, None)
        t.update(transactionId=tid, originalTransactionId=self.original, bundleId=self.bundle, productId=product,
                 purchaseDate=purchase, originalPurchaseDate=purchase, signedDate=signed if signed is not None else purchase,
                 type=type, environment=self.environment, inAppOwnershipType="PURCHASED",
                 transactionReason="PURCHASE")
        if expires is None:
            t.pop("expiresDate", None)
        else:
            t["expiresDate"] = expires
        if type == AUTO:
            t["subscriptionGroupIdentifier"] = self.group if group == "" else group
            t["webOrderLineItemId"] = tid + "0"
        else:
            t.pop("subscriptionGroupIdentifier", None)
        if self.token:
            t["appAccountToken"] = self.token
        t.update(extra)
        return t

    def renewal(self, signed: int, product: str, auto_product: Optional[str] = None, **extra: Any) -> Dict[str, Any]:
        r = model("signedRenewalInfo")
        for key in _RENEWAL_DROP:
            r.pop(key, None)
        r.update(originalTransactionId=self.original, productId=product, autoRenewProductId=auto_product or product,
                 autoRenewStatus=1, isInBillingRetryPeriod=False, signedDate=signed, environment=self.environment,
                 recentSubscriptionStartDate=signed, renewalDate=signed)
        r.update(extra)
        return r

    def notify(self, type: str, subtype: Optional[str], signed: int, tx: Optional[Dict[str, Any]] = None,
               renewal: Optional[Dict[str, Any]] = None) -> None:
        n = model("signedNotification")
        n.update(notificationType=type, notificationUUID=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.name}/{len(self.items)}")),
                 signedDate=signed)
        if subtype is None:
            n.pop("subtype", None)
        else:
            n["subtype"] = subtype
        data = n["data"]
        data.update(environment=self.environment, bundleId=self.bundle, appAppleId=APP_APPLE_ID)
        data.pop("status", None)
        if tx is None:
            data.pop("signedTransactionInfo", None)
        else:
            data["signedTransactionInfo"] = self._sign(tx)
        if renewal is None:
            data.pop("signedRenewalInfo", None)
        else:
            data["signedRenewalInfo"] = self._sign(renewal)
        self.items.append(("notification", self._sign(n)))

    def transaction(self, tx: Dict[str, Any]) -> None:
        """A signed transaction on its own (the app's jwsRepresentation, the Server API)."""
        self.items.append(("transaction", self._sign(tx)))

    def renewal_info(self, renewal: Dict[str, Any]) -> None:
        self.items.append(("renewal_info", self._sign(renewal)))

    def raw_notification(self, payload: Dict[str, Any]) -> None:
        self.items.append(("notification", self._sign(payload)))


@dataclass(frozen=True)
class Expect:
    """One row of the table: at `at`, `customer` asking about `subject` gets `reason` (and
    `until`, and the subscription `status`, when given)."""
    life: str
    customer: str
    subject: str
    at: int
    reason: str
    until: Optional[int] = None
    status: Optional[int] = None


def build(pki: PKI, bundle: str = BUNDLE) -> Tuple[Dict[str, Life], List[Expect]]:
    """The lives and their table; ``bundle``: the app they are signed for (a test that needs
    its own app, such as one with its own App Store history in the stand-in)."""
    lives: Dict[str, Life] = {}
    table: List[Expect] = []

    # A year of monthly renewals; the 6th renewal fails into a 16-day grace period and recovers
    # on day 5 of it; the customer is known by an app account token.
    year = Life(pki, "year", original="1000", token="7e3fb20b-4cdb-47cc-936d-99d65f608138", bundle=bundle)
    lives[year.name] = year
    start = T0
    for month in range(12):
        purchase = start + month * MONTH
        if month == 6:
            failed = purchase  # the renewal was due here
            year.notify("DID_FAIL_TO_RENEW", "GRACE_PERIOD", failed + 1000, renewal=year.renewal(
                failed + 1000, "pro.monthly", isInBillingRetryPeriod=True, gracePeriodExpiresDate=failed + 16 * DAY,
                expirationIntent=2))
            purchase = failed + 5 * DAY
            tx = year.tx(f"10{month:02d}", "pro.monthly", purchase, purchase + MONTH - 5 * DAY)
            year.notify("DID_RENEW", "BILLING_RECOVERY", purchase + 1000, tx=tx,
                        renewal=year.renewal(purchase + 1000, "pro.monthly"))
            continue
        tx = year.tx(f"10{month:02d}", "pro.monthly", purchase, purchase + MONTH)
        if month == 0:
            year.notify("SUBSCRIBED", "INITIAL_BUY", purchase + 1000, tx=tx, renewal=year.renewal(purchase + 1000, "pro.monthly"))
        else:
            year.notify("DID_RENEW", None, purchase + 1000, tx=tx, renewal=year.renewal(purchase + 1000, "pro.monthly"))
    token = year.token or ""
    table += [
        Expect("year", token, "pro.monthly", T0 + 2 * MONTH + 3 * DAY, "subscription", T0 + 3 * MONTH, 1),
        Expect("year", "1000", "20000001", T0 + 2 * MONTH + 3 * DAY, "subscription", T0 + 3 * MONTH, 1),
        Expect("year", token, "pro.monthly", T0 + 6 * MONTH + 2 * DAY, "grace-period", T0 + 6 * MONTH + 16 * DAY, 4),
        Expect("year", token, "pro.monthly", T0 + 6 * MONTH + 6 * DAY, "subscription", T0 + 7 * MONTH, 1),
        Expect("year", token, "pro.monthly", T0 + 12 * MONTH + DAY, "expired", None, 2),
        Expect("year", token, "other.product", T0 + 2 * MONTH, "no-purchase"),
    ]

    # Billing retry without a grace period, then expiry when Apple gives up.
    retry = Life(pki, "retry", original="2000", bundle=bundle)
    lives[retry.name] = retry
    tx = retry.tx("2001", "basic.monthly", T0, T0 + MONTH)
    retry.notify("SUBSCRIBED", "INITIAL_BUY", T0 + 1000, tx=tx, renewal=retry.renewal(T0 + 1000, "basic.monthly"))
    retry.notify("DID_FAIL_TO_RENEW", None, T0 + MONTH + 1000, renewal=retry.renewal(
        T0 + MONTH + 1000, "basic.monthly", isInBillingRetryPeriod=True, expirationIntent=2))
    retry.notify("EXPIRED", "BILLING_RETRY", T0 + MONTH + 60 * DAY, renewal=retry.renewal(
        T0 + MONTH + 60 * DAY, "basic.monthly", isInBillingRetryPeriod=False, autoRenewStatus=0, expirationIntent=2))
    table += [
        Expect("retry", "2000", "basic.monthly", T0 + 10 * DAY, "subscription", T0 + MONTH, 1),
        Expect("retry", "2000", "basic.monthly", T0 + MONTH + 2 * DAY, "billing-retry", None, 3),
        Expect("retry", "2000", "basic.monthly", T0 + MONTH + 61 * DAY, "expired", None, 2),
    ]

    # A non-consumable refunded, then the refund reversed.
    refund = Life(pki, "refund", original="3000", bundle=bundle)
    lives[refund.name] = refund
    tx = refund.tx("3000", "lifetime", T0, type="Non-Consumable")
    refund.notify("ONE_TIME_CHARGE", None, T0 + 1000, tx=tx)
    refunded = dict(tx, signedDate=T0 + 10 * DAY, revocationDate=T0 + 10 * DAY, revocationReason=0)
    refund.notify("REFUND", None, T0 + 10 * DAY, tx=refunded)
    refund.notify("REFUND_DECLINED", None, T0 + 9 * DAY, tx=dict(tx, signedDate=T0 + 9 * DAY))
    restored = dict(tx, signedDate=T0 + 20 * DAY)
    refund.notify("REFUND_REVERSED", None, T0 + 20 * DAY, tx=restored)
    table += [
        Expect("refund", "3000", "lifetime", T0 + 5 * DAY, "non-consumable"),
        Expect("refund", "3000", "lifetime", T0 + 15 * DAY, "revoked"),
        Expect("refund", "3000", "lifetime", T0 + 25 * DAY, "non-consumable"),
    ]

    # Family sharing: a family member's shared subscription, then revoked when sharing stops.
    family = Life(pki, "family", original="4000", bundle=bundle)
    lives[family.name] = family
    tx = family.tx("4001", "family.yearly", T0, T0 + 12 * MONTH, inAppOwnershipType="FAMILY_SHARED")
    family.notify("SUBSCRIBED", "INITIAL_BUY", T0 + 1000, tx=tx, renewal=family.renewal(T0 + 1000, "family.yearly"))
    revoked = dict(tx, signedDate=T0 + 3 * MONTH, revocationDate=T0 + 3 * MONTH, revocationReason=0)
    family.notify("REVOKE", None, T0 + 3 * MONTH, tx=revoked)
    table += [
        Expect("family", "4000", "family.yearly", T0 + MONTH, "subscription", T0 + 12 * MONTH, 1),
        Expect("family", "4000", "family.yearly", T0 + 4 * MONTH, "revoked", None, 5),
    ]

    # Upgrade (immediate), then downgrade (at renewal), then a crossgrade, in group 30000001.
    tiers = Life(pki, "tiers", original="5000", group="30000001", bundle=bundle)
    lives[tiers.name] = tiers
    basic = tiers.tx("5001", "basic.monthly.t", T0, T0 + MONTH)
    tiers.notify("SUBSCRIBED", "INITIAL_BUY", T0 + 1000, tx=basic, renewal=tiers.renewal(T0 + 1000, "basic.monthly.t"))
    up = T0 + 10 * DAY
    tiers.transaction(dict(basic, signedDate=up, isUpgraded=True))
    pro = tiers.tx("5002", "pro.monthly.t", up, up + MONTH)
    tiers.notify("DID_CHANGE_RENEWAL_PREF", "UPGRADE", up + 1000, tx=pro, renewal=tiers.renewal(up + 1000, "pro.monthly.t"))
    down = up + 5 * DAY
    tiers.notify("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", down, renewal=tiers.renewal(down, "pro.monthly.t", "basic.monthly.t"))
    renewal = up + MONTH
    back = tiers.tx("5003", "basic.monthly.t", renewal, renewal + MONTH)
    tiers.notify("DID_RENEW", None, renewal + 1000, tx=back, renewal=tiers.renewal(renewal + 1000, "basic.monthly.t"))
    cross = renewal + 3 * DAY
    tiers.transaction(dict(back, signedDate=cross, isUpgraded=True))
    side = tiers.tx("5004", "basic.yearly.t", cross, cross + 12 * MONTH)
    tiers.notify("DID_CHANGE_RENEWAL_PREF", "UPGRADE", cross + 1000, tx=side, renewal=tiers.renewal(cross + 1000, "basic.yearly.t"))
    table += [
        Expect("tiers", "5000", "basic.monthly.t", T0 + 5 * DAY, "subscription", T0 + MONTH, 1),
        Expect("tiers", "5000", "pro.monthly.t", up + DAY, "subscription", up + MONTH, 1),
        Expect("tiers", "5000", "basic.monthly.t", up + DAY, "upgraded"),
        Expect("tiers", "5000", "30000001", up + DAY, "subscription", up + MONTH, 1),
        Expect("tiers", "5000", "pro.monthly.t", down + DAY, "subscription", up + MONTH, 1),
        Expect("tiers", "5000", "basic.monthly.t", renewal + DAY, "subscription", renewal + MONTH, 1),
        Expect("tiers", "5000", "basic.yearly.t", cross + DAY, "subscription", cross + 12 * MONTH, 1),
        Expect("tiers", "5000", "basic.monthly.t", cross + DAY, "upgraded"),
    ]

    # A renewal extension (RENEWAL_EXTENDED re-signs the transaction with a later expiry) and a
    # consumable, which never entitles.
    extended = Life(pki, "extended", original="6000", bundle=bundle)
    lives[extended.name] = extended
    tx = extended.tx("6001", "news.monthly", T0, T0 + MONTH)
    extended.notify("SUBSCRIBED", "RESUBSCRIBE", T0 + 1000, tx=tx, renewal=extended.renewal(T0 + 1000, "news.monthly"))
    extended.notify("RENEWAL_EXTENDED", None, T0 + 20 * DAY, tx=dict(tx, signedDate=T0 + 20 * DAY, expiresDate=T0 + MONTH + 7 * DAY))
    coins = extended.tx("6100", "coins.100", T0 + DAY, type="Consumable", originalTransactionId="6100")
    extended.transaction(coins)
    table += [
        Expect("extended", "6000", "news.monthly", T0 + MONTH + 3 * DAY, "subscription", T0 + MONTH + 7 * DAY, 1),
        Expect("extended", "6000", "news.monthly", T0 + MONTH + 8 * DAY, "expired", None, 2),
        Expect("extended", "6100", "coins.100", T0 + 2 * DAY, "consumable"),
    ]

    # Notifications that change no entitlement: TEST, a renewal-extension summary, a
    # consumption request, an app-data notification and a type Apple may add later.
    quiet = Life(pki, "quiet", original="7000", bundle=bundle)
    lives[quiet.name] = quiet
    for name in ("signedSummaryNotification", "signedConsumptionRequestNotification"):
        payload = model(name)
        payload["signedDate"] = T0 + 1000
        payload["notificationUUID"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"quiet/{name}"))
        for part in ("data", "summary"):
            if part in payload:
                payload[part].update(environment="Sandbox", bundleId=bundle, appAppleId=APP_APPLE_ID)
                payload[part].pop("signedTransactionInfo", None)
                payload[part].pop("signedRenewalInfo", None)
        quiet.raw_notification(payload)
    test = {"notificationType": "TEST", "notificationUUID": str(uuid.uuid5(uuid.NAMESPACE_URL, "quiet/test")),
            "data": {"environment": "Sandbox", "bundleId": bundle, "appAppleId": APP_APPLE_ID}, "version": "2.0",
            "signedDate": T0 + 2000}
    quiet.raw_notification(test)
    future = copy.deepcopy(test)
    future.update(notificationType="SOMETHING_APPLE_ADDS_LATER", subtype="NEW_SUBTYPE",
                  notificationUUID=str(uuid.uuid5(uuid.NAMESPACE_URL, "quiet/future")))
    quiet.raw_notification(future)
    table.append(Expect("quiet", "7000", "anything", T0 + DAY, "unknown-customer"))  # nothing the ledger keys on
    return lives, table


def all_items(lives: Dict[str, Life]) -> List[Tuple[str, str]]:
    return [item for life in lives.values() for item in life.items]
