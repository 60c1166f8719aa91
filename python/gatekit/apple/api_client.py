"""``appstoreserverlibrary.api_client`` at Apple's path: ``AppStoreServerAPIClient`` and
``AsyncAppStoreServerAPIClient`` behaving as Apple's (no automatic retries, Apple's query
values, a User-Agent naming Apple's library as the one emulated), their errors, and the request
and response models Apple's module names. Requests are made by libgatekit (libcurl).
"""
from __future__ import annotations

import asyncio
import functools
import json
from typing import Any, Callable, Optional, TypeVar, Union

from ..api_client import APIException, APITransportError, APIResponseError
from ..api_models import (APIError, AppTransactionInfoResponse,
                          CheckTestNotificationResponse, ConsumptionRequest, ConsumptionRequestV1,
                          DefaultConfigurationRequest, DefaultConfigurationResponse, Environment,
                          ExtendRenewalDateRequest, ExtendRenewalDateResponse, GetImageListResponse,
                          GetMessageListResponse, GetTransactionHistoryVersion, HistoryResponse, ImageSize,
                          LastTransactionsItem, MassExtendRenewalDateRequest, MassExtendRenewalDateResponse,
                          MassExtendRenewalDateStatusResponse, NotificationHistoryRequest,
                          NotificationHistoryResponse, NotificationHistoryResponseItem, Order, OrderLookupResponse,
                          OrderLookupStatus, PerformanceTestResponse, PerformanceTestRequest,
                          PerformanceTestResultResponse, ProductType, RealtimeUrlRequest, RealtimeUrlResponse,
                          RefundHistoryResponse, SendAttemptItem, SendAttemptResult, SendTestNotificationResponse,
                          Status, StatusResponse, SubscriptionGroupIdentifierItem, TransactionHistoryRequest,
                          TransactionInfoResponse, UpdateAppAccountTokenRequest, UploadMessageRequestBody)
from ..api_client import AppStoreServerAPIClient as _GateKitClient
from .. import _bindings
from .._executor import POOL_SIZE, run_blocking
from .._structs import plain_json

__all__ = ["APIError", "APIException", "APITransportError", "APIResponseError", "AppTransactionInfoResponse", "CheckTestNotificationResponse", "ConsumptionRequest", "ConsumptionRequestV1", "DefaultConfigurationRequest", "DefaultConfigurationResponse", "Environment", "ExtendRenewalDateRequest", "ExtendRenewalDateResponse", "GetImageListResponse", "GetMessageListResponse", "GetTransactionHistoryVersion", "HistoryResponse", "ImageSize", "LastTransactionsItem", "MassExtendRenewalDateRequest", "MassExtendRenewalDateResponse", "MassExtendRenewalDateStatusResponse", "NotificationHistoryRequest", "NotificationHistoryResponse", "NotificationHistoryResponseItem", "Order", "OrderLookupResponse", "OrderLookupStatus", "PerformanceTestResponse", "PerformanceTestRequest", "PerformanceTestResultResponse", "ProductType", "RealtimeUrlRequest", "RealtimeUrlResponse", "RefundHistoryResponse", "SendAttemptItem", "SendAttemptResult", "SendTestNotificationResponse", "Status", "StatusResponse", "SubscriptionGroupIdentifierItem", "TransactionHistoryRequest", "TransactionInfoResponse", "UpdateAppAccountTokenRequest", "UploadMessageRequestBody", "AppStoreServerAPIClient", "AsyncAppStoreServerAPIClient"]

#: Apple's client sends app-store-server-library/python/<its version>; this one says what it is.
USER_AGENT = f"app-store-server-library/python (gatekit {_bindings.gatekit_version().decode('ascii')})"

T = TypeVar("T")


class AppStoreServerAPIClient(_GateKitClient):
    """Apple's ``AppStoreServerAPIClient(signing_key, key_id, issuer_id, bundle_id,
    environment)``. As Apple's: an error answer raises at once (``max_retries=0``; pass more
    to wait out 429s), and ``revoked`` goes in the query as Python writes it (``False``).
    GateKit's keyword arguments (``verifier``, ``base_url``, ``ca_file``, timeouts) work too."""

    def __init__(self, signing_key: bytes, key_id: str, issuer_id: str, bundle_id: str,
                 environment: Union[Environment, str], **options: Any) -> None:
        options.setdefault("max_retries", 0)
        options.setdefault("user_agent", USER_AGENT)
        super().__init__(signing_key, key_id, issuer_id, bundle_id, environment, **options)

    def _history_query(self, request: Any) -> bytes:
        members = plain_json(request)
        if isinstance(members.get("revoked"), bool):
            members["revoked"] = str(members["revoked"])  # what requests writes for Apple's client
        return json.dumps(members).encode("utf-8")


class AsyncAppStoreServerAPIClient:
    """Apple's ``AsyncAppStoreServerAPIClient``: the same methods, awaitable. Each call runs the
    blocking libgatekit call on a bounded pool of threads shared by all async clients
    (``max_concurrency``, default 16; ctypes releases the GIL while libcurl waits), so the
    event loop never blocks and no thread is made per call. ``async_close()`` as Apple's."""

    def __init__(self, signing_key: bytes, key_id: str, issuer_id: str, bundle_id: str,
                 environment: Union[Environment, str], *, max_concurrency: int = 16, **options: Any) -> None:
        self._client = AppStoreServerAPIClient(signing_key, key_id, issuer_id, bundle_id, environment, **options)
        self.environment = self._client.environment
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self._max_concurrency = max_concurrency
        self._slots: Optional[asyncio.Semaphore] = None  # made in the running loop, on first use

    async def async_close(self) -> None:
        self._client.close()

    async def _run(self, call: Callable[..., T], *args: Any) -> T:
        if self._max_concurrency >= POOL_SIZE:  # the shared pool bounds it already
            return await run_blocking(call, *args)
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._max_concurrency)
        async with self._slots:
            return await run_blocking(call, *args)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name) if not name.startswith("_") else None
        if method is None or not callable(method) or name in ("close", "handle"):
            raise AttributeError(name)

        @functools.wraps(method)
        async def call(*args: Any) -> Any:
            return await self._run(method, *args)
        return call
