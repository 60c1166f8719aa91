"""Apple's enumerations of App Store data, by Apple's names and documented values
(developer.apple.com/documentation/appstoreserverapi). Models carry a member ``x`` as one of
these and its value as sent in ``rawX``: a value newer than this list gives ``x`` None and
keeps the value in ``rawX``, as Apple's own models do."""
from __future__ import annotations

from enum import Enum, IntEnum
from typing import Any, Optional

__all__ = ["AutoRenewStatus", "Environment", "ExpirationIntent", "InAppOwnershipType", "NotificationTypeV2",
           "OfferDiscountType", "OfferType", "PriceIncreaseStatus", "PurchasePlatform", "RevocationReason",
           "RevocationType", "Status", "Subtype", "TransactionReason", "Type", "member", "raw_name"]


def raw_name(name: str) -> str:
    """The member that keeps an enumeration's value as sent: ``x`` -> ``rawX``."""
    return "raw" + name[:1].upper() + name[1:]


def member(enum: Any, value: Any) -> Optional[Any]:
    """``enum(value)``, or None for a value newer than this package (rawX keeps it)."""
    try:
        return enum(value)
    except ValueError:
        return None


class Environment(str, Enum):
    SANDBOX = "Sandbox"
    PRODUCTION = "Production"
    XCODE = "Xcode"
    LOCAL_TESTING = "LocalTesting"


class Status(IntEnum):
    """The status of an auto-renewable subscription."""
    ACTIVE = 1
    EXPIRED = 2
    BILLING_RETRY = 3
    BILLING_GRACE_PERIOD = 4
    REVOKED = 5


class InAppOwnershipType(str, Enum):
    FAMILY_SHARED = "FAMILY_SHARED"
    PURCHASED = "PURCHASED"


class Type(str, Enum):
    """The type of an in-app purchase."""
    AUTO_RENEWABLE_SUBSCRIPTION = "Auto-Renewable Subscription"
    NON_CONSUMABLE = "Non-Consumable"
    CONSUMABLE = "Consumable"
    NON_RENEWING_SUBSCRIPTION = "Non-Renewing Subscription"


class OfferType(IntEnum):
    INTRODUCTORY_OFFER = 1
    PROMOTIONAL_OFFER = 2
    OFFER_CODE = 3
    WIN_BACK_OFFER = 4


class OfferDiscountType(str, Enum):
    FREE_TRIAL = "FREE_TRIAL"
    PAY_AS_YOU_GO = "PAY_AS_YOU_GO"
    PAY_UP_FRONT = "PAY_UP_FRONT"
    ONE_TIME = "ONE_TIME"


class TransactionReason(str, Enum):
    PURCHASE = "PURCHASE"
    RENEWAL = "RENEWAL"


class RevocationReason(IntEnum):
    REFUNDED_FOR_OTHER_REASON = 0
    REFUNDED_DUE_TO_ISSUE = 1


class RevocationType(str, Enum):
    REFUND_FULL = "REFUND_FULL"
    REFUND_PRORATED = "REFUND_PRORATED"
    FAMILY_REVOKE = "FAMILY_REVOKE"


class AutoRenewStatus(IntEnum):
    OFF = 0
    ON = 1


class ExpirationIntent(IntEnum):
    CUSTOMER_CANCELLED = 1
    BILLING_ERROR = 2
    CUSTOMER_DID_NOT_CONSENT_TO_PRICE_INCREASE = 3
    PRODUCT_NOT_AVAILABLE = 4
    OTHER = 5


class PriceIncreaseStatus(IntEnum):
    CUSTOMER_HAS_NOT_RESPONDED = 0
    CUSTOMER_CONSENTED_OR_WAS_NOTIFIED_WITHOUT_NEEDING_CONSENT = 1


class PurchasePlatform(str, Enum):
    IOS = "iOS"
    MAC_OS = "macOS"
    TV_OS = "tvOS"
    VISION_OS = "visionOS"


class NotificationTypeV2(str, Enum):
    SUBSCRIBED = "SUBSCRIBED"
    DID_CHANGE_RENEWAL_PREF = "DID_CHANGE_RENEWAL_PREF"
    DID_CHANGE_RENEWAL_STATUS = "DID_CHANGE_RENEWAL_STATUS"
    OFFER_REDEEMED = "OFFER_REDEEMED"
    DID_RENEW = "DID_RENEW"
    EXPIRED = "EXPIRED"
    DID_FAIL_TO_RENEW = "DID_FAIL_TO_RENEW"
    GRACE_PERIOD_EXPIRED = "GRACE_PERIOD_EXPIRED"
    PRICE_INCREASE = "PRICE_INCREASE"
    REFUND = "REFUND"
    REFUND_DECLINED = "REFUND_DECLINED"
    CONSUMPTION_REQUEST = "CONSUMPTION_REQUEST"
    RENEWAL_EXTENDED = "RENEWAL_EXTENDED"
    REVOKE = "REVOKE"
    TEST = "TEST"
    RENEWAL_EXTENSION = "RENEWAL_EXTENSION"
    REFUND_REVERSED = "REFUND_REVERSED"
    EXTERNAL_PURCHASE_TOKEN = "EXTERNAL_PURCHASE_TOKEN"
    ONE_TIME_CHARGE = "ONE_TIME_CHARGE"
    RESCIND_CONSENT = "RESCIND_CONSENT"
    METADATA_UPDATE = "METADATA_UPDATE"
    MIGRATION = "MIGRATION"
    PRICE_CHANGE = "PRICE_CHANGE"


class Subtype(str, Enum):
    INITIAL_BUY = "INITIAL_BUY"
    RESUBSCRIBE = "RESUBSCRIBE"
    DOWNGRADE = "DOWNGRADE"
    UPGRADE = "UPGRADE"
    AUTO_RENEW_ENABLED = "AUTO_RENEW_ENABLED"
    AUTO_RENEW_DISABLED = "AUTO_RENEW_DISABLED"
    VOLUNTARY = "VOLUNTARY"
    BILLING_RETRY = "BILLING_RETRY"
    PRICE_INCREASE = "PRICE_INCREASE"
    GRACE_PERIOD = "GRACE_PERIOD"
    PENDING = "PENDING"
    ACCEPTED = "ACCEPTED"
    BILLING_RECOVERY = "BILLING_RECOVERY"
    PRODUCT_NOT_FOR_SALE = "PRODUCT_NOT_FOR_SALE"
    SUMMARY = "SUMMARY"
    FAILURE = "FAILURE"
    UNREPORTED = "UNREPORTED"
