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
import json
import uuid
import warnings
import dataclasses
from typing import Any, Dict, Optional, Sequence, Type, TypeVar, Union

from . import _bindings, _native, _time
from . import api_models as _api_models
from ._managed import Managed
from ._model import ModelError
from .apple_enums import Environment, Status
from .api_models import (APIError, AppTransactionInfoResponse, CheckTestNotificationResponse, DefaultConfigurationResponse,
                         ExtendRenewalDateResponse, GetImageListResponse, GetMessageListResponse, GetTransactionHistoryVersion,
                         HistoryResponse, ImageSize, MassExtendRenewalDateResponse, MassExtendRenewalDateStatusResponse,
                         NotificationHistoryResponse, Order, OrderLookupResponse, PerformanceTestResponse,
                         PerformanceTestResultResponse, RealtimeUrlResponse, RefundHistoryResponse, ResponseModel,
                         SendTestNotificationResponse, StatusResponse, TransactionInfoResponse)
from ._structs import plain_json
from .appstore import SigningKey
from .errors import GateKitError, check, register
from .jws import SignedDataVerifier

__all__ = ["APIException", "APITransportError", "APIResponseError", "AppStoreServerAPIClient", "CLIENT_OPTIONS_VERSION",
           "EAPPSTORE_API", "EAPPSTORE_RESPONSE", "EAPPSTORE_TRANSPORT"]

EAPPSTORE_API = _bindings.GATEKIT_EAPPSTORE_API
EAPPSTORE_TRANSPORT = _bindings.GATEKIT_EAPPSTORE_TRANSPORT
EAPPSTORE_RESPONSE = _bindings.GATEKIT_EAPPSTORE_RESPONSE
CLIENT_OPTIONS_VERSION = _bindings.GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION


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


_C = ctypes.POINTER(_bindings.gatekit_appstore_client)
_options_init = _bindings.appstore_client_options_init
_new = _bindings.appstore_client_new
_free = _bindings.appstore_client_free


_get_transaction_info = _bindings.appstore_get_transaction_info
_get_transaction_history = _bindings.appstore_get_transaction_history
_get_all_subscription_statuses = _bindings.appstore_get_all_subscription_statuses
_get_refund_history = _bindings.appstore_get_refund_history
_look_up_order_id = _bindings.appstore_look_up_order_id
_get_app_transaction_info = _bindings.appstore_get_app_transaction_info
_finish_transaction = _bindings.appstore_finish_transaction
_send_consumption_information = _bindings.appstore_send_consumption_information
_send_consumption_data = _bindings.appstore_send_consumption_data
_set_app_account_token = _bindings.appstore_set_app_account_token
_extend_subscription_renewal_date = _bindings.appstore_extend_subscription_renewal_date
_extend_for_all = _bindings.appstore_extend_renewal_date_for_all_active_subscribers
_extension_status = _bindings.appstore_get_status_of_subscription_renewal_date_extensions
_get_notification_history = _bindings.appstore_get_notification_history
_request_test_notification = _bindings.appstore_request_test_notification
_get_test_notification_status = _bindings.appstore_get_test_notification_status
_upload_image = _bindings.appstore_upload_image
_delete_image = _bindings.appstore_delete_image
_get_image_list = _bindings.appstore_get_image_list
_upload_message = _bindings.appstore_upload_message
_delete_message = _bindings.appstore_delete_message
_get_message_list = _bindings.appstore_get_message_list
_configure_default_message = _bindings.appstore_configure_default_message
_delete_default_message = _bindings.appstore_delete_default_message
_get_default_message = _bindings.appstore_get_default_message
_configure_realtime_url = _bindings.appstore_configure_realtime_url
_delete_realtime_url = _bindings.appstore_delete_realtime_url
_get_realtime_url = _bindings.appstore_get_realtime_url
_initiate_performance_test = _bindings.appstore_initiate_performance_test
_get_performance_test_results = _bindings.appstore_get_performance_test_results

R = TypeVar("R", bound=ResponseModel)


def _s(value: Union[str, uuid.UUID, None], name: str) -> Optional[bytes]:
    return _native.to_c_string(None if value is None else str(value), name)


