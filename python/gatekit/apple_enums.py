"""Apple's enumerations of App Store data, by Apple's names and documented values
(developer.apple.com/documentation/appstoreserverapi). Models carry a member ``x`` as one of
these and its value as sent in ``rawX``: a value newer than this list gives ``x`` None and
keeps the value in ``rawX``, as Apple's own models do."""
from __future__ import annotations

from enum import Enum, EnumMeta, IntEnum
from typing import Any, Optional

__all__ = ["AccountTenure", "AdvancedCommerceEffective", "AdvancedCommerceOfferPeriod", "AdvancedCommerceOfferReason", "AdvancedCommercePeriod", "AdvancedCommercePriceIncreaseInfoStatus", "AdvancedCommerceReason", "AdvancedCommerceRefundReason", "AdvancedCommerceRefundType", "AutoRenewStatus", "BillingPlanType", "ConsumptionRequestReason", "ConsumptionStatus", "DeliveryStatus", "DeliveryStatusV1", "Environment", "ExpirationIntent", "ExtendReasonCode", "FirstSendAttemptResult", "HeaderPosition", "ImageState", "InAppOwnershipType", "LifetimeDollarsPurchased", "LifetimeDollarsRefunded", "MessageState", "NotificationTypeV2", "OfferDiscountType", "OfferType", "PerformanceTestStatus", "Platform", "PlayTime", "PriceIncreaseStatus", "PurchasePlatform", "RefundPreference", "RefundPreferenceV1", "RenewalBillingPlanType", "RevocationReason", "RevocationType", "Status", "Subtype", "TransactionReason", "Type", "UserStatus", "AppleEnumMeta", "member", "raw_name"]


class AppleEnumMeta(EnumMeta):
    """Apple's enumerations answer ``value in Enum`` by value, on every Python version
    (3.11's EnumMeta raises TypeError for a value that is not a member)."""

    def __contains__(cls, value: object) -> bool:
        try:
            cls(value)
        except (ValueError, TypeError):
            return False
        return True


def raw_name(name: str) -> str:
    """The member that keeps an enumeration's value as sent: ``x`` -> ``rawX``."""
    return "raw" + name[:1].upper() + name[1:]


def member(enum: Any, value: Any) -> Optional[Any]:
    """``enum(value)``, or None for a value newer than this package (rawX keeps it)."""
    try:
        return enum(value)
    except ValueError:
        return None


class Environment(str, Enum, metaclass=AppleEnumMeta):
    SANDBOX = "Sandbox"
    PRODUCTION = "Production"
    XCODE = "Xcode"
    LOCAL_TESTING = "LocalTesting"


class Status(IntEnum, metaclass=AppleEnumMeta):
    """The status of an auto-renewable subscription."""
    ACTIVE = 1
    EXPIRED = 2
    BILLING_RETRY = 3
    BILLING_GRACE_PERIOD = 4
    REVOKED = 5


class InAppOwnershipType(str, Enum, metaclass=AppleEnumMeta):
    FAMILY_SHARED = "FAMILY_SHARED"
    PURCHASED = "PURCHASED"


class Type(str, Enum, metaclass=AppleEnumMeta):
    """The type of an in-app purchase."""
    AUTO_RENEWABLE_SUBSCRIPTION = "Auto-Renewable Subscription"
    NON_CONSUMABLE = "Non-Consumable"
    CONSUMABLE = "Consumable"
    NON_RENEWING_SUBSCRIPTION = "Non-Renewing Subscription"


class OfferType(IntEnum, metaclass=AppleEnumMeta):
    INTRODUCTORY_OFFER = 1
    PROMOTIONAL_OFFER = 2
    OFFER_CODE = 3
    WIN_BACK_OFFER = 4


class OfferDiscountType(str, Enum, metaclass=AppleEnumMeta):
    FREE_TRIAL = "FREE_TRIAL"
    PAY_AS_YOU_GO = "PAY_AS_YOU_GO"
    PAY_UP_FRONT = "PAY_UP_FRONT"
    ONE_TIME = "ONE_TIME"


class TransactionReason(str, Enum, metaclass=AppleEnumMeta):
    PURCHASE = "PURCHASE"
    RENEWAL = "RENEWAL"


