"""The App Store Server API's enumerations, response models and request bodies, under Apple's
names and attribute names (Apple's ``appstoreserverlibrary.models``): what
``gatekit.api_client.AppStoreServerAPIClient`` returns and takes. Enumerations are also kept
as their raw values (``raw<Name>``), so a value newer than this package is never lost.
"""
from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ._model import Model, max_length
from .apple_enums import (AccountTenure, AppleEnumMeta, ConsumptionStatus, DeliveryStatus, DeliveryStatusV1, Environment,
                          ExtendReasonCode, HeaderPosition, ImageState, InAppOwnershipType, LifetimeDollarsPurchased,
                          LifetimeDollarsRefunded, MessageState, NotificationTypeV2, PerformanceTestStatus, Platform, PlayTime,
                          RefundPreference, RefundPreferenceV1, Status, Subtype, UserStatus)

__all__ = ["APIError", "AppTransactionInfoResponse", "BulletPoint", "CheckTestNotificationResponse", "ConsumptionRequest", "ConsumptionRequestV1", "DefaultConfigurationRequest", "DefaultConfigurationResponse", "ExtendRenewalDateRequest", "ExtendRenewalDateResponse", "GetImageListResponse", "GetImageListResponseItem", "GetMessageListResponse", "GetMessageListResponseItem", "GetTransactionHistoryVersion", "HistoryResponse", "ImageSize", "LastTransactionsItem", "MassExtendRenewalDateRequest", "MassExtendRenewalDateResponse", "MassExtendRenewalDateStatusResponse", "NotificationHistoryRequest", "NotificationHistoryResponse", "NotificationHistoryResponseItem", "Order", "OrderLookupResponse", "OrderLookupStatus", "PerformanceTestConfig", "PerformanceTestRequest", "PerformanceTestResponse", "PerformanceTestResponseTimes", "PerformanceTestResultResponse", "ProductType", "RealtimeUrlRequest", "RealtimeUrlResponse", "RefundHistoryResponse", "ResponseModel", "SendAttemptItem", "SendAttemptResult", "SendTestNotificationResponse", "StatusResponse", "SubscriptionGroupIdentifierItem", "TransactionHistoryRequest", "TransactionInfoResponse", "UpdateAppAccountTokenRequest", "UploadMessageImage", "UploadMessageRequestBody", "Environment", "Status"]

class GetTransactionHistoryVersion(str, enum.Enum, metaclass=AppleEnumMeta):
    V1 = "v1"  #: deprecated by Apple
    V2 = "v2"


class ImageSize(str, enum.Enum, metaclass=AppleEnumMeta):
    FULL_SIZE = "FULL_SIZE"
    BULLET_POINT = "BULLET_POINT"


class Order(str, enum.Enum, metaclass=AppleEnumMeta):
    ASCENDING = "ASCENDING"
    DESCENDING = "DESCENDING"


class OrderLookupStatus(enum.IntEnum, metaclass=AppleEnumMeta):
    VALID = 0
    INVALID = 1


class SendAttemptResult(str, enum.Enum, metaclass=AppleEnumMeta):
    SUCCESS = "SUCCESS"
    TIMED_OUT = "TIMED_OUT"
    TLS_ISSUE = "TLS_ISSUE"
    CIRCULAR_REDIRECT = "CIRCULAR_REDIRECT"
    NO_RESPONSE = "NO_RESPONSE"
    SOCKET_ISSUE = "SOCKET_ISSUE"
    UNSUPPORTED_CHARSET = "UNSUPPORTED_CHARSET"
    INVALID_RESPONSE = "INVALID_RESPONSE"
    PREMATURE_CLOSE = "PREMATURE_CLOSE"
    UNSUCCESSFUL_HTTP_RESPONSE_CODE = "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
    OTHER = "OTHER"


class ProductType(str, enum.Enum, metaclass=AppleEnumMeta):
    AUTO_RENEWABLE = "AUTO_RENEWABLE"
    NON_RENEWABLE = "NON_RENEWABLE"
    CONSUMABLE = "CONSUMABLE"
    NON_CONSUMABLE = "NON_CONSUMABLE"


