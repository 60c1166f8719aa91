"""Test data for Google Play, for testing your own RTDN endpoint and entitlement code (also
reachable as ``gatekit.testing``'s names).

- :class:`PlayTestIssuer` signs pushes as Pub/Sub does, with a key of its own: a verifier
  takes them only when told to trust that issuer (``issuer.verifier(...)``), never as Google's.
- :func:`play_service_account` writes a service account key file for a stand-in token endpoint.
- :class:`PlaySubscriptionLife` plays one subscription (buy, renew, grace, hold, recover,
  pause, cancel, expire, revoke) as the SubscriptionPurchaseV2 the Play Developer API would
  answer after each step, and the DeveloperNotification Google would push for it.

    issuer = PlayTestIssuer()
    verifier = issuer.verifier("com.example.app", "https://example.com/rtdn", "push@example.iam.gserviceaccount.com")
    life = PlaySubscriptionLife("com.example.app", "pro.monthly", "token-1", start=datetime(2026, 1, 1, tzinfo=timezone.utc))
    body = push_body(life.subscribe(), message_id="1")
    headers = {"Authorization": issuer.sign_push("https://example.com/rtdn", "push@example.iam.gserviceaccount.com")}
    verifier.verify_push(headers, body)             # and life.resource() is what get_subscription answers
"""
from __future__ import annotations

import ctypes
import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, Dict, List, Optional

from . import _bindings, _native, _time
from ._managed import Managed
from .errors import check
from .play import PushVerifier, push_body

__all__ = ["PlaySubscriptionLife", "PlayTestIssuer", "play_service_account", "push_body"]

DEFAULT_ISSUER = "https://oidc.test.gatekit.invalid"


def play_service_account(client_email: str, token_uri: str) -> str:
    """A service account key file's JSON text, with a fresh RSA-2048 key, for ``token_uri``."""
    out = ctypes.c_void_p()
    check(_bindings.play_test_service_account(ctypes.byref(out), _native.required_c_string(client_email, "client_email"),
                                              _native.required_c_string(token_uri, "token_uri")))
    return _native.take_string(out)


