"""Google Play from Python: the Play Developer API client (``PlayClient``, and
``AsyncPlayClient`` for asyncio) and the verifier of real-time developer notification pushes
(``PushVerifier.verify_push(headers, body)``), over libgatekit.

Play purchase data is not signed: what is true is what the Play Developer API answers to an
authenticated request over TLS. A notification only says "ask": verify the push, then call
``get_subscription`` (or ``get_product``) and believe that answer. docs/play.md has the rest.
"""
from __future__ import annotations

import base64
import ctypes
import dataclasses
import datetime
import enum
import json
import os
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Type, TypeVar, Union

from . import _bindings, _native, _time
from ._enums import OneTimeProductNotificationType, SubscriptionNotificationType
from ._executor import run_blocking
from ._managed import Managed
from .errors import GateKitError, check, register
from .play_models import (PlayOrder, PlayModel, PlayModelError, ProductPurchase, ProductPurchaseV2, SubscriptionPurchaseV2,
                          VoidedPurchasesPage)

__all__ = [
    "EPLAY_API", "EPLAY_AUTH", "EPLAY_KEY", "EPLAY_RESPONSE", "EPLAY_TRANSPORT", "EPUSH_ALGORITHM", "EPUSH_CLAIMS",
    "EPUSH_EXPIRED", "EPUSH_KEY", "EPUSH_KEYSET", "EPUSH_MESSAGE", "EPUSH_PACKAGE", "EPUSH_SIGNATURE", "EPUSH_TOKEN",
    "AsyncPlayClient", "DeveloperNotification", "NotificationKind", "OneTimeProductNotification", "OneTimeProductNotificationType",
    "PlayAPIError", "PlayAuthError", "PlayClient", "PlayKeyError", "PlayResponseError", "PlayTransportError", "PushRejected",
    "PushVerifier", "SubscriptionNotification", "SubscriptionNotificationType", "VoidedPurchaseNotification", "push_body",
]

EPLAY_API = _bindings.GATEKIT_EPLAY_API
EPLAY_TRANSPORT = _bindings.GATEKIT_EPLAY_TRANSPORT
EPLAY_RESPONSE = _bindings.GATEKIT_EPLAY_RESPONSE
EPLAY_AUTH = _bindings.GATEKIT_EPLAY_AUTH
EPLAY_KEY = _bindings.GATEKIT_EPLAY_KEY
EPUSH_TOKEN = _bindings.GATEKIT_EPUSH_TOKEN
EPUSH_ALGORITHM = _bindings.GATEKIT_EPUSH_ALGORITHM
EPUSH_KEY = _bindings.GATEKIT_EPUSH_KEY
EPUSH_SIGNATURE = _bindings.GATEKIT_EPUSH_SIGNATURE
EPUSH_CLAIMS = _bindings.GATEKIT_EPUSH_CLAIMS
EPUSH_EXPIRED = _bindings.GATEKIT_EPUSH_EXPIRED
EPUSH_KEYSET = _bindings.GATEKIT_EPUSH_KEYSET
EPUSH_MESSAGE = _bindings.GATEKIT_EPUSH_MESSAGE
EPUSH_PACKAGE = _bindings.GATEKIT_EPUSH_PACKAGE
_PUSH_CODES = (EPUSH_TOKEN, EPUSH_ALGORITHM, EPUSH_KEY, EPUSH_SIGNATURE, EPUSH_CLAIMS, EPUSH_EXPIRED, EPUSH_KEYSET, EPUSH_MESSAGE,
               EPUSH_PACKAGE)


class PlayAPIError(GateKitError):
    """Google answered with an error: ``http_status``, and from Google's error JSON ``status``
    ("NOT_FOUND"), ``reason`` ("purchaseTokenNoLongerValid"), ``message``; ``retryable`` and
    ``retry_after`` (a timedelta, from Retry-After)."""

    def __init__(self, info: Mapping[str, Any], detail: str) -> None:
        super().__init__(EPLAY_API, detail)
        self.http_status = int(info.get("httpStatus") or 0)
        self.error_code: Optional[int] = info.get("code")
        self.status: Optional[str] = info.get("status")
        self.reason: Optional[str] = info.get("reason")
        self.message: Optional[str] = info.get("message")
        self.retryable = bool(info.get("retryable"))
        seconds = info.get("retryAfter")
        self.retry_after = None if seconds is None else datetime.timedelta(seconds=min(int(seconds), 10 ** 9))


