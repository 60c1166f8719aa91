"""The App Store Server API client, under Apple's names: ``AppStoreServerAPIClient`` with
Apple's constructor and every method of Apple's client, ``APIException`` / ``APIError``,
``GetTransactionHistoryVersion`` and typed response models with Apple's attribute names.
Requests are made by libgatekit (libcurl, HTTPS only, certificates always verified); with a
``verifier``, every signed member of every answer is verified before the method returns.

Migrating from ``appstoreserverlibrary.api_client`` is a change of imports; request arguments
may be this module's request classes, Apple's own model objects, or plain dicts.
"""
from __future__ import annotations

import ctypes
import datetime
import enum
import json
import uuid
import dataclasses
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Dict, List, Optional, Sequence, Type, TypeVar, Union

from . import _native, _time
from ._managed import Managed
from .apple_enums import Environment, Status, member, raw_name
from .appstore import SigningKey, _plain
from .errors import GateKitError, check, register
from .jws import SignedDataVerifier

__all__ = ["APIError", "APIException", "APITransportError", "APIResponseError", "AppStoreServerAPIClient",
           "AppTransactionInfoResponse", "CheckTestNotificationResponse", "ConsumptionRequest", "ConsumptionRequestV1",
           "DefaultConfigurationRequest", "DefaultConfigurationResponse",
           "Environment", "ExtendRenewalDateRequest", "ExtendRenewalDateResponse", "GetImageListResponse",
           "GetMessageListResponse", "GetTransactionHistoryVersion", "HistoryResponse", "ImageSize",
           "LastTransactionsItem", "MassExtendRenewalDateRequest", "MassExtendRenewalDateResponse",
           "MassExtendRenewalDateStatusResponse", "NotificationHistoryRequest", "NotificationHistoryResponse",
           "NotificationHistoryResponseItem", "Order", "OrderLookupResponse", "OrderLookupStatus", "PerformanceTestResponse",
           "PerformanceTestRequest", "PerformanceTestResultResponse", "ProductType", "RealtimeUrlRequest", "RealtimeUrlResponse", "RefundHistoryResponse",
           "SendAttemptItem", "SendAttemptResult", "SendTestNotificationResponse", "Status", "StatusResponse",
           "SubscriptionGroupIdentifierItem", "TransactionHistoryRequest", "TransactionInfoResponse",
           "UpdateAppAccountTokenRequest", "UploadMessageRequestBody"]

EAPPSTORE_API = -402
EAPPSTORE_TRANSPORT = -403
EAPPSTORE_RESPONSE = -404
CLIENT_OPTIONS_VERSION = 1


class GetTransactionHistoryVersion(str, enum.Enum):
    V1 = "v1"  #: deprecated by Apple
    V2 = "v2"


class ImageSize(str, enum.Enum):
    FULL_SIZE = "FULL_SIZE"
    BULLET_POINT = "BULLET_POINT"


class Order(str, enum.Enum):
    ASCENDING = "ASCENDING"
    DESCENDING = "DESCENDING"


class OrderLookupStatus(enum.IntEnum):
    VALID = 0
    INVALID = 1


class SendAttemptResult(str, enum.Enum):
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


class ProductType(str, enum.Enum):
    AUTO_RENEWABLE = "AUTO_RENEWABLE"
    NON_RENEWABLE = "NON_RENEWABLE"
    CONSUMABLE = "CONSUMABLE"
    NON_CONSUMABLE = "NON_CONSUMABLE"


class APIError(enum.IntEnum):
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


class APIException(GateKitError):
    """Apple answered with an error (Apple's ``APIException``, with the same attributes), plus
    ``retryable`` and ``retry_after`` (a timedelta, from Retry-After)."""

    def __init__(self, http_status_code: int, raw_api_error: Optional[int] = None, error_message: Optional[str] = None,
                 retryable: bool = False, retry_after: Optional[datetime.timedelta] = None, detail: str = "") -> None:
        super().__init__(EAPPSTORE_API, detail or f"HTTP {http_status_code}")
        self.http_status_code = http_status_code
        self.raw_api_error = raw_api_error
        self.error_message = error_message
        self.retryable = retryable
        self.retry_after = retry_after
        self.api_error: Optional[APIError] = None
        if raw_api_error is not None:
            try:
                self.api_error = APIError(raw_api_error)
            except ValueError:
                pass