class RevocationReason(IntEnum, metaclass=AppleEnumMeta):
    REFUNDED_FOR_OTHER_REASON = 0
    REFUNDED_DUE_TO_ISSUE = 1


class RevocationType(str, Enum, metaclass=AppleEnumMeta):
    REFUND_FULL = "REFUND_FULL"
    REFUND_PRORATED = "REFUND_PRORATED"
    FAMILY_REVOKE = "FAMILY_REVOKE"


class AutoRenewStatus(IntEnum, metaclass=AppleEnumMeta):
    OFF = 0
    ON = 1


class ExpirationIntent(IntEnum, metaclass=AppleEnumMeta):
    CUSTOMER_CANCELLED = 1
    BILLING_ERROR = 2
    CUSTOMER_DID_NOT_CONSENT_TO_PRICE_INCREASE = 3
    PRODUCT_NOT_AVAILABLE = 4
    OTHER = 5


class PriceIncreaseStatus(IntEnum, metaclass=AppleEnumMeta):
    CUSTOMER_HAS_NOT_RESPONDED = 0
    CUSTOMER_CONSENTED_OR_WAS_NOTIFIED_WITHOUT_NEEDING_CONSENT = 1


class PurchasePlatform(str, Enum, metaclass=AppleEnumMeta):
    IOS = "iOS"
    MAC_OS = "macOS"
    TV_OS = "tvOS"
    VISION_OS = "visionOS"


class NotificationTypeV2(str, Enum, metaclass=AppleEnumMeta):
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


class Subtype(str, Enum, metaclass=AppleEnumMeta):
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


class AccountTenure(IntEnum, metaclass=AppleEnumMeta):
    UNDECLARED = 0
    ZERO_TO_THREE_DAYS = 1
    THREE_DAYS_TO_TEN_DAYS = 2
    TEN_DAYS_TO_THIRTY_DAYS = 3
    THIRTY_DAYS_TO_NINETY_DAYS = 4
    NINETY_DAYS_TO_ONE_HUNDRED_EIGHTY_DAYS = 5
    ONE_HUNDRED_EIGHTY_DAYS_TO_THREE_HUNDRED_SIXTY_FIVE_DAYS = 6
    GREATER_THAN_THREE_HUNDRED_SIXTY_FIVE_DAYS = 7


class AdvancedCommerceEffective(str, Enum, metaclass=AppleEnumMeta):
    IMMEDIATELY = 'IMMEDIATELY'
    NEXT_BILL_CYCLE = 'NEXT_BILL_CYCLE'


class AdvancedCommerceOfferPeriod(str, Enum, metaclass=AppleEnumMeta):
    P3D = 'P3D'
    P1W = 'P1W'
    P2W = 'P2W'
    P1M = 'P1M'
    P2M = 'P2M'
    P3M = 'P3M'
    P6M = 'P6M'
    P9M = 'P9M'
    P1Y = 'P1Y'


class AdvancedCommerceOfferReason(str, Enum, metaclass=AppleEnumMeta):
    ACQUISITION = 'ACQUISITION'
    WIN_BACK = 'WIN_BACK'
    RETENTION = 'RETENTION'


class AdvancedCommercePeriod(str, Enum, metaclass=AppleEnumMeta):
    P1W = 'P1W'
    P1M = 'P1M'
    P2M = 'P2M'
    P3M = 'P3M'
    P6M = 'P6M'
    P1Y = 'P1Y'


class AdvancedCommercePriceIncreaseInfoStatus(str, Enum, metaclass=AppleEnumMeta):
    SCHEDULED = 'SCHEDULED'
    PENDING = 'PENDING'
    ACCEPTED = 'ACCEPTED'


class AdvancedCommerceReason(str, Enum, metaclass=AppleEnumMeta):
    UPGRADE = 'UPGRADE'
    DOWNGRADE = 'DOWNGRADE'
    APPLY_OFFER = 'APPLY_OFFER'