class PlayTransportError(GateKitError, ConnectionError):
    """No answer: DNS, connection, TLS (an untrusted or misnamed server), timeout."""


class PlayResponseError(GateKitError, ValueError):
    """A success answer that is not what Google documents (not JSON, empty, over 16 MiB)."""


class PlayAuthError(GateKitError, PermissionError):
    """Google's token endpoint refused the service account (invalid_grant: a revoked key, a
    wrong clock) or answered without an access token."""


class PlayKeyError(GateKitError, ValueError):
    """The key file is not a service account key with an unencrypted RSA private key."""


class PushRejected(GateKitError):
    """A push that is not Google's for this app (``code`` says which check: EPUSH_TOKEN,
    _ALGORITHM, _KEY, _SIGNATURE, _CLAIMS, _EXPIRED, _KEYSET, _MESSAGE, _PACKAGE). Answer it
    with 403 (or 401): Pub/Sub retries a push that was not acknowledged."""


def play_answer(rc: int, out: ctypes.c_void_p) -> Optional[str]:
    """The text a call that asks Google wrote (None: none): Google's error answer
    (GATEKIT_EPLAY_API, its JSON in out) raises PlayAPIError with its status and reason,
    whichever call met it (the client's, or the ledger's that ask Google)."""
    body = _native.take_string(out) if out.value else None
    if rc == EPLAY_API:
        raise PlayAPIError(json.loads(body or "{}"), _bindings.gatekit_last_error().decode("utf-8", "replace"))
    check(rc)
    return body


register(EPLAY_TRANSPORT, PlayTransportError)
register(EPLAY_RESPONSE, PlayResponseError)
register(EPLAY_AUTH, PlayAuthError)
register(EPLAY_KEY, PlayKeyError)
for _code in _PUSH_CODES:
    register(_code, PushRejected)

P = TypeVar("P", bound=PlayModel)
T = TypeVar("T")


def _s(value: Optional[str], name: str) -> Optional[bytes]:
    return _native.to_c_string(value, name)


def _json(value: Optional[Mapping[str, Any]]) -> Optional[bytes]:
    return None if value is None else json.dumps(value).encode("utf-8")


def _ms(moment: Optional[datetime.datetime], name: str) -> Optional[int]:
    return None if moment is None else _time.milliseconds(moment, name)


def _key_contents(info: Optional[Union[Mapping[str, Any], str, bytes]]) -> Optional[bytes]:
    """A service account key's contents as the library reads them (never echoed in an error)."""
    if info is None:
        return None
    if isinstance(info, Mapping):
        return json.dumps(dict(info)).encode("utf-8")
    data = info.encode("utf-8") if isinstance(info, str) else bytes(info) if isinstance(info, (bytes, bytearray)) else None
    if data is not None:
        if b"\0" in data:
            raise ValueError("service_account_info holds a NUL byte: not a key's JSON")
        return data
    raise TypeError(f"service_account_info must be the key's JSON (a dict, str or bytes), not {type(info).__name__}")