class APIError(enum.IntEnum, metaclass=AppleEnumMeta):
    """Apple's error codes (developer.apple.com/documentation/appstoreserverapi/error_codes)."""
    GENERAL_BAD_REQUEST = 4000000
    INVALID_APP_IDENTIFIER = 4000002
    INVALID_REQUEST_REVISION = 4000005
    INVALID_TRANSACTION_ID = 4000006
    INVALID_ORIGINAL_TRANSACTION_ID = 4000008
    INVALID_EXTEND_BY_DAYS = 4000009
    INVALID_EXTEND_REASON_CODE = 4000010
    INVALID_REQUEST_IDENTIFIER = 4000011
    START_DATE_TOO_FAR_IN_PAST = 4000012
    START_DATE_AFTER_END_DATE = 4000013
    INVALID_PAGINATION_TOKEN = 4000014
    INVALID_START_DATE = 4000015
    INVALID_END_DATE = 4000016
    PAGINATION_TOKEN_EXPIRED = 4000017
    INVALID_NOTIFICATION_TYPE = 4000018
    MULTIPLE_FILTERS_SUPPLIED = 4000019
    INVALID_TEST_NOTIFICATION_TOKEN = 4000020
    INVALID_SORT = 4000021
    INVALID_PRODUCT_TYPE = 4000022
    INVALID_PRODUCT_ID = 4000023
    INVALID_SUBSCRIPTION_GROUP_IDENTIFIER = 4000024
    INVALID_EXCLUDE_REVOKED = 4000025
    INVALID_IN_APP_OWNERSHIP_TYPE = 4000026
    INVALID_EMPTY_STOREFRONT_COUNTRY_CODE_LIST = 4000027
    INVALID_STOREFRONT_COUNTRY_CODE = 4000028
    INVALID_REVOKED = 4000030
    INVALID_STATUS = 4000031
    INVALID_ACCOUNT_TENURE = 4000032
    INVALID_APP_ACCOUNT_TOKEN = 4000033
    INVALID_CONSUMPTION_STATUS = 4000034
    INVALID_CUSTOMER_CONSENTED = 4000035
    INVALID_DELIVERY_STATUS = 4000036
    INVALID_LIFETIME_DOLLARS_PURCHASED = 4000037
    INVALID_LIFETIME_DOLLARS_REFUNDED = 4000038
    INVALID_PLATFORM = 4000039
    INVALID_PLAY_TIME = 4000040
    INVALID_SAMPLE_CONTENT_PROVIDED = 4000041
    INVALID_USER_STATUS = 4000042
    INVALID_TRANSACTION_NOT_CONSUMABLE = 4000043
    INVALID_TRANSACTION_TYPE_NOT_SUPPORTED = 4000047
    APP_TRANSACTION_ID_NOT_SUPPORTED_ERROR = 4000048
    INVALID_IMAGE = 4000161
    HEADER_TOO_LONG = 4000162
    BODY_TOO_LONG = 4000163
    INVALID_LOCALE = 4000164
    ALT_TEXT_TOO_LONG = 4000175
    INVALID_APP_ACCOUNT_TOKEN_UUID_ERROR = 4000183
    FAMILY_TRANSACTION_NOT_SUPPORTED_ERROR = 4000185
    TRANSACTION_ID_IS_NOT_ORIGINAL_TRANSACTION_ID_ERROR = 4000187
    INVALID_PERFORMANCE_TEST_REQUEST = 4000211
    INVALID_REQUEST_ID = 4000212
    EXISTING_PERFORMANCE_TEST_RUN = 4000213
    BAD_REQUEST_REALTIME_URL = 4000215
    BAD_REQUEST_IMAGE_SIZE = 4000216
    BAD_REQUEST_TOO_MANY_BULLET_POINTS = 4000218
    BAD_REQUEST_BULLET_POINT_TEXT_TOO_LONG = 4000219
    BAD_REQUEST_ABOVE_IMAGE_REQUIRES_AN_IMAGE = 4000224
    SUBSCRIPTION_EXTENSION_INELIGIBLE = 4030004
    SUBSCRIPTION_MAX_EXTENSION = 4030005
    FAMILY_SHARED_SUBSCRIPTION_EXTENSION_INELIGIBLE = 4030007
    MAXIMUM_NUMBER_OF_IMAGES_REACHED = 4030014
    MAXIMUM_NUMBER_OF_MESSAGES_REACHED = 4030016
    MESSAGE_NOT_APPROVED = 4030017
    IMAGE_NOT_APPROVED = 4030018
    IMAGE_IN_USE = 4030019
    FORBIDDEN_NO_PASSING_TEST = 4030026
    ACCOUNT_NOT_FOUND = 4040001
    ACCOUNT_NOT_FOUND_RETRYABLE = 4040002
    APP_NOT_FOUND = 4040003
    APP_NOT_FOUND_RETRYABLE = 4040004
    ORIGINAL_TRANSACTION_ID_NOT_FOUND = 4040005
    ORIGINAL_TRANSACTION_ID_NOT_FOUND_RETRYABLE = 4040006
    SERVER_NOTIFICATION_URL_NOT_FOUND = 4040007
    TEST_NOTIFICATION_NOT_FOUND = 4040008
    STATUS_REQUEST_NOT_FOUND = 4040009
    TRANSACTION_ID_NOT_FOUND = 4040010
    IMAGE_NOT_FOUND = 4040014
    MESSAGE_NOT_FOUND = 4040015
    PERFORMANCE_TEST_RUN_NOT_FOUND = 4040018
    APP_TRANSACTION_DOES_NOT_EXIST_ERROR = 4040019
    DEFAULT_MESSAGE_NOT_FOUND = 4040020
    REALTIME_URL_NOT_FOUND = 4040021
    IMAGE_ALREADY_EXISTS = 4090000
    MESSAGE_ALREADY_EXISTS = 4090001
    RATE_LIMIT_EXCEEDED = 4290000
    GENERAL_INTERNAL = 5000000
    GENERAL_INTERNAL_RETRYABLE = 5000001