class AdvancedCommerceRefundReason(str, Enum, metaclass=AppleEnumMeta):
    UNINTENDED_PURCHASE = 'UNINTENDED_PURCHASE'
    FULFILLMENT_ISSUE = 'FULFILLMENT_ISSUE'
    UNSATISFIED_WITH_PURCHASE = 'UNSATISFIED_WITH_PURCHASE'
    LEGAL = 'LEGAL'
    OTHER = 'OTHER'
    MODIFY_ITEMS_REFUND = 'MODIFY_ITEMS_REFUND'
    SIMULATE_REFUND_DECLINE = 'SIMULATE_REFUND_DECLINE'


class AdvancedCommerceRefundType(str, Enum, metaclass=AppleEnumMeta):
    FULL = 'FULL'
    PRORATED = 'PRORATED'
    CUSTOM = 'CUSTOM'


class BillingPlanType(str, Enum, metaclass=AppleEnumMeta):
    BILLED_UPFRONT = 'BILLED_UPFRONT'
    MONTHLY = 'MONTHLY'


class ConsumptionRequestReason(str, Enum, metaclass=AppleEnumMeta):
    UNINTENDED_PURCHASE = 'UNINTENDED_PURCHASE'
    FULFILLMENT_ISSUE = 'FULFILLMENT_ISSUE'
    UNSATISFIED_WITH_PURCHASE = 'UNSATISFIED_WITH_PURCHASE'
    LEGAL = 'LEGAL'
    OTHER = 'OTHER'


class ConsumptionStatus(IntEnum, metaclass=AppleEnumMeta):
    UNDECLARED = 0
    NOT_CONSUMED = 1
    PARTIALLY_CONSUMED = 2
    FULLY_CONSUMED = 3


class DeliveryStatus(str, Enum, metaclass=AppleEnumMeta):
    DELIVERED = 'DELIVERED'
    UNDELIVERED_QUALITY_ISSUE = 'UNDELIVERED_QUALITY_ISSUE'
    UNDELIVERED_WRONG_ITEM = 'UNDELIVERED_WRONG_ITEM'
    UNDELIVERED_SERVER_OUTAGE = 'UNDELIVERED_SERVER_OUTAGE'
    UNDELIVERED_OTHER = 'UNDELIVERED_OTHER'


class DeliveryStatusV1(IntEnum, metaclass=AppleEnumMeta):
    DELIVERED_AND_WORKING_PROPERLY = 0
    DID_NOT_DELIVER_DUE_TO_QUALITY_ISSUE = 1
    DELIVERED_WRONG_ITEM = 2
    DID_NOT_DELIVER_DUE_TO_SERVER_OUTAGE = 3
    DID_NOT_DELIVER_DUE_TO_IN_GAME_CURRENCY_CHANGE = 4
    DID_NOT_DELIVER_FOR_OTHER_REASON = 5


class ExtendReasonCode(IntEnum, metaclass=AppleEnumMeta):
    UNDECLARED = 0
    CUSTOMER_SATISFACTION = 1
    OTHER = 2
    SERVICE_ISSUE_OR_OUTAGE = 3


class FirstSendAttemptResult(str, Enum, metaclass=AppleEnumMeta):
    SUCCESS = 'SUCCESS'
    TIMED_OUT = 'TIMED_OUT'
    TLS_ISSUE = 'TLS_ISSUE'
    CIRCULAR_REDIRECT = 'CIRCULAR_REDIRECT'
    NO_RESPONSE = 'NO_RESPONSE'
    SOCKET_ISSUE = 'SOCKET_ISSUE'
    UNSUPPORTED_CHARSET = 'UNSUPPORTED_CHARSET'
    INVALID_RESPONSE = 'INVALID_RESPONSE'
    PREMATURE_CLOSE = 'PREMATURE_CLOSE'
    UNSUCCESSFUL_HTTP_RESPONSE_CODE = 'UNSUCCESSFUL_HTTP_RESPONSE_CODE'
    OTHER = 'OTHER'


class HeaderPosition(str, Enum, metaclass=AppleEnumMeta):
    ABOVE_BODY = 'ABOVE_BODY'
    ABOVE_IMAGE = 'ABOVE_IMAGE'


class ImageState(str, Enum, metaclass=AppleEnumMeta):
    PENDING = 'PENDING'
    APPROVED = 'APPROVED'
    REJECTED = 'REJECTED'