class PlayClient(Managed):
    """A Play Developer API client for one app, authenticated as a service account.

    ``package_name`` is the app's; ``service_account_file`` the JSON key file from Google Cloud
    (read once, here: a regular file of this user that no other user can read or write), or
    ``service_account_info`` its contents (a dict, as google-auth's ``from_service_account_info``
    takes, or JSON text); neither: the file ``GOOGLE_APPLICATION_CREDENTIALS`` names. With
    ``metadata_server=True`` no key at all: tokens from the machine's metadata server (Compute
    Engine, GKE workload identity, Cloud Run), at ``GCE_METADATA_HOST`` when set.
    ``base_url`` and ``ca_file`` point it at a stand-in or proxy; ``timeout`` bounds each call
    (token exchange and retries included); 429, 408, 409 and 5xx are retried up to
    ``max_retries`` times. Thread-safe: share one client.
    """

    def __init__(self, package_name: str, service_account_file: Optional[Union[str, "os.PathLike[str]"]] = None, *,
                 service_account_info: Optional[Union[Mapping[str, Any], str, bytes]] = None, metadata_server: bool = False, base_url: Optional[str] = None, ca_file: Optional[Union[str, "os.PathLike[str]"]] = None,
                 timeout: datetime.timedelta = datetime.timedelta(seconds=30),
                 connect_timeout: datetime.timedelta = datetime.timedelta(seconds=10),
                 max_retries: int = 3, max_retry_wait: datetime.timedelta = datetime.timedelta(seconds=30),
                 user_agent: Optional[str] = None) -> None:
        options = _bindings.gatekit_play_client_options()
        check(_bindings.play_client_options_init(ctypes.byref(options), _bindings.GATEKIT_PLAY_CLIENT_OPTIONS_VERSION))
        options.package_name = _native.required_c_string(package_name, "package_name")
        options.service_account_file = _s(None if service_account_file is None else os.fspath(service_account_file), "service_account_file")
        options.service_account_json = _key_contents(service_account_info)
        options.metadata_server = 1 if metadata_server else 0
        options.base_url = _s(base_url, "base_url")
        options.ca_file = _s(None if ca_file is None else str(ca_file), "ca_file")
        options.timeout_ms = _time.span_milliseconds(timeout, "timeout")
        options.connect_timeout_ms = _time.span_milliseconds(connect_timeout, "connect_timeout")
        options.max_retries = int(max_retries)
        options.max_retry_wait_ms = _time.span_milliseconds(max_retry_wait, "max_retry_wait")
        options.user_agent = _s(user_agent, "user_agent")
        handle = ctypes.POINTER(_bindings.gatekit_play_client)()
        check(_bindings.play_client_new(ctypes.byref(handle), ctypes.byref(options)))
        self._handle = handle
        self.package_name = package_name

    def _release(self, handle: Any) -> None:
        _bindings.play_client_free(handle)

    def call(self, function: str, *args: Any) -> Optional[Dict[str, Any]]:
        """One endpoint by its C name (``"play_subscription_get"``): Google's body as a dict,
        None when the answer has none; PlayAPIError for Google's error answers."""
        out = ctypes.c_void_p()
        body = play_answer(getattr(_bindings, function)(ctypes.byref(out), self.handle, *args), out)
        return None if body is None else dict(json.loads(body))

    def _model(self, cls: Type[P], function: str, *args: Any) -> P:
        body = self.call(function, *args)
        try:
            return cls.from_json(body)
        except PlayModelError as error:
            raise PlayResponseError(EPLAY_RESPONSE, f"the answer is not Google's {cls.__name__}: {error}") from None

    # ---- subscriptions ----

    def get_subscription(self, purchase_token: str) -> SubscriptionPurchaseV2:
        """purchases.subscriptionsv2.get: the truth about the subscription the token names."""
        return self._model(SubscriptionPurchaseV2, "play_subscription_get", _s(purchase_token, "purchase_token"))

    def revoke_subscription(self, purchase_token: str, refund: str = "fullRefund", *, item_product_id: Optional[str] = None) -> None:
        """subscriptionsv2.revoke: access ends now. ``refund`` is Google's revocation context,
        "fullRefund" or "proratedRefund" ("full" and "prorated" are read as those), or
        ``item_product_id`` to revoke one add-on item (Google's "itemBasedRefund")."""
        if item_product_id is not None:
            context: Dict[str, Any] = {"itemBasedRefund": {"productId": item_product_id}}
        elif refund in ("fullRefund", "proratedRefund", "full", "prorated"):
            context = {refund if refund.endswith("Refund") else f"{refund}Refund": {}}
        else:
            raise ValueError(f"refund must be Google's 'fullRefund' or 'proratedRefund', not {refund!r}")
        self.call("play_subscription_revoke", _s(purchase_token, "purchase_token"), _json({"revocationContext": context}))

    def cancel_subscription(self, purchase_token: str, cancellation_type: str = "USER_REQUESTED_STOP_RENEWALS") -> None:
        """subscriptionsv2.cancel: renewal stops; access lasts to the end of the period."""
        body = {"cancellationContext": {"cancellationType": cancellation_type}}
        self.call("play_subscription_cancel", _s(purchase_token, "purchase_token"), _json(body))

    def defer_subscription(self, purchase_token: str, request: Mapping[str, Any]) -> Optional[Dict[str, Any]]:
        """subscriptionsv2.defer, Google's request object as given; Google's answer."""
        return self.call("play_subscription_defer", _s(purchase_token, "purchase_token"), _json(request))

    def acknowledge_subscription(self, subscription_id: str, purchase_token: str, *, developer_payload: Optional[str] = None,
                                 external_account_ids: Optional[Mapping[str, str]] = None) -> None:
        """purchases.subscriptions.acknowledge (within three days, or Google refunds it).
        ``external_account_ids``: {"obfuscated_account_id": …, "obfuscated_profile_id": …}
        (Python's spelling; Google's camelCase names are taken too)."""
        body: Dict[str, Any] = {}
        if developer_payload is not None:
            body["developerPayload"] = developer_payload
        if external_account_ids is not None:
            body["externalAccountIds"] = _external_account_ids(external_account_ids)
        self.call("play_subscription_acknowledge", _s(subscription_id, "subscription_id"), _s(purchase_token, "purchase_token"), _json(body))

    # ---- one-time products ----

    def get_product(self, product_id: str, purchase_token: str) -> ProductPurchase:
        return self._model(ProductPurchase, "play_product_get", _s(product_id, "product_id"), _s(purchase_token, "purchase_token"))

    def get_product_v2(self, purchase_token: str) -> ProductPurchaseV2:
        return self._model(ProductPurchaseV2, "play_product_get_v2", _s(purchase_token, "purchase_token"))

    def acknowledge_product(self, product_id: str, purchase_token: str, *, developer_payload: Optional[str] = None) -> None:
        body = {} if developer_payload is None else {"developerPayload": developer_payload}
        self.call("play_product_acknowledge", _s(product_id, "product_id"), _s(purchase_token, "purchase_token"), _json(body))

    def consume_product(self, product_id: str, purchase_token: str) -> None:
        self.call("play_product_consume", _s(product_id, "product_id"), _s(purchase_token, "purchase_token"))

    # ---- voided purchases and orders ----

    def list_voided_purchases(self, *, start_time: Optional[datetime.datetime] = None, end_time: Optional[datetime.datetime] = None,
                              include_subscriptions: bool = False, max_results: Optional[int] = None,
                              page_token: Optional[str] = None, include_quantity_based_partial_refund: bool = False) -> VoidedPurchasesPage:
        """One page of purchases.voidedpurchases.list (``include_subscriptions``: type 1)."""
        query: Dict[str, Any] = {}
        if start_time is not None:
            query["startTime"] = _ms(start_time, "start_time")
        if end_time is not None:
            query["endTime"] = _ms(end_time, "end_time")
        if include_subscriptions:
            query["type"] = 1
        if max_results is not None:
            query["maxResults"] = int(max_results)
        if page_token is not None:
            query["token"] = page_token
        if include_quantity_based_partial_refund:
            query["includeQuantityBasedPartialRefund"] = True
        return self._model(VoidedPurchasesPage, "play_voided_purchases_list", _json(query))

    def iter_voided_purchases(self, **query: Any) -> Iterator[VoidedPurchasesPage]:
        """Every page, following tokenPagination.nextPageToken (the query sent again with it)."""
        page = self.list_voided_purchases(**query)
        yield page
        while page.next_page_token is not None:
            page = self.list_voided_purchases(**dict(query, page_token=page.next_page_token))
            yield page

    def get_order(self, order_id: str) -> PlayOrder:
        return self._model(PlayOrder, "play_order_get", _s(order_id, "order_id"))

    def get_orders(self, order_ids: Sequence[str]) -> List[PlayOrder]:
        """orders.batchget: 1 to 1000 distinct ids; any unknown id fails the whole call."""
        ids = [_native.required_c_string(i, "order_ids[]") for i in order_ids]
        array = (ctypes.c_char_p * max(1, len(ids)))(*ids)
        body = self.call("play_orders_batch_get", array, len(ids)) or {}
        try:
            return [PlayOrder.from_json(o) for o in body.get("orders", [])]
        except PlayModelError as error:
            raise PlayResponseError(EPLAY_RESPONSE, f"the answer is not Google's orders: {error}") from None