# ---- response models: Apple's attribute names and types (gatekit._model) --------------------

@dataclass(eq=True)
class ResponseModel(Model):
    """What every response model has (a client method returns one of its subclasses)."""
    #: With a verifier: the answer with each signed member replaced by its verified payload.
    decoded: Optional[Dict[str, Any]] = field(default=None, repr=False, compare=False)


@dataclass(eq=True)
class TransactionInfoResponse(ResponseModel):
    signedTransactionInfo: Optional[str] = None


@dataclass(eq=True)
class AppTransactionInfoResponse(ResponseModel):
    signedAppTransactionInfo: Optional[str] = None


@dataclass(eq=True)
class HistoryResponse(ResponseModel):
    revision: Optional[str] = None
    hasMore: Optional[bool] = None
    bundleId: Optional[str] = None
    appAppleId: Optional[int] = None
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    signedTransactions: Optional[List[str]] = None
    _enums = {"environment": Environment}


@dataclass(eq=True)
class LastTransactionsItem(Model):
    status: Optional[Status] = None
    rawStatus: Optional[int] = None
    originalTransactionId: Optional[str] = None
    signedTransactionInfo: Optional[str] = None
    signedRenewalInfo: Optional[str] = None
    _enums = {"status": Status}


@dataclass(eq=True)
class SubscriptionGroupIdentifierItem(Model):
    subscriptionGroupIdentifier: Optional[str] = None
    lastTransactions: Optional[List[LastTransactionsItem]] = None


@dataclass(eq=True)
class StatusResponse(ResponseModel):
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    bundleId: Optional[str] = None
    appAppleId: Optional[int] = None
    data: Optional[List[SubscriptionGroupIdentifierItem]] = None
    _enums = {"environment": Environment}


@dataclass(eq=True)
class RefundHistoryResponse(ResponseModel):
    signedTransactions: Optional[List[str]] = None
    revision: Optional[str] = None
    hasMore: Optional[bool] = None


@dataclass(eq=True)
class OrderLookupResponse(ResponseModel):
    status: Optional[OrderLookupStatus] = None
    rawStatus: Optional[int] = None
    signedTransactions: Optional[List[str]] = None
    _enums = {"status": OrderLookupStatus}


@dataclass(eq=True)
class SendAttemptItem(Model):
    attemptDate: Optional[int] = None
    sendAttemptResult: Optional[SendAttemptResult] = None
    rawSendAttemptResult: Optional[str] = None
    _enums = {"sendAttemptResult": SendAttemptResult}


@dataclass(eq=True)
class NotificationHistoryResponseItem(Model):
    signedPayload: Optional[str] = None
    sendAttempts: Optional[List[SendAttemptItem]] = None


@dataclass(eq=True)
class NotificationHistoryResponse(ResponseModel):
    paginationToken: Optional[str] = None
    hasMore: Optional[bool] = None
    notificationHistory: Optional[List[NotificationHistoryResponseItem]] = None


@dataclass(eq=True)
class SendTestNotificationResponse(ResponseModel):
    testNotificationToken: Optional[str] = None


@dataclass(eq=True)
class CheckTestNotificationResponse(ResponseModel):
    signedPayload: Optional[str] = None
    sendAttempts: Optional[List[SendAttemptItem]] = None