class PlayTestIssuer(Managed):
    """An OIDC issuer of GateKit's own (one fresh RSA key) that signs pushes as Pub/Sub does."""

    def __init__(self, issuer: Optional[str] = None) -> None:
        handle = ctypes.POINTER(_bindings.gatekit_play_test_issuer)()
        check(_bindings.play_test_issuer_new(ctypes.byref(handle), _native.to_c_string(issuer, "issuer")))
        self._handle = handle
        self.issuer = issuer or DEFAULT_ISSUER

    def _release(self, handle: Any) -> None:
        _bindings.play_test_issuer_free(handle)

    def keys_json(self) -> str:
        """The issuer's JSON Web Key Set."""
        out = ctypes.c_void_p()
        check(_bindings.play_test_issuer_keys(ctypes.byref(out), self.handle))
        return _native.take_string(out)

    def sign_push(self, audience: str, email: str, lifetime: timedelta = timedelta(hours=1)) -> str:
        """The Authorization header value ("Bearer <JWT>") of a push to ``audience``."""
        out = ctypes.c_void_p()
        check(_bindings.play_test_issuer_sign_push(ctypes.byref(out), self.handle, _native.required_c_string(audience, "audience"),
                                                   _native.required_c_string(email, "email"),
                                                   _time.span_milliseconds(lifetime, "lifetime") // 1000))
        return _native.take_string(out)

    def verifier(self, package_name: str, audience: str, email: str, **options: Any) -> PushVerifier:
        """A verifier that trusts this issuer (and only it), with its key set given."""
        return PushVerifier(package_name, audience, email, issuer=self.issuer, keys_json=self.keys_json(), **options)


def _rfc3339(moment: datetime) -> str:
    return _time.rfc3339_ms(moment)


def _money(currency: str, amount: Decimal) -> Dict[str, Any]:
    units = int(amount)
    nanos = int((amount - units) * 1_000_000_000)
    return {"currencyCode": currency, "units": str(units), "nanos": nanos}


@dataclass
class PlaySubscriptionLife:
    """One auto-renewing Play subscription. Each event method moves :attr:`now` to the event,
    updates the subscription and returns the DeveloperNotification Google pushes for it;
    :meth:`resource` is what purchases.subscriptionsv2.get answers then."""
    package_name: str
    product_id: str
    purchase_token: str
    start: datetime
    period: timedelta = timedelta(days=30)
    base_plan_id: str = "monthly"
    currency: str = "USD"
    price: Decimal = Decimal("9.99")
    region_code: str = "US"
    test_purchase: bool = False
    obfuscated_account_id: Optional[str] = None
    linked_purchase_token: Optional[str] = None
    now: datetime = field(init=False)
    expires: datetime = field(init=False)
    state: str = field(default="SUBSCRIPTION_STATE_PENDING", init=False)
    auto_renew: bool = field(default=True, init=False)
    orders: int = field(default=0, init=False)
    acknowledged: bool = field(default=False, init=False)
    paused_until: Optional[datetime] = field(default=None, init=False)
    canceled: Optional[Dict[str, Any]] = field(default=None, init=False)
    sent: List[Dict[str, Any]] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        _time.milliseconds(self.start, "start")
        self.now = self.start
        self.expires = self.start + self.period

    @property
    def order_id(self) -> str:
        """Google's order id of the latest payment: GPA.<base>..N for the Nth renewal."""
        base = f"GPA.{int(hashlib.sha256(self.purchase_token.encode()).hexdigest()[:12], 16) % 10 ** 16:016d}"
        return base if self.orders <= 1 else f"{base}..{self.orders - 2}"

    def resource(self) -> Dict[str, Any]:
        """The SubscriptionPurchaseV2 JSON of the subscription now."""
        item: Dict[str, Any] = {"productId": self.product_id, "expiryTime": _rfc3339(self.expires),
                                "autoRenewingPlan": {"autoRenewEnabled": self.auto_renew,
                                                     "recurringPrice": _money(self.currency, self.price)},
                                "offerDetails": {"basePlanId": self.base_plan_id, "offerTags": []},
                                "offerPhase": {"basePrice": {}}}
        if self.orders:
            item["latestSuccessfulOrderId"] = self.order_id
        body: Dict[str, Any] = {"kind": "androidpublisher#subscriptionPurchaseV2", "regionCode": self.region_code,
                                "lineItems": [item], "subscriptionState": self.state,
                                "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" if self.acknowledged
                                else "ACKNOWLEDGEMENT_STATE_PENDING"}
        if self.state != "SUBSCRIPTION_STATE_PENDING":
            body["startTime"] = _rfc3339(self.start)
        if self.orders:
            body["latestOrderId"] = self.order_id
        if self.linked_purchase_token:
            body["linkedPurchaseToken"] = self.linked_purchase_token
        if self.test_purchase:
            body["testPurchase"] = {}
        if self.obfuscated_account_id:
            body["externalAccountIdentifiers"] = {"obfuscatedExternalAccountId": self.obfuscated_account_id}
        if self.paused_until is not None:
            body["pausedStateContext"] = {"autoResumeTime": _rfc3339(self.paused_until)}
        if self.canceled is not None:
            body["canceledStateContext"] = self.canceled
        return body

    def _notify(self, notification_type: int) -> Dict[str, Any]:
        notification = {"version": "1.0", "packageName": self.package_name,
                        "eventTimeMillis": str(_time.milliseconds(self.now, "now")),
                        "subscriptionNotification": {"version": "1.0", "notificationType": notification_type,
                                                     "purchaseToken": self.purchase_token}}
        self.sent.append(notification)
        return notification

    def subscribe(self) -> Dict[str, Any]:
        """SUBSCRIPTION_PURCHASED (4): active from :attr:`start`, first order paid."""
        self.state, self.orders = "SUBSCRIPTION_STATE_ACTIVE", 1
        return self._notify(4)

    def acknowledge(self) -> None:
        self.acknowledged = True

    def renew(self) -> Dict[str, Any]:
        """SUBSCRIPTION_RENEWED (2) at the end of the period: a new order, a new period."""
        self.now = self.expires
        self.expires += self.period
        self.orders += 1
        self.state = "SUBSCRIPTION_STATE_ACTIVE"
        return self._notify(2)

    def enter_grace(self, grace: timedelta = timedelta(days=7)) -> Dict[str, Any]:
        """SUBSCRIPTION_IN_GRACE_PERIOD (6): payment declined; access continues for ``grace``."""
        self.now = self.expires
        self.expires = self.now + grace
        self.state = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
        return self._notify(6)

    def hold(self) -> Dict[str, Any]:
        """SUBSCRIPTION_ON_HOLD (5): payment still declined; no access until recovered."""
        self.now = self.expires
        self.state = "SUBSCRIPTION_STATE_ON_HOLD"
        return self._notify(5)

    def recover(self, after: timedelta = timedelta(days=1)) -> Dict[str, Any]:
        """SUBSCRIPTION_RECOVERED (1): paid again; a new period from then."""
        self.now += after
        self.expires = self.now + self.period
        self.orders += 1
        self.state = "SUBSCRIPTION_STATE_ACTIVE"
        self.paused_until = None
        return self._notify(1)

    def pause(self, until: datetime) -> Dict[str, Any]:
        """SUBSCRIPTION_PAUSED (10) at the end of the period, resuming at ``until``."""
        self.now = self.expires
        self.paused_until = until
        self.state = "SUBSCRIPTION_STATE_PAUSED"
        return self._notify(10)

    def cancel(self, after: timedelta = timedelta(days=1)) -> Dict[str, Any]:
        """SUBSCRIPTION_CANCELED (3): the user stopped renewal; access lasts to :attr:`expires`."""
        self.now += after
        self.auto_renew = False
        self.state = "SUBSCRIPTION_STATE_CANCELED"
        self.canceled = {"userInitiatedCancellation": {"cancelSurveyResult": {"reason": "CANCEL_SURVEY_REASON_NOT_ENOUGH_USAGE"},
                                                       "cancelTime": _rfc3339(self.now)}}
        return self._notify(3)

    def restart(self, after: timedelta = timedelta(days=1)) -> Dict[str, Any]:
        """SUBSCRIPTION_RESTARTED (7): the user turned renewal back on before the end."""
        self.now += after
        self.auto_renew = True
        self.canceled = None
        self.state = "SUBSCRIPTION_STATE_ACTIVE"
        return self._notify(7)

    def expire(self) -> Dict[str, Any]:
        """SUBSCRIPTION_EXPIRED (13) at the end of the period."""
        self.now = max(self.now, self.expires)
        self.auto_renew = False
        self.state = "SUBSCRIPTION_STATE_EXPIRED"
        if self.canceled is None:
            self.canceled = {"systemInitiatedCancellation": {}}
        return self._notify(13)

    def revoke(self, after: timedelta = timedelta(days=3)) -> Dict[str, Any]:
        """SUBSCRIPTION_REVOKED (12): refunded and revoked; access ends now."""
        self.now += after
        self.expires = self.now
        self.auto_renew = False
        self.state = "SUBSCRIPTION_STATE_EXPIRED"
        self.canceled = {"developerInitiatedCancellation": {}}
        return self._notify(12)

    def push(self, notification: Dict[str, Any], message_id: str) -> bytes:
        """``notification`` as a Pub/Sub push body."""
        return push_body(notification, message_id)