class AsyncPlayClient:
    """``PlayClient`` for asyncio: the same methods, awaitable. Each call runs the blocking
    libgatekit call on the bounded pool of threads all GateKit async clients share (ctypes
    releases the GIL while libcurl waits), so the event loop never blocks."""

    def __init__(self, package_name: str, service_account_file: Optional[Union[str, "os.PathLike[str]"]] = None, **options: Any) -> None:
        self._client = PlayClient(package_name, service_account_file, **options)

    async def close(self) -> None:
        self._client.close()

    async def get_subscription(self, purchase_token: str) -> SubscriptionPurchaseV2:
        return await run_blocking(self._client.get_subscription, purchase_token)

    async def revoke_subscription(self, purchase_token: str, refund: str = "full", *, item_product_id: Optional[str] = None) -> None:
        await run_blocking(lambda: self._client.revoke_subscription(purchase_token, refund, item_product_id=item_product_id))

    async def cancel_subscription(self, purchase_token: str, cancellation_type: str = "USER_REQUESTED_STOP_RENEWALS") -> None:
        await run_blocking(self._client.cancel_subscription, purchase_token, cancellation_type)

    async def defer_subscription(self, purchase_token: str, request: Mapping[str, Any]) -> Optional[Dict[str, Any]]:
        return await run_blocking(self._client.defer_subscription, purchase_token, request)

    async def acknowledge_subscription(self, subscription_id: str, purchase_token: str, **body: Any) -> None:
        await run_blocking(lambda: self._client.acknowledge_subscription(subscription_id, purchase_token, **body))

    async def get_product(self, product_id: str, purchase_token: str) -> ProductPurchase:
        return await run_blocking(self._client.get_product, product_id, purchase_token)

    async def get_product_v2(self, purchase_token: str) -> ProductPurchaseV2:
        return await run_blocking(self._client.get_product_v2, purchase_token)

    async def acknowledge_product(self, product_id: str, purchase_token: str, *, developer_payload: Optional[str] = None) -> None:
        await run_blocking(lambda: self._client.acknowledge_product(product_id, purchase_token, developer_payload=developer_payload))

    async def consume_product(self, product_id: str, purchase_token: str) -> None:
        await run_blocking(self._client.consume_product, product_id, purchase_token)

    async def list_voided_purchases(self, **query: Any) -> VoidedPurchasesPage:
        return await run_blocking(lambda: self._client.list_voided_purchases(**query))

    async def get_order(self, order_id: str) -> PlayOrder:
        return await run_blocking(self._client.get_order, order_id)

    async def get_orders(self, order_ids: Sequence[str]) -> List[PlayOrder]:
        return await run_blocking(self._client.get_orders, order_ids)


