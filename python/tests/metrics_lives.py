"""Five customer lives in 2025 for the metrics and the report, each figure of which was worked
out by hand from docs/ledger.md's definitions (Tests/GateKitCoreTests/LedgerMetricsTests.swift
holds the same lives and figures in Swift: a life changed here is changed there).

- anna: monthly from Jan 1 (9.99 USD), renews Feb 1 and Mar 1, cancels (intent 1): lapses Apr 1.
- ben (anna's app account token): a 7-day free trial from Jan 10, paid from Jan 17, renews
  Feb 17, that renewal refunded Mar 1.
- cleo: monthly from Feb 1 (8.99 EUR, DEU); Mar 1 fails into a grace period to Mar 17, lapses,
  recovered Mar 20; renews Apr 20; fails May 20 (no grace), Apple gives up Jun 25 (intent 2).
- dora: family-shared from Jan 5, Family Sharing revoked Feb 3.
- eve: monthly from Apr 1, upgrades to yearly (99.99 USD) Apr 15."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Dict, List, Tuple

from ledger_lives import Life
from signing import PKI

MONTHLY, YEARLY = "pro.monthly", "pro.yearly"
SHARED_TOKEN = "3f1a1e6c-7a53-4d8e-9a39-1b3b2c0d7e11"
USD = dict(price=9990, currency="USD", storefront="USA")
EUR = dict(price=8990, currency="EUR", storefront="DEU")


def at(month: int, day: int, year: int = 2025) -> int:
    """Unix ms of midnight UTC."""
    return int(datetime(year, month, day, tzinfo=timezone.utc).timestamp() * 1000)


#: The last millisecond of June 2025: the as-of instant of the figures below.
END_OF_JUNE = at(7, 1) - 1


def build(pki: PKI) -> Dict[str, Life]:
    anna = Life(pki, "anna", "5001", token=SHARED_TOKEN)
    for i, month in enumerate((1, 2, 3)):
        anna.transaction(anna.tx(f"500{i + 1}", MONTHLY, at(month, 1), at(month + 1, 1), **USD))
    anna.notify("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", at(3, 15),
                renewal=anna.renewal(at(3, 15), MONTHLY, autoRenewStatus=0, expirationIntent=1))

    ben = Life(pki, "ben", "6001", token=SHARED_TOKEN)
    ben.transaction(ben.tx("6001", MONTHLY, at(1, 10), at(1, 17), price=0, currency="USD", storefront="USA",
                           offerType=1, offerDiscountType="FREE_TRIAL"))
    ben.transaction(ben.tx("6002", MONTHLY, at(1, 17), at(2, 17), **USD))
    renewal = ben.tx("6003", MONTHLY, at(2, 17), at(3, 17), **USD)
    ben.transaction(renewal)
    ben.notify("REFUND", None, at(3, 1), tx=dict(renewal, signedDate=at(3, 1), revocationDate=at(3, 1), revocationReason=0,
                                                 revocationType="REFUND_FULL"))

    cleo = Life(pki, "cleo", "7001")
    first = cleo.tx("7001", MONTHLY, at(2, 1), at(3, 1), **EUR)
    cleo.transaction(first)
    cleo.notify("DID_FAIL_TO_RENEW", "GRACE_PERIOD", at(3, 1), tx=first,
                renewal=cleo.renewal(at(3, 1), MONTHLY, isInBillingRetryPeriod=True, gracePeriodExpiresDate=at(3, 17)))
    cleo.notify("DID_RENEW", "BILLING_RECOVERY", at(3, 20), tx=cleo.tx("7002", MONTHLY, at(3, 20), at(4, 20), **EUR),
                renewal=cleo.renewal(at(3, 20), MONTHLY))
    cleo.transaction(cleo.tx("7003", MONTHLY, at(4, 20), at(5, 20), **EUR))
    cleo.notify("DID_FAIL_TO_RENEW", None, at(5, 20), renewal=cleo.renewal(at(5, 20), MONTHLY, isInBillingRetryPeriod=True))
    cleo.notify("EXPIRED", "BILLING_RETRY", at(6, 25), renewal=cleo.renewal(at(6, 25), MONTHLY, autoRenewStatus=0, expirationIntent=2))

    dora = Life(pki, "dora", "8001")
    shared = dora.tx("8001", MONTHLY, at(1, 5), at(2, 5), **USD, inAppOwnershipType="FAMILY_SHARED")
    dora.transaction(shared)
    dora.notify("REVOKE", None, at(2, 3), tx=dict(shared, signedDate=at(2, 3), revocationDate=at(2, 3), revocationReason=0,
                                                  revocationType="FAMILY_REVOKE"))

    eve = Life(pki, "eve", "9001")
    monthly = eve.tx("9001", MONTHLY, at(4, 1), at(5, 1), **USD)
    eve.transaction(monthly)
    eve.notify("DID_CHANGE_RENEWAL_PREF", "UPGRADE", at(4, 15),
               tx=eve.tx("9002", YEARLY, at(4, 15), at(4, 15, 2026), price=99990, currency="USD", storefront="USA"))
    eve.transaction(dict(monthly, signedDate=at(4, 15), isUpgraded=True, revocationDate=at(4, 15)))
    return {life.name: life for life in (anna, ben, cleo, dora, eve)}


def items(lives: Dict[str, Life]) -> List[Tuple[str, str]]:
    return [item for life in lives.values() for item in life.items]


#: The monthly series of January to June 2025, as of the end of June (dimension "all").
MONTHLY_SERIES = {
    "activeSubscriptions": [2, 3, 2, 2, 1, 1],
    "activeTrials": [0, 0, 0, 0, 0, 0],
    "inGracePeriod": [0, 0, 0, 0, 0, 0],
    "inBillingRetry": [0, 0, 0, 0, 1, 0],
    "familyShared": [1, 0, 0, 0, 0, 0],
    "paidSubscribers": [1, 2, 2, 2, 1, 1],   # anna and ben are one customer
    "new": [1, 1, 0, 1, 0, 0],
    "newTrials": [1, 0, 0, 0, 0, 0],
    "conversions": [1, 0, 0, 0, 0, 0],
    "renewals": [0, 2, 1, 1, 0, 0],
    "recoveries": [0, 0, 1, 0, 0, 0],
    "reactivations": [0, 0, 0, 0, 0, 0],
    "productChanges": [0, 0, 0, 1, 0, 0],
    "expiredVoluntary": [0, 0, 0, 1, 0, 0],
    "expiredBilling": [0, 0, 1, 0, 1, 0],
    "expiredOther": [0, 0, 0, 0, 0, 0],
    "trialsExpired": [0, 0, 0, 0, 0, 0],
    "refunded": [0, 0, 1, 0, 0, 0],
    "revoked": [0, 1, 0, 0, 0, 0],
    "pricesExcluded": [0, 0, 0, 0, 0, 0],  # every price of the lives is an App Store price
}
REVENUE = {"EUR": [0, 8990, 8990, 8990, 0, 0], "USD": [19980, 19980, 9990, 109980, 0, 0]}
REFUNDS = {"EUR": [0, 0, 0, 0, 0, 0], "USD": [0, 0, 9990, 0, 0, 0]}
NET_REVENUE = {"EUR": [0, 8990, 8990, 8990, 0, 0], "USD": [19980, 19980, 0, 109980, 0, 0]}
# A period's price over its length, times 30.436875 days, to the nearest milliunit: 9.99 over
# 31 days is 9.8085 (9.809); the Swift suite's LedgerMetricsTests holds the same figures.
MRR = {"EUR": [0, 9772, 8827, 9121, 0, 0], "USD": [19618, 21718, 9809, 8338, 8338, 8338]}
COHORTS = [(MONTHLY, at(1, 1), 2, [2, 2, 1, 0, 0, 0]), (MONTHLY, at(2, 1), 1, [1, 1, 1, 0, 0]), (MONTHLY, at(4, 1), 1, [1, 1, 1])]