@dataclass(eq=True)
class ExtendRenewalDateResponse(ResponseModel):
    originalTransactionId: Optional[str] = None
    webOrderLineItemId: Optional[str] = None
    success: Optional[bool] = None
    effectiveDate: Optional[int] = None


@dataclass(eq=True)
class MassExtendRenewalDateResponse(ResponseModel):
    requestIdentifier: Optional[str] = None


@dataclass(eq=True)
class MassExtendRenewalDateStatusResponse(ResponseModel):
    requestIdentifier: Optional[str] = None
    complete: Optional[bool] = None
    completeDate: Optional[int] = None
    succeededCount: Optional[int] = None
    failedCount: Optional[int] = None


@dataclass(eq=True)
class GetImageListResponseItem(Model):
    imageIdentifier: Optional[uuid.UUID] = None
    imageState: Optional[ImageState] = None
    rawImageState: Optional[str] = None
    imageSize: Optional[ImageSize] = None
    rawImageSize: Optional[str] = None
    _enums = {"imageState": ImageState, "imageSize": ImageSize}


@dataclass(eq=True)
class GetImageListResponse(ResponseModel):
    imageIdentifiers: Optional[List[GetImageListResponseItem]] = None


@dataclass(eq=True)
class GetMessageListResponseItem(Model):
    messageIdentifier: Optional[uuid.UUID] = None
    messageState: Optional[MessageState] = None
    rawMessageState: Optional[str] = None
    _enums = {"messageState": MessageState}


@dataclass(eq=True)
class GetMessageListResponse(ResponseModel):
    messageIdentifiers: Optional[List[GetMessageListResponseItem]] = None


@dataclass(eq=True)
class DefaultConfigurationResponse(ResponseModel):
    messageIdentifier: Optional[uuid.UUID] = None
    _required = ("messageIdentifier",)


@dataclass(eq=True)
class RealtimeUrlResponse(ResponseModel):
    realtimeURL: Optional[str] = None


@dataclass(eq=True)
class PerformanceTestConfig(Model):
    maxConcurrentRequests: Optional[int] = None
    totalRequests: Optional[int] = None
    totalDuration: Optional[int] = None
    responseTimeThreshold: Optional[int] = None
    successRateThreshold: Optional[int] = None


@dataclass(eq=True)
class PerformanceTestResponseTimes(Model):
    average: Optional[int] = None
    p50: Optional[int] = None
    p90: Optional[int] = None
    p95: Optional[int] = None
    p99: Optional[int] = None


@dataclass(eq=True)
class PerformanceTestResponse(ResponseModel):
    config: Optional[PerformanceTestConfig] = None
    requestId: Optional[str] = None


@dataclass(eq=True)
class PerformanceTestResultResponse(ResponseModel):
    config: Optional[PerformanceTestConfig] = None
    target: Optional[str] = None
    result: Optional[PerformanceTestStatus] = None
    rawResult: Optional[str] = None
    successRate: Optional[int] = None
    numPending: Optional[int] = None
    responseTimes: Optional[PerformanceTestResponseTimes] = None
    failures: Optional[Dict[SendAttemptResult, int]] = None  #: failures by result (results newer than this package: rawFailures)
    rawFailures: Optional[Dict[str, int]] = None
    _enums = {"result": PerformanceTestStatus}
    _enum_keys = {"failures": SendAttemptResult}


# ---- request models (Apple's names; Apple's own objects and dicts work too) ------------------

@dataclass(eq=True)
class TransactionHistoryRequest(Model):
    startDate: Optional[int] = None
    endDate: Optional[int] = None
    productIds: Optional[List[str]] = None
    productTypes: Optional[List[ProductType]] = None
    sort: Optional[Order] = None
    subscriptionGroupIdentifiers: Optional[List[str]] = None
    inAppOwnershipType: Optional[InAppOwnershipType] = None
    revoked: Optional[bool] = None


@dataclass(eq=True)
class NotificationHistoryRequest(Model):
    startDate: Optional[int] = None
    endDate: Optional[int] = None
    notificationType: Optional[NotificationTypeV2] = None
    notificationSubtype: Optional[Subtype] = None
    transactionId: Optional[str] = None
    onlyFailures: Optional[bool] = None


@dataclass(eq=True)
class ExtendRenewalDateRequest(Model):
    extendByDays: Optional[int] = None
    extendReasonCode: Optional[ExtendReasonCode] = None
    requestIdentifier: Optional[str] = None