# ---- real-time developer notifications ----

class NotificationKind(str, enum.Enum):
    SUBSCRIPTION = "subscription"
    ONE_TIME_PRODUCT = "oneTimeProduct"
    VOIDED_PURCHASE = "voidedPurchase"
    PENDING_REFUND_REVIEW = "pendingRefundReview"
    TEST = "test"
    UNKNOWN = "unknown"


def _known(cls: Any, number: int) -> Any:
    try:
        return cls(number)
    except ValueError:
        return None


@dataclasses.dataclass(frozen=True)
class SubscriptionNotification:
    """``notification_type`` None when Google sent a number newer than GateKit (``raw_type``)."""
    raw_type: int
    notification_type: Optional[SubscriptionNotificationType]
    purchase_token: str
    version: Optional[str]


@dataclasses.dataclass(frozen=True)
class OneTimeProductNotification:
    raw_type: int
    notification_type: Optional[OneTimeProductNotificationType]
    purchase_token: str
    sku: str
    version: Optional[str]


@dataclasses.dataclass(frozen=True)
class VoidedPurchaseNotification:
    purchase_token: str
    order_id: Optional[str]
    product_type: int
    refund_type: int


_KIND_MEMBERS = {NotificationKind.SUBSCRIPTION: "subscriptionNotification", NotificationKind.ONE_TIME_PRODUCT: "oneTimeProductNotification",
                 NotificationKind.VOIDED_PURCHASE: "voidedPurchaseNotification",
                 NotificationKind.PENDING_REFUND_REVIEW: "pendingRefundReviewNotification", NotificationKind.TEST: "testNotification"}