def _body(request: Any, name: str) -> bytes:
    if request is None:
        raise ValueError(f"{name} cannot be None")
    return json.dumps(plain_json(request)).encode("utf-8")


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
    after Retry-After), ``user_agent`` (default ``gatekit/<version>``). Thread-safe: share one
    client.
    """

    def __init__(self, signing_key: bytes, key_id: str, issuer_id: str, bundle_id: str,
                 environment: Union[Environment, str], *, verifier: Optional[SignedDataVerifier] = None,
                 base_url: Optional[str] = None, ca_file: Optional[str] = None,
                 timeout: datetime.timedelta = datetime.timedelta(seconds=30),
                 connect_timeout: datetime.timedelta = datetime.timedelta(seconds=10),
                 max_retries: int = 2, max_retry_wait: datetime.timedelta = datetime.timedelta(seconds=30),
                 user_agent: Optional[str] = None) -> None:
        env = Environment(environment)
        if env == Environment.XCODE:
            raise ValueError("Xcode is not a supported environment for an AppStoreServerAPIClient")
        self._key = SigningKey(signing_key, key_id, bundle_id, issuer_id)
        self._verifier = verifier
        verify_options = verifier.c_options(None) if verifier is not None else None
        options = _bindings.gatekit_appstore_client_options()
        check(_options_init(ctypes.byref(options), CLIENT_OPTIONS_VERSION))
        options.environment = env.value.encode("ascii")
        options.base_url = _s(base_url, "base_url")
        options.ca_file = _native.to_c_string(None if ca_file is None else str(ca_file), "ca_file")
        options.timeout_ms = _time.span_milliseconds(timeout, "timeout")
        options.connect_timeout_ms = _time.span_milliseconds(connect_timeout, "connect_timeout")
        options.max_retries = int(max_retries)
        options.max_retry_wait_ms = _time.span_milliseconds(max_retry_wait, "max_retry_wait")
        options.verify = ctypes.pointer(verify_options) if verify_options is not None else None
        options.user_agent = _s(user_agent, "user_agent")
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
        rc = function(*extra, self.handle, *args)
        body = _native.take_string(out) if out.value else None
        decoded_text = _native.take_string(dec) if dec.value else None
        if rc == EAPPSTORE_API:
            detail = _bindings.gatekit_last_error().decode("utf-8", "replace")
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
        try:
            model = cls.from_json(body)
        except ModelError as error:
            raise APIResponseError(EAPPSTORE_RESPONSE, f"the answer is not Apple's {cls.__name__}: {error}") from None
        return dataclasses.replace(model, decoded=verified) if verified is not None else model

    def _history_query(self, request: Any) -> bytes:
        """The TransactionHistoryRequest the C library turns into the query."""
        return _body(request, "transaction_history_request")

    # ---- transactions and subscriptions ----

    def get_transaction_info(self, transaction_id: str) -> TransactionInfoResponse:
        return self._model(TransactionInfoResponse, _get_transaction_info, _s(transaction_id, "transaction_id"), decoded=True)

    def get_transaction_history(self, any_transaction_id: str, revision: Optional[str],
                                transaction_history_request: Any,
                                version: GetTransactionHistoryVersion = GetTransactionHistoryVersion.V1) -> HistoryResponse:
        request = None if transaction_history_request is None else self._history_query(transaction_history_request)
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
        """``None`` sends the request without a body, as Apple's client does: the server's
        error is raised as an APIException."""
        body = None if update_app_account_token_request is None else _body(update_app_account_token_request, "update_app_account_token_request")
        self._call(_set_app_account_token, _s(original_transaction_id, "original_transaction_id"), body)

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


def __getattr__(name: str) -> Any:
    """The request and response models are gatekit.api_models' (one definition); reaching them
    here still works, with a DeprecationWarning, for hosts written against 0.1."""
    if name in _api_models.__all__:
        warnings.warn(f"gatekit.api_client.{name} is gatekit.api_models.{name}: import it from there", DeprecationWarning,
                      stacklevel=2)
        return getattr(_api_models, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