class LifetimeDollarsPurchased(IntEnum, metaclass=AppleEnumMeta):
    UNDECLARED = 0
    ZERO_DOLLARS = 1
    ONE_CENT_TO_FORTY_NINE_DOLLARS_AND_NINETY_NINE_CENTS = 2
    FIFTY_DOLLARS_TO_NINETY_NINE_DOLLARS_AND_NINETY_NINE_CENTS = 3
    ONE_HUNDRED_DOLLARS_TO_FOUR_HUNDRED_NINETY_NINE_DOLLARS_AND_NINETY_NINE_CENTS = 4
    FIVE_HUNDRED_DOLLARS_TO_NINE_HUNDRED_NINETY_NINE_DOLLARS_AND_NINETY_NINE_CENTS = 5
    ONE_THOUSAND_DOLLARS_TO_ONE_THOUSAND_NINE_HUNDRED_NINETY_NINE_DOLLARS_AND_NINETY_NINE_CENTS = 6
    TWO_THOUSAND_DOLLARS_OR_GREATER = 7


class LifetimeDollarsRefunded(IntEnum, metaclass=AppleEnumMeta):
    UNDECLARED = 0
    ZERO_DOLLARS = 1
    ONE_CENT_TO_FORTY_NINE_DOLLARS_AND_NINETY_NINE_CENTS = 2
    FIFTY_DOLLARS_TO_NINETY_NINE_DOLLARS_AND_NINETY_NINE_CENTS = 3
    ONE_HUNDRED_DOLLARS_TO_FOUR_HUNDRED_NINETY_NINE_DOLLARS_AND_NINETY_NINE_CENTS = 4
    FIVE_HUNDRED_DOLLARS_TO_NINE_HUNDRED_NINETY_NINE_DOLLARS_AND_NINETY_NINE_CENTS = 5
    ONE_THOUSAND_DOLLARS_TO_ONE_THOUSAND_NINE_HUNDRED_NINETY_NINE_DOLLARS_AND_NINETY_NINE_CENTS = 6
    TWO_THOUSAND_DOLLARS_OR_GREATER = 7


class MessageState(str, Enum, metaclass=AppleEnumMeta):
    PENDING = 'PENDING'
    APPROVED = 'APPROVED'
    REJECTED = 'REJECTED'


class PerformanceTestStatus(str, Enum, metaclass=AppleEnumMeta):
    PENDING = 'PENDING'
    PASS = 'PASS'
    FAIL = 'FAIL'


class Platform(IntEnum, metaclass=AppleEnumMeta):
    UNDECLARED = 0
    APPLE = 1
    NON_APPLE = 2


class PlayTime(IntEnum, metaclass=AppleEnumMeta):
    UNDECLARED = 0
    ZERO_TO_FIVE_MINUTES = 1
    FIVE_TO_SIXTY_MINUTES = 2
    ONE_TO_SIX_HOURS = 3
    SIX_HOURS_TO_TWENTY_FOUR_HOURS = 4
    ONE_DAY_TO_FOUR_DAYS = 5
    FOUR_DAYS_TO_SIXTEEN_DAYS = 6
    OVER_SIXTEEN_DAYS = 7


class RefundPreference(str, Enum, metaclass=AppleEnumMeta):
    DECLINE = 'DECLINE'
    GRANT_FULL = 'GRANT_FULL'
    GRANT_PRORATED = 'GRANT_PRORATED'


class RefundPreferenceV1(IntEnum, metaclass=AppleEnumMeta):
    UNDECLARED = 0
    PREFER_GRANT = 1
    PREFER_DECLINE = 2
    NO_PREFERENCE = 3


class RenewalBillingPlanType(str, Enum, metaclass=AppleEnumMeta):
    BILLED_UPFRONT = 'BILLED_UPFRONT'
    MONTHLY = 'MONTHLY'


class UserStatus(IntEnum, metaclass=AppleEnumMeta):
    UNDECLARED = 0
    ACTIVE = 1
    SUSPENDED = 2
    TERMINATED = 3
    LIMITED_ACCESS = 4