@dataclasses.dataclass(frozen=True)
class DeveloperNotification:
    """A verified push: the Pub/Sub envelope's ``message_id`` / ``subscription`` /
    ``publish_time``; the DeveloperNotification's ``version``, ``package_name``,
    ``event_time`` and ``kind``; ``payload``, the kind's object as sent (for ``UNKNOWN``, the
    members GateKit does not know), typed below where GateKit knows it; ``duplicate`` (this
    verifier saw the message id before: acknowledge, do not process again); ``issuer`` and
    ``test_signed`` (signed by an issuer the host configured, never Google); ``raw``, the whole
    DeveloperNotification."""
    message_id: str
    subscription: str
    publish_time: Optional[str]
    duplicate: bool
    version: str
    package_name: str
    event_time: datetime.datetime
    kind: NotificationKind
    notification_type_name: Optional[str]
    payload: Dict[str, Any]
    issuer: str
    test_signed: bool
    raw: Dict[str, Any]
    subscription_notification: Optional[SubscriptionNotification] = None
    one_time_product_notification: Optional[OneTimeProductNotification] = None
    voided_purchase_notification: Optional[VoidedPurchaseNotification] = None

    @property
    def purchase_token(self) -> Optional[str]:
        token = self.payload.get("purchaseToken")
        return token if isinstance(token, str) else None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "DeveloperNotification":
        """From play_verify_push's JSON."""
        raw = dict(data["developerNotification"])
        gatekit = data["gatekit"]
        kind = NotificationKind(gatekit["kind"])
        member = _KIND_MEMBERS.get(kind)
        payload = dict(raw[member]) if member else {k: v for k, v in raw.items() if k not in ("version", "packageName", "eventTimeMillis")}
        typed: Dict[str, Any] = {}
        if kind == NotificationKind.SUBSCRIPTION:
            number = int(payload["notificationType"])
            typed["subscription_notification"] = SubscriptionNotification(
                number, _known(SubscriptionNotificationType, number), payload["purchaseToken"], payload.get("version"))
        elif kind == NotificationKind.ONE_TIME_PRODUCT:
            number = int(payload["notificationType"])
            typed["one_time_product_notification"] = OneTimeProductNotification(
                number, _known(OneTimeProductNotificationType, number), payload["purchaseToken"], payload["sku"], payload.get("version"))
        elif kind == NotificationKind.VOIDED_PURCHASE:
            typed["voided_purchase_notification"] = VoidedPurchaseNotification(
                payload["purchaseToken"], payload.get("orderId"), int(payload["productType"]), int(payload["refundType"]))
        epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return cls(message_id=data["messageId"], subscription=data["subscription"], publish_time=data.get("publishTime"),
                   duplicate=bool(gatekit["duplicate"]), version=raw["version"], package_name=raw["packageName"],
                   event_time=epoch + datetime.timedelta(milliseconds=int(gatekit["eventTimeMillis"])), kind=kind,
                   notification_type_name=gatekit.get("notificationTypeName"), payload=payload, issuer=gatekit["issuer"],
                   test_signed=bool(gatekit["testSigned"]), raw=raw, **typed)


_EXTERNAL_ACCOUNT_IDS = {"obfuscated_account_id": "obfuscatedAccountId", "obfuscated_profile_id": "obfuscatedProfileId"}


def _external_account_ids(ids: Mapping[str, str]) -> Dict[str, str]:
    """Google's ExternalAccountIds from Python's names (or Google's own); another name is refused."""
    out: Dict[str, str] = {}
    for name, value in ids.items():
        google = _EXTERNAL_ACCOUNT_IDS.get(name, name)
        if google not in _EXTERNAL_ACCOUNT_IDS.values():
            raise ValueError(f"external_account_ids takes obfuscated_account_id and obfuscated_profile_id, not {name!r}")
        out[google] = value
    return out


def push_bytes(body: object) -> bytes:
    """A push's raw body: bytes as the web framework received them (a str is taken as its UTF-8
    bytes); parsed JSON is refused, since what is verified is the body as sent."""
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    if isinstance(body, str):
        return body.encode("utf-8")
    raise TypeError(f"body must be the request's raw body (bytes, or str), not {type(body).__name__}: "
                    "pass the bytes the framework received (Flask: request.get_data()), not its parsed JSON")