class APITransportError(GateKitError, ConnectionError):
    """No answer: DNS, connection, TLS (an untrusted or misnamed server), timeout."""


class APIResponseError(GateKitError, ValueError):
    """A success answer that is not what Apple documents (not JSON, over 16 MiB)."""


register(EAPPSTORE_TRANSPORT, APITransportError)
register(EAPPSTORE_RESPONSE, APIResponseError)


# ---- response models: Apple's attribute names; enumerations also as raw values ---------------

M = TypeVar("M", bound="_Model")


@dataclass(frozen=True)
class _Model:
    #: Members read as enumerations: name -> enum class (the raw value is in raw<Name>).
    _enums: ClassVar[Dict[str, Any]] = {}
    #: Members holding models or lists of models: name -> model class.
    _nested: ClassVar[Dict[str, Any]] = {}

    @classmethod
    def from_json(cls: Type[M], raw: Dict[str, Any]) -> M:
        names = {f.name for f in fields(cls)}
        values: Dict[str, Any] = {}
        for name, value in raw.items():
            if name in cls._enums:
                values[raw_name(name)] = value
                value = member(cls._enums[name], value)
            elif name in cls._nested and value is not None:
                model = cls._nested[name]
                value = [model.from_json(v) for v in value] if isinstance(value, list) else model.from_json(value)
            if name in names:
                values[name] = value
        return cls(**values)


@dataclass(frozen=True)
class _Response(_Model):
    #: With a verifier: the answer with each signed member replaced by its verified payload.
    decoded: Optional[Dict[str, Any]] = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class TransactionInfoResponse(_Response):
    signedTransactionInfo: Optional[str] = None


@dataclass(frozen=True)
class AppTransactionInfoResponse(_Response):
    signedAppTransactionInfo: Optional[str] = None


@dataclass(frozen=True)
class HistoryResponse(_Response):
    revision: Optional[str] = None
    hasMore: Optional[bool] = None
    bundleId: Optional[str] = None
    appAppleId: Optional[int] = None
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    signedTransactions: Optional[List[str]] = None
    _enums = {"environment": Environment}


@dataclass(frozen=True)
class LastTransactionsItem(_Model):
    status: Optional[Status] = None
    rawStatus: Optional[int] = None
    originalTransactionId: Optional[str] = None
    signedTransactionInfo: Optional[str] = None
    signedRenewalInfo: Optional[str] = None
    _enums = {"status": Status}


@dataclass(frozen=True)
class SubscriptionGroupIdentifierItem(_Model):
    subscriptionGroupIdentifier: Optional[str] = None
    lastTransactions: Optional[List[LastTransactionsItem]] = None
    _nested = {"lastTransactions": LastTransactionsItem}


@dataclass(frozen=True)
class StatusResponse(_Response):
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    bundleId: Optional[str] = None
    appAppleId: Optional[int] = None
    data: Optional[List[SubscriptionGroupIdentifierItem]] = None
    _enums = {"environment": Environment}
    _nested = {"data": SubscriptionGroupIdentifierItem}


@dataclass(frozen=True)
class RefundHistoryResponse(_Response):
    signedTransactions: Optional[List[str]] = None
    revision: Optional[str] = None
    hasMore: Optional[bool] = None


@dataclass(frozen=True)
class OrderLookupResponse(_Response):
    status: Optional[OrderLookupStatus] = None
    rawStatus: Optional[int] = None
    signedTransactions: Optional[List[str]] = None
    _enums = {"status": OrderLookupStatus}


@dataclass(frozen=True)
class SendAttemptItem(_Model):
    attemptDate: Optional[int] = None
    sendAttemptResult: Optional[SendAttemptResult] = None
    rawSendAttemptResult: Optional[str] = None
    _enums = {"sendAttemptResult": SendAttemptResult}


@dataclass(frozen=True)
class NotificationHistoryResponseItem(_Model):
    signedPayload: Optional[str] = None
    sendAttempts: Optional[List[SendAttemptItem]] = None
    _nested = {"sendAttempts": SendAttemptItem}


@dataclass(frozen=True)
class NotificationHistoryResponse(_Response):
    paginationToken: Optional[str] = None
    hasMore: Optional[bool] = None
    notificationHistory: Optional[List[NotificationHistoryResponseItem]] = None
    _nested = {"notificationHistory": NotificationHistoryResponseItem}


@dataclass(frozen=True)
class SendTestNotificationResponse(_Response):
    testNotificationToken: Optional[str] = None