@dataclass(eq=True)
class MassExtendRenewalDateRequest(Model):
    extendByDays: Optional[int] = None
    extendReasonCode: Optional[ExtendReasonCode] = None
    requestIdentifier: Optional[str] = None
    storefrontCountryCodes: Optional[List[str]] = None
    productId: Optional[str] = None


@dataclass(eq=True)
class ConsumptionRequest(Model):
    customerConsented: Optional[bool] = None
    sampleContentProvided: Optional[bool] = None
    deliveryStatus: Optional[DeliveryStatus] = None
    consumptionPercentage: Optional[int] = None
    rawDeliveryStatus: Optional[str] = None
    refundPreference: Optional[RefundPreference] = None
    rawRefundPreference: Optional[str] = None
    _enums = {"deliveryStatus": DeliveryStatus, "refundPreference": RefundPreference}
    _required = ("customerConsented", "sampleContentProvided")
    _required_raw = ("rawDeliveryStatus",)


@dataclass(eq=True)
class ConsumptionRequestV1(Model):
    """Apple's deprecated consumption request (send_consumption_data)."""
    customerConsented: Optional[bool] = None
    consumptionStatus: Optional[ConsumptionStatus] = None
    rawConsumptionStatus: Optional[int] = None
    platform: Optional[Platform] = None
    rawPlatform: Optional[int] = None
    sampleContentProvided: Optional[bool] = None
    deliveryStatus: Optional[DeliveryStatusV1] = None
    rawDeliveryStatus: Optional[int] = None
    appAccountToken: Optional[str] = None
    accountTenure: Optional[AccountTenure] = None
    rawAccountTenure: Optional[int] = None
    playTime: Optional[PlayTime] = None
    rawPlayTime: Optional[int] = None
    lifetimeDollarsRefunded: Optional[LifetimeDollarsRefunded] = None
    rawLifetimeDollarsRefunded: Optional[int] = None
    lifetimeDollarsPurchased: Optional[LifetimeDollarsPurchased] = None
    rawLifetimeDollarsPurchased: Optional[int] = None
    userStatus: Optional[UserStatus] = None
    rawUserStatus: Optional[int] = None
    refundPreference: Optional[RefundPreferenceV1] = None
    rawRefundPreference: Optional[int] = None
    _enums = {"consumptionStatus": ConsumptionStatus, "platform": Platform, "deliveryStatus": DeliveryStatusV1,
              "accountTenure": AccountTenure, "playTime": PlayTime, "lifetimeDollarsRefunded": LifetimeDollarsRefunded,
              "lifetimeDollarsPurchased": LifetimeDollarsPurchased, "userStatus": UserStatus,
              "refundPreference": RefundPreferenceV1}


@dataclass(eq=True)
class UpdateAppAccountTokenRequest(Model):
    appAccountToken: Optional[str] = None
    _required = ("appAccountToken",)


@dataclass(eq=True)
class UploadMessageImage(Model):
    imageIdentifier: Optional[uuid.UUID] = None
    altText: Optional[str] = None
    _required = ("imageIdentifier", "altText")
    _checks = {"altText": max_length(150, "altText")}


@dataclass(eq=True)
class BulletPoint(Model):
    text: Optional[str] = None
    imageIdentifier: Optional[uuid.UUID] = None
    altText: Optional[str] = None
    _required = ("text", "imageIdentifier", "altText")
    _checks = {"text": max_length(66, "text"), "altText": max_length(150, "altText")}


@dataclass(eq=True)
class UploadMessageRequestBody(Model):
    header: Optional[str] = None
    body: Optional[str] = None
    image: Optional[UploadMessageImage] = None
    headerPosition: Optional[HeaderPosition] = None
    rawHeaderPosition: Optional[str] = None
    bulletPoints: Optional[List[BulletPoint]] = None
    _enums = {"headerPosition": HeaderPosition}
    _required = ("header", "body")
    _checks = {"header": max_length(66, "header"), "body": max_length(144, "body"), "bulletPoints": max_length(5, "bulletPoints")}


@dataclass(eq=True)
class DefaultConfigurationRequest(Model):
    messageIdentifier: Optional[uuid.UUID] = None


@dataclass(eq=True)
class RealtimeUrlRequest(Model):
    realtimeURL: Optional[str] = None
    _required = ("realtimeURL",)


@dataclass(eq=True)
class PerformanceTestRequest(Model):
    originalTransactionId: Optional[str] = None
    _required = ("originalTransactionId",)