def authorization_header(headers: Union[Mapping[str, str], Iterable[Tuple[str, str]]]) -> Optional[str]:
    """The Authorization header from a mapping (any case) or (name, value) pairs; a WSGI
    environ's HTTP_AUTHORIZATION too."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    for name, value in pairs:
        if isinstance(name, str) and name.lower() in ("authorization", "http_authorization"):
            return str(value)
    return None


class PushVerifier(Managed):
    """Verifies Pub/Sub pushes of real-time developer notifications for one app.

    ``audience`` is the push subscription's audience (its endpoint URL when none was set),
    ``service_account_email`` the account it authenticates as. Google's issuer and key set
    by default; ``issuer`` with ``keys_url`` or ``keys_json`` trusts another issuer instead
    (a test issuer: test pushes never pass as Google's). Thread-safe: share one verifier.
    """

    def __init__(self, package_name: str, audience: str, service_account_email: str, *, issuer: Optional[str] = None,
                 keys_url: Optional[str] = None, keys_json: Optional[str] = None,
                 ca_file: Optional[Union[str, "os.PathLike[str]"]] = None,
                 timeout: datetime.timedelta = datetime.timedelta(seconds=10),
                 max_token_age: datetime.timedelta = datetime.timedelta(hours=1),
                 clock_skew: datetime.timedelta = datetime.timedelta(minutes=1),
                 key_refresh_interval: datetime.timedelta = datetime.timedelta(seconds=30),
                 duplicate_window: int = 10000) -> None:
        options = _bindings.gatekit_play_push_options()
        check(_bindings.play_push_options_init(ctypes.byref(options), _bindings.GATEKIT_PLAY_PUSH_OPTIONS_VERSION))
        options.package_name = _native.required_c_string(package_name, "package_name")
        options.audience = _native.required_c_string(audience, "audience")
        options.service_account_email = _native.required_c_string(service_account_email, "service_account_email")
        options.issuer = _s(issuer, "issuer")
        options.keys_url = _s(keys_url, "keys_url")
        options.keys_json = _s(keys_json, "keys_json")
        options.ca_file = _s(None if ca_file is None else str(ca_file), "ca_file")
        options.timeout_ms = _time.span_milliseconds(timeout, "timeout")
        options.max_token_age_s = _time.span_milliseconds(max_token_age, "max_token_age") // 1000
        options.clock_skew_s = _time.span_milliseconds(clock_skew, "clock_skew") // 1000
        options.key_refresh_interval_ms = _time.span_milliseconds(key_refresh_interval, "key_refresh_interval")
        options.duplicate_window = int(duplicate_window)
        handle = ctypes.POINTER(_bindings.gatekit_play_push_verifier)()
        check(_bindings.play_push_verifier_new(ctypes.byref(handle), ctypes.byref(options)))
        self._handle = handle

    def _release(self, handle: Any) -> None:
        _bindings.play_push_verifier_free(handle)

    def verify_push(self, headers: Union[Mapping[str, str], Iterable[Tuple[str, str]]], body: bytes) -> DeveloperNotification:
        """The notification when the request is Google's push for this app; PushRejected
        otherwise. ``headers`` as any web framework gives them; ``body`` the raw bytes."""
        authorization = authorization_header(headers)
        data = push_bytes(body)
        out = ctypes.c_void_p()
        check(_bindings.play_verify_push(ctypes.byref(out), self.handle, None if authorization is None else _s(authorization, "authorization"),
                                         data, len(data)))
        return DeveloperNotification.from_json(json.loads(_native.take_string(out)))


def push_body(notification: Mapping[str, Any], message_id: str, subscription: str = "projects/gatekit-test/subscriptions/play-rtdn") -> bytes:
    """A Pub/Sub push body (wrapped) carrying ``notification`` (a DeveloperNotification dict)."""
    data = base64.b64encode(json.dumps(notification).encode()).decode()
    return json.dumps({"message": {"data": data, "messageId": message_id, "attributes": {}},
                       "subscription": subscription}).encode()