@dataclass(frozen=True)
class CheckTestNotificationResponse(_Response):
    signedPayload: Optional[str] = None
    sendAttempts: Optional[List[SendAttemptItem]] = None
    _nested = {"sendAttempts": SendAttemptItem}


@dataclass(frozen=True)
class ExtendRenewalDateResponse(_Response):
    originalTransactionId: Optional[str] = None
    webOrderLineItemId: Optional[str] = None
    success: Optional[bool] = None
    effectiveDate: Optional[int] = None


@dataclass(frozen=True)
class MassExtendRenewalDateResponse(_Response):
    requestIdentifier: Optional[str] = None


@dataclass(frozen=True)
class MassExtendRenewalDateStatusResponse(_Response):
    requestIdentifier: Optional[str] = None
    complete: Optional[bool] = None
    completeDate: Optional[int] = None
    succeededCount: Optional[int] = None
    failedCount: Optional[int] = None


@dataclass(frozen=True)
class GetImageListResponse(_Response):
    imageIdentifiers: Optional[List[Dict[str, Any]]] = None


@dataclass(frozen=True)
class GetMessageListResponse(_Response):
    messageIdentifiers: Optional[List[Dict[str, Any]]] = None


@dataclass(frozen=True)
class DefaultConfigurationResponse(_Response):
    messageIdentifier: Optional[str] = None


@dataclass(frozen=True)
class RealtimeUrlResponse(_Response):
    realtimeURL: Optional[str] = None


@dataclass(frozen=True)
class PerformanceTestResponse(_Response):
    config: Optional[Dict[str, Any]] = None
    requestId: Optional[str] = None


@dataclass(frozen=True)
class PerformanceTestResultResponse(_Response):
    config: Optional[Dict[str, Any]] = None
    target: Optional[str] = None
    result: Optional[str] = None  #: Apple's PerformanceTestStatus ("PASS", "FAIL", "PENDING")
    rawResult: Optional[str] = None
    successRate: Optional[int] = None
    numPending: Optional[int] = None
    responseTimes: Optional[Dict[str, Any]] = None
    failures: Optional[Dict[str, int]] = None  #: SendAttemptResult value -> count
    rawFailures: Optional[Dict[str, int]] = None

    @classmethod
    def from_json(cls, raw: Dict[str, Any]) -> "PerformanceTestResultResponse":
        model = super().from_json(raw)
        return dataclasses.replace(model, rawResult=raw.get("result"), rawFailures=raw.get("failures"))


# ---- request models (Apple's names; Apple's own objects and dicts work too) ------------------

@dataclass
class TransactionHistoryRequest:
    startDate: Optional[int] = None
    endDate: Optional[int] = None
    productIds: Optional[List[str]] = None
    productTypes: Optional[List[ProductType]] = None
    sort: Optional[Order] = None
    subscriptionGroupIdentifiers: Optional[List[str]] = None
    inAppOwnershipType: Optional[str] = None
    revoked: Optional[bool] = None


@dataclass
class NotificationHistoryRequest:
    startDate: Optional[int] = None
    endDate: Optional[int] = None
    notificationType: Optional[str] = None
    notificationSubtype: Optional[str] = None
    transactionId: Optional[str] = None
    onlyFailures: Optional[bool] = None


@dataclass
class ExtendRenewalDateRequest:
    extendByDays: Optional[int] = None
    extendReasonCode: Optional[int] = None
    requestIdentifier: Optional[str] = None


@dataclass
class MassExtendRenewalDateRequest:
    extendByDays: Optional[int] = None
    extendReasonCode: Optional[int] = None
    requestIdentifier: Optional[str] = None
    storefrontCountryCodes: Optional[List[str]] = None
    productId: Optional[str] = None


@dataclass
class ConsumptionRequest:
    customerConsented: bool
    sampleContentProvided: bool
    deliveryStatus: Optional[str] = None  #: Apple's DeliveryStatus value ("DELIVERED", ...)
    consumptionPercentage: Optional[int] = None
    rawDeliveryStatus: Optional[str] = None
    refundPreference: Optional[str] = None  #: Apple's RefundPreference value
    rawRefundPreference: Optional[str] = None


@dataclass
class ConsumptionRequestV1:
    """Apple's deprecated consumption request (send_consumption_data); numbers as Apple documents."""
    customerConsented: Optional[bool] = None
    consumptionStatus: Optional[int] = None
    platform: Optional[int] = None
    sampleContentProvided: Optional[bool] = None
    deliveryStatus: Optional[int] = None
    appAccountToken: Optional[str] = None
    accountTenure: Optional[int] = None
    playTime: Optional[int] = None
    lifetimeDollarsRefunded: Optional[int] = None
    lifetimeDollarsPurchased: Optional[int] = None
    userStatus: Optional[int] = None
    refundPreference: Optional[int] = None


@dataclass
class UpdateAppAccountTokenRequest:
    appAccountToken: str


@dataclass
class UploadMessageRequestBody:
    header: str
    body: str
    image: Optional[Dict[str, Any]] = None  #: Apple's UploadMessageImage: imageIdentifier, altText
    headerPosition: Optional[str] = None
    bulletPoints: Optional[List[Dict[str, Any]]] = None


@dataclass
class DefaultConfigurationRequest:
    messageIdentifier: Optional[Union[uuid.UUID, str]] = None


@dataclass
class RealtimeUrlRequest:
    realtimeURL: str


@dataclass
class PerformanceTestRequest:
    originalTransactionId: str


# ---- the C functions ----------------------------------------------------------------------

class _ClientOptions(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("environment", ctypes.c_char_p), ("base_url", ctypes.c_char_p),
                ("ca_file", ctypes.c_char_p), ("timeout_ms", ctypes.c_int), ("connect_timeout_ms", ctypes.c_int),
                ("max_retries", ctypes.c_int), ("max_retry_wait_ms", ctypes.c_int), ("verify", ctypes.c_void_p)]


class _ClientStruct(ctypes.Structure):
    """Opaque gatekit_appstore_client."""


_C = ctypes.POINTER(_ClientStruct)
_out = _native.c_char_p_p
_s_ = ctypes.c_char_p
_options_init = _native.declare("appstore_client_options_init", ctypes.c_int, ctypes.POINTER(_ClientOptions), ctypes.c_uint)
_new = _native.declare("appstore_client_new", ctypes.c_int, ctypes.POINTER(_C), ctypes.c_void_p, ctypes.POINTER(_ClientOptions))
_free = _native.declare("appstore_client_free", None, _C)


def _endpoint(name: str, *argtypes: Any) -> Any:
    return _native.declare(name, ctypes.c_int, _C, *argtypes)


_get_transaction_info = _endpoint("appstore_get_transaction_info", _s_, _out, _out)
_get_transaction_history = _endpoint("appstore_get_transaction_history", _s_, _s_, _s_, ctypes.c_int, _out, _out)
_get_all_subscription_statuses = _endpoint("appstore_get_all_subscription_statuses", _s_, ctypes.POINTER(ctypes.c_int),
                                           ctypes.c_size_t, _out, _out)
_get_refund_history = _endpoint("appstore_get_refund_history", _s_, _s_, _out, _out)
_look_up_order_id = _endpoint("appstore_look_up_order_id", _s_, _out, _out)
_get_app_transaction_info = _endpoint("appstore_get_app_transaction_info", _s_, _out, _out)
_finish_transaction = _endpoint("appstore_finish_transaction", _s_, _out)
_send_consumption_information = _endpoint("appstore_send_consumption_information", _s_, _s_, _out)
_send_consumption_data = _endpoint("appstore_send_consumption_data", _s_, _s_, _out)
_set_app_account_token = _endpoint("appstore_set_app_account_token", _s_, _s_, _out)
_extend_subscription_renewal_date = _endpoint("appstore_extend_subscription_renewal_date", _s_, _s_, _out)
_extend_for_all = _endpoint("appstore_extend_renewal_date_for_all_active_subscribers", _s_, _out)
_extension_status = _endpoint("appstore_get_status_of_subscription_renewal_date_extensions", _s_, _s_, _out)
_get_notification_history = _endpoint("appstore_get_notification_history", _s_, _s_, _out, _out)
_request_test_notification = _endpoint("appstore_request_test_notification", _out)
_get_test_notification_status = _endpoint("appstore_get_test_notification_status", _s_, _out, _out)
_upload_image = _endpoint("appstore_upload_image", _s_, ctypes.c_void_p, ctypes.c_size_t, _s_, _out)
_delete_image = _endpoint("appstore_delete_image", _s_, _out)
_get_image_list = _endpoint("appstore_get_image_list", _out)
_upload_message = _endpoint("appstore_upload_message", _s_, _s_, _out)
_delete_message = _endpoint("appstore_delete_message", _s_, _out)
_get_message_list = _endpoint("appstore_get_message_list", _out)
_configure_default_message = _endpoint("appstore_configure_default_message", _s_, _s_, _s_, _out)
_delete_default_message = _endpoint("appstore_delete_default_message", _s_, _s_, _out)
_get_default_message = _endpoint("appstore_get_default_message", _s_, _s_, _out)
_configure_realtime_url = _endpoint("appstore_configure_realtime_url", _s_, _out)
_delete_realtime_url = _endpoint("appstore_delete_realtime_url", _out)
_get_realtime_url = _endpoint("appstore_get_realtime_url", _out)
_initiate_performance_test = _endpoint("appstore_initiate_performance_test", _s_, _out)
_get_performance_test_results = _endpoint("appstore_get_performance_test_results", _s_, _out)

R = TypeVar("R", bound=_Response)


def _s(value: Union[str, uuid.UUID, None], name: str) -> Optional[bytes]:
    return _native.to_c_string(None if value is None else str(value), name)


def _body(request: Any, name: str) -> bytes:
    if request is None:
        raise ValueError(f"{name} cannot be None")
    return json.dumps(_plain(request)).encode("utf-8")


def _retry_after(seconds: Optional[int]) -> Optional[datetime.timedelta]:
    """Retry-After as a timedelta; one beyond what a timedelta holds (a server may say
    anything) is the largest, never an OverflowError in place of the APIException."""
    if seconds is None:
        return None
    if int(seconds) >= datetime.timedelta.max.days * 86400:
        return datetime.timedelta.max
    return datetime.timedelta(seconds=int(seconds))


class AppStoreServerAPIClient(Managed):
    """Apple's ``AppStoreServerAPIClient``, made by libgatekit.

    ``signing_key`` (the .p8 bytes), ``key_id``, ``issuer_id``, ``bundle_id`` and
    ``environment`` are Apple's. GateKit's own keyword arguments: ``verifier`` (a
    SignedDataVerifier: every signed member of every answer is verified before a method
    returns, and ``response.decoded`` holds the verified payloads), ``base_url`` and ``ca_file``
    (a stand-in or proxy and the CA file to trust for it, read once here), ``timeout`` (the
    whole call, retries included) / ``connect_timeout``
    and ``max_retries`` / ``max_retry_wait`` (429 and Apple's retryable errors are retried
    after Retry-After). Thread-safe: share one client.
    """

    def __init__(self, signing_key: bytes, key_id: str, issuer_id: str, bundle_id: str,
                 environment: Union[Environment, str], *, verifier: Optional[SignedDataVerifier] = None,
                 base_url: Optional[str] = None, ca_file: Optional[str] = None,
                 timeout: datetime.timedelta = datetime.timedelta(seconds=30),
                 connect_timeout: datetime.timedelta = datetime.timedelta(seconds=10),
                 max_retries: int = 2, max_retry_wait: datetime.timedelta = datetime.timedelta(seconds=30)) -> None:
        env = Environment(environment)
        if env == Environment.XCODE:
            raise ValueError("Xcode is not a supported environment for an AppStoreServerAPIClient")
        self._key = SigningKey(signing_key, key_id, bundle_id, issuer_id)
        self._verifier = verifier
        verify_options = verifier._options(None) if verifier is not None else None
        options = _ClientOptions()
        check(_options_init(ctypes.byref(options), CLIENT_OPTIONS_VERSION))
        options.environment = env.value.encode("ascii")
        options.base_url = _s(base_url, "base_url")
        options.ca_file = _native.to_c_string(None if ca_file is None else str(ca_file), "ca_file")
        options.timeout_ms = _time.span_milliseconds(timeout, "timeout")
        options.connect_timeout_ms = _time.span_milliseconds(connect_timeout, "connect_timeout")
        options.max_retries = int(max_retries)
        options.max_retry_wait_ms = _time.span_milliseconds(max_retry_wait, "max_retry_wait")
        options.verify = ctypes.cast(ctypes.byref(verify_options), ctypes.c_void_p) if verify_options is not None else None
        handle = _C()
        check(_new(ctypes.byref(handle), self._key.handle, ctypes.byref(options)))
        self._handle = handle
        self.environment = env

    def _release(self, handle: Any) -> None:
        _free(handle)

    def _call(self, function: Any, *args: Any, decoded: bool = False) -> Optional[Dict[str, Any]]:
        """Calls one endpoint: Apple's body as a dict (None when empty); with ``decoded`` and a
        verifier, the verified document under the key "__decoded__"."""
        out = ctypes.c_void_p()
        dec = ctypes.c_void_p()
        extra = (ctypes.byref(out), ctypes.byref(dec)) if decoded else (ctypes.byref(out),)
        rc = function(self.handle, *args, *extra)
        body = _native.take_string(out) if out.value else None
        decoded_text = _native.take_string(dec) if dec.value else None
        if rc == EAPPSTORE_API:
            detail = _native.gatekit_last_error().decode("utf-8", "replace")
            info = json.loads(body or "{}")
            raise APIException(int(info.get("httpStatus") or 0), info.get("errorCode"), info.get("errorMessage"),
                               bool(info.get("retryable")), _retry_after(info.get("retryAfter")), detail)
        check(rc)
        if body is None:
            return None
        parsed: Dict[str, Any] = json.loads(body)
        if decoded_text is not None:
            parsed["__decoded__"] = json.loads(decoded_text)
        return parsed

    def _model(self, cls: Type[R], function: Any, *args: Any, decoded: bool = False) -> R:
        body = self._call(function, *args, decoded=decoded)
        if body is None:
            raise APIResponseError(EAPPSTORE_RESPONSE, f"{cls.__name__}: the answer has no body")
        verified = body.pop("__decoded__", None)
        model = cls.from_json(body)
        return dataclasses.replace(model, decoded=verified) if verified is not None else model

    # ---- transactions and subscriptions ----

    def get_transaction_info(self, transaction_id: str) -> TransactionInfoResponse:
        return self._model(TransactionInfoResponse, _get_transaction_info, _s(transaction_id, "transaction_id"), decoded=True)

    def get_transaction_history(self, any_transaction_id: str, revision: Optional[str],
                                transaction_history_request: Any,
                                version: GetTransactionHistoryVersion = GetTransactionHistoryVersion.V1) -> HistoryResponse:
        request = None if transaction_history_request is None else _body(transaction_history_request, "transaction_history_request")
        number = 2 if GetTransactionHistoryVersion(version) == GetTransactionHistoryVersion.V2 else 1
        return self._model(HistoryResponse, _get_transaction_history, _s(any_transaction_id, "any_transaction_id"),
                           _s(revision, "revision"), request, number, decoded=True)

    def get_all_subscription_statuses(self, any_transaction_id: str, status: Optional[Sequence[Status]] = None) -> StatusResponse:
        statuses = [int(s) for s in status or []]
        array = (ctypes.c_int * max(1, len(statuses)))(*statuses)
        return self._model(StatusResponse, _get_all_subscription_statuses, _s(any_transaction_id, "any_transaction_id"),
                           array, len(statuses), decoded=True)

    def get_refund_history(self, any_transaction_id: str, revision: Optional[str]) -> RefundHistoryResponse:
        return self._model(RefundHistoryResponse, _get_refund_history, _s(any_transaction_id, "any_transaction_id"),
                           _s(revision, "revision"), decoded=True)

    def look_up_order_id(self, order_id: str) -> OrderLookupResponse:
        return self._model(OrderLookupResponse, _look_up_order_id, _s(order_id, "order_id"), decoded=True)

    def get_app_transaction_info(self, any_transaction_id: str) -> AppTransactionInfoResponse:
        return self._model(AppTransactionInfoResponse, _get_app_transaction_info, _s(any_transaction_id, "any_transaction_id"),
                           decoded=True)

    def finish_transaction(self, transaction_id: str) -> None:
        self._call(_finish_transaction, _s(transaction_id, "transaction_id"))

    def send_consumption_information(self, transaction_id: str, consumption_request: Any) -> None:
        self._call(_send_consumption_information, _s(transaction_id, "transaction_id"), _body(consumption_request, "consumption_request"))

    def send_consumption_data(self, transaction_id: str, consumption_request: Any) -> None:
        """Consumption information, version 1 (deprecated by Apple)."""
        self._call(_send_consumption_data, _s(transaction_id, "transaction_id"), _body(consumption_request, "consumption_request"))

    def set_app_account_token(self, original_transaction_id: str, update_app_account_token_request: Any) -> None:
        self._call(_set_app_account_token, _s(original_transaction_id, "original_transaction_id"),
                   _body(update_app_account_token_request, "update_app_account_token_request"))

    def extend_subscription_renewal_date(self, original_transaction_id: str, extend_renewal_date_request: Any) -> ExtendRenewalDateResponse:
        return self._model(ExtendRenewalDateResponse, _extend_subscription_renewal_date,
                           _s(original_transaction_id, "original_transaction_id"),
                           _body(extend_renewal_date_request, "extend_renewal_date_request"))

    def extend_renewal_date_for_all_active_subscribers(self, mass_extend_renewal_date_request: Any) -> MassExtendRenewalDateResponse:
        return self._model(MassExtendRenewalDateResponse, _extend_for_all,
                           _body(mass_extend_renewal_date_request, "mass_extend_renewal_date_request"))

    def get_status_of_subscription_renewal_date_extensions(self, request_identifier: str, product_id: str) -> MassExtendRenewalDateStatusResponse:
        return self._model(MassExtendRenewalDateStatusResponse, _extension_status, _s(request_identifier, "request_identifier"),
                           _s(product_id, "product_id"))

    # ---- notifications ----

    def get_notification_history(self, pagination_token: Optional[str], notification_history_request: Any) -> NotificationHistoryResponse:
        return self._model(NotificationHistoryResponse, _get_notification_history, _s(pagination_token, "pagination_token"),
                           _body(notification_history_request, "notification_history_request"), decoded=True)

    def request_test_notification(self) -> SendTestNotificationResponse:
        return self._model(SendTestNotificationResponse, _request_test_notification)

    def get_test_notification_status(self, test_notification_token: str) -> CheckTestNotificationResponse:
        return self._model(CheckTestNotificationResponse, _get_test_notification_status,
                           _s(test_notification_token, "test_notification_token"), decoded=True)

    # ---- retention messaging ----

    def upload_image(self, image_identifier: Union[uuid.UUID, str], image: bytes, image_size: Optional[ImageSize] = None) -> None:
        data = bytes(image)
        self._call(_upload_image, _s(image_identifier, "image_identifier"), data, len(data),
                   _s(None if image_size is None else ImageSize(image_size).value, "image_size"))

    def delete_image(self, image_identifier: Union[uuid.UUID, str]) -> None:
        self._call(_delete_image, _s(image_identifier, "image_identifier"))

    def get_image_list(self) -> GetImageListResponse:
        return self._model(GetImageListResponse, _get_image_list)

    def upload_message(self, message_identifier: Union[uuid.UUID, str], upload_message_request_body: Any) -> None:
        self._call(_upload_message, _s(message_identifier, "message_identifier"),
                   _body(upload_message_request_body, "upload_message_request_body"))

    def delete_message(self, message_identifier: Union[uuid.UUID, str]) -> None:
        self._call(_delete_message, _s(message_identifier, "message_identifier"))

    def get_message_list(self) -> GetMessageListResponse:
        return self._model(GetMessageListResponse, _get_message_list)

    def configure_default_message(self, product_id: str, locale: str, default_configuration_request: Any) -> None:
        self._call(_configure_default_message, _s(product_id, "product_id"), _s(locale, "locale"),
                   _body(default_configuration_request, "default_configuration_request"))

    def delete_default_message(self, product_id: str, locale: str) -> None:
        self._call(_delete_default_message, _s(product_id, "product_id"), _s(locale, "locale"))

    def get_default_message(self, product_id: str, locale: str) -> DefaultConfigurationResponse:
        return self._model(DefaultConfigurationResponse, _get_default_message, _s(product_id, "product_id"), _s(locale, "locale"))

    def configure_realtime_url(self, realtime_url_request: Any) -> None:
        self._call(_configure_realtime_url, _body(realtime_url_request, "realtime_url_request"))

    def delete_realtime_url(self) -> None:
        self._call(_delete_realtime_url)

    def get_realtime_url(self) -> RealtimeUrlResponse:
        return self._model(RealtimeUrlResponse, _get_realtime_url)

    def initiate_performance_test(self, performance_test_request: Any) -> PerformanceTestResponse:
        return self._model(PerformanceTestResponse, _initiate_performance_test, _body(performance_test_request, "performance_test_request"))

    def get_performance_test_results(self, request_id: str) -> PerformanceTestResultResponse:
        return self._model(PerformanceTestResultResponse, _get_performance_test_results, _s(request_id, "request_id"))

