"""Test-signed App Store data, for testing your own notification endpoint and entitlement code.

A :class:`TestPKI` is a throw-away chain shaped like Apple's StoreKit 2 chain (a root, an
intermediate and a signing leaf with Apple's marker OIDs) kept in a folder. It signs
notifications, transactions and renewal infos built from keyword arguments with Apple's field
names; :class:`SubscriptionLife` plays a whole subscription (buy, renew, billing trouble,
refund, expiry) as the notifications Apple would send. Everything it signs is *test-signed*:
it verifies only with the PKI's root as the test anchor (``pki.verifier(...)``), is marked
``testSigned``, and is refused as App Store data — it can never pass as a real purchase.

    pki = TestPKI.create(tmp_path / "pki")
    life = pki.subscription(bundleId="com.example.app", productId="pro.monthly",
                            subscriptionGroupIdentifier="pro", originalTransactionId="1000",
                            start=datetime(2026, 1, 1, tzinfo=timezone.utc))
    for signed_payload in (life.subscribe(), life.renew(), life.refund()):
        post_to_my_endpoint({"signedPayload": signed_payload})

Values: ``datetime`` (aware) becomes Unix milliseconds, an ``Enum`` its value, ``None``
drops the member; everything else is JSON as given. docs/testing.md has a complete example.
"""
from __future__ import annotations

import ctypes
import json
import os
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

from . import _bindings, _native
from . import _time
from ._structs import plain_json
from .errors import check
from .jws import KINDS, SignedDataVerifier
from .play_testing import PlaySubscriptionLife, PlayTestIssuer, play_service_account, push_body

__all__ = ["KINDS", "PlaySubscriptionLife", "PlayTestIssuer", "SubscriptionLife", "TestPKI", "play_service_account", "push_body"]


_pki_create = _bindings.jws_test_pki_create
_sign = _bindings.jws_test_sign

PathLike = Union[str, "os.PathLike[str]"]


class TestPKI:
    """A test PKI in a folder: ``root.der`` (the test anchor), ``intermediate.der``,
    ``leaf.der``, ``leaf.key``. Open an existing one with ``TestPKI(folder)``; make one with
    :meth:`create`. Safe to share between threads (each signature reads the folder)."""

    __test__ = False  # not a pytest test class, despite its name

    def __init__(self, directory: PathLike) -> None:
        self.directory = Path(directory)
        self._directory = _native.to_c_string(os.fspath(self.directory), "directory")

    @classmethod
    def create(cls, directory: PathLike) -> "TestPKI":
        """Makes a new PKI in ``directory`` (created 0700 when absent; files 0600, never over
        existing ones). Raises GateKitError (EIO when a PKI is already there)."""
        check(_pki_create(_native.to_c_string(os.fspath(directory), "directory")))
        return cls(directory)

    @property
    def anchor(self) -> bytes:
        """The root certificate (DER): the test anchor to verify this PKI's data with."""
        return (self.directory / "root.der").read_bytes()

    def verifier(self, bundle_id: str, environment: str = "Sandbox", app_apple_id: Optional[int] = None, *,
                 test_production: bool = False) -> SignedDataVerifier:
        """A verifier that accepts this PKI's data (and Apple's), marked test-signed. Its
        Production data passes only with ``test_production=True``: a test that needs it says so."""
        return SignedDataVerifier(bundle_id, environment, app_apple_id, test_anchor=self.anchor, test_production=test_production)

    def sign(self, kind: str, payload: Mapping[str, Any]) -> str:
        """Signs ``payload`` (Apple's member names) as ``kind`` (a key of :data:`KINDS`).
        Raises SignedDataError when GateKit would refuse it as that kind (a missing member, an
        environment Apple does not spell so)."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        text = json.dumps(plain_json(dict(payload)), separators=(",", ":"), ensure_ascii=False)
        out = ctypes.c_void_p()
        check(_sign(ctypes.byref(out), self._directory, KINDS[kind], _native.to_c_string(text, "payload")))
        return _native.take_string(out)

    def transaction(self, *, bundleId: str, productId: str, transactionId: str, purchaseDate: datetime,
                    type: str = "Auto-Renewable Subscription", environment: str = "Sandbox",
                    originalTransactionId: Optional[str] = None, originalPurchaseDate: Optional[datetime] = None,
                    signedDate: Optional[datetime] = None, **fields: Any) -> str:
        """A signed transaction (signedTransactionInfo). ``originalTransactionId`` and
        ``originalPurchaseDate`` default to this purchase's; ``signedDate`` to the purchase
        date. Any other member of Apple's JWSTransactionDecodedPayload goes in ``fields``
        (``expiresDate``, ``subscriptionGroupIdentifier``, ``appAccountToken``,
        ``revocationDate``, ``offerType``, …)."""
        members: Dict[str, Any] = {
            "transactionId": transactionId, "originalTransactionId": originalTransactionId or transactionId,
            "bundleId": bundleId, "productId": productId, "purchaseDate": purchaseDate,
            "originalPurchaseDate": originalPurchaseDate or purchaseDate, "quantity": 1, "type": type,
            "inAppOwnershipType": "PURCHASED", "signedDate": signedDate or purchaseDate, "environment": environment,
            "transactionReason": "PURCHASE", "storefront": "USA", "storefrontId": "143441",
        }
        members.update(fields)
        return self.sign("transaction", members)

    def renewal_info(self, *, originalTransactionId: str, productId: str, signedDate: datetime,
                     environment: str = "Sandbox", autoRenewStatus: int = 1, **fields: Any) -> str:
        """A signed renewal info (signedRenewalInfo). ``autoRenewProductId`` defaults to
        ``productId``; other members of Apple's JWSRenewalInfoDecodedPayload go in ``fields``
        (``isInBillingRetryPeriod``, ``gracePeriodExpiresDate``, ``expirationIntent``,
        ``renewalDate``, …)."""
        members: Dict[str, Any] = {
            "originalTransactionId": originalTransactionId, "productId": productId,
            "autoRenewProductId": fields.pop("autoRenewProductId", productId), "autoRenewStatus": autoRenewStatus,
            "signedDate": signedDate, "environment": environment,
        }
        members.update(fields)
        return self.sign("renewal-info", members)

    def notification(self, notificationType: str, subtype: Optional[str] = None, *, bundleId: str,
                     environment: str = "Sandbox", signedTransactionInfo: Optional[str] = None,
                     signedRenewalInfo: Optional[str] = None, signedDate: Optional[datetime] = None,
                     notificationUUID: Optional[str] = None, appAppleId: Optional[int] = None, **data: Any) -> str:
        """A signed App Store Server Notification V2 (the ``signedPayload`` Apple POSTs), its
        ``data`` holding the signed transaction and renewal info given. ``notificationUUID``
        defaults to a new UUID, ``signedDate`` to now; other ``data`` members (``status``,
        ``bundleVersion``, …) go in ``data``."""
        body: Dict[str, Any] = {"bundleId": bundleId, "environment": environment, "appAppleId": appAppleId,
                                "signedTransactionInfo": signedTransactionInfo, "signedRenewalInfo": signedRenewalInfo}
        body.update(data)
        return self.sign("notification", {
            "notificationType": notificationType, "subtype": subtype,
            "notificationUUID": notificationUUID or str(uuid.uuid4()), "data": body, "version": "2.0",
            "signedDate": signedDate or datetime.now(timezone.utc),
        })

    def app_transaction(self, *, bundleId: str, environment: str = "Sandbox", originalApplicationVersion: str = "1.0",
                        signedDate: Optional[datetime] = None, **fields: Any) -> str:
        """A signed AppTransaction (its environment is Apple's ``receiptType``)."""
        now = signedDate or datetime.now(timezone.utc)
        members: Dict[str, Any] = {"bundleId": bundleId, "receiptType": environment, "applicationVersion": "1.0",
                                   "originalApplicationVersion": originalApplicationVersion,
                                   "originalPurchaseDate": now, "receiptCreationDate": now, "signedDate": now}
        members.update(fields)
        return self.sign("app-transaction", members)

    def subscription(self, *, bundleId: str, productId: str, subscriptionGroupIdentifier: str,
                     originalTransactionId: str, start: datetime, period: timedelta = timedelta(days=30),
                     environment: str = "Sandbox", appAccountToken: Optional[str] = None,
                     price: Optional[int] = None, currency: Optional[str] = None,
                     appAppleId: Optional[int] = None) -> "SubscriptionLife":
        """A subscription bought at ``start`` and renewing every ``period``. ``price`` (in
        milliunits, as Apple signs it: 9990 is 9.99) and ``currency`` (ISO 4217, "USD") go in
        every transaction, so metrics and the report show its revenue and MRR. Production data
        carries the app's ``appAppleId`` in every notification, as Apple signs it (the verifier's
        ``app_apple_id``): required there."""
        if environment == "Production" and appAppleId is None:
            raise ValueError("Production notifications carry the app's appAppleId (its App Store id, the verifier's app_apple_id): "
                             "pass appAppleId=")
        if (price is None) != (currency is None):
            raise ValueError("price and currency go together: a price in milliunits (9990 for 9.99) and its ISO 4217 code")
        if price is not None and (not isinstance(price, int) or isinstance(price, bool) or price < 0):
            raise TypeError(f"price is an int of milliunits (9990 for 9.99), not {price!r}")
        return SubscriptionLife(self, bundleId=bundleId, productId=productId, group=subscriptionGroupIdentifier,
                                originalTransactionId=originalTransactionId, start=start, period=period,
                                environment=environment, appAccountToken=appAccountToken, price=price, currency=currency,
                                appAppleId=appAppleId)


@dataclass
class SubscriptionLife:
    """One auto-renewable subscription played as the notifications Apple sends. Each event
    method returns the signed notification (``signedPayload``) and moves :attr:`now` to the
    moment of the event; :attr:`expires` is the end of the current period."""
    pki: TestPKI
    bundleId: str
    productId: str
    group: str
    originalTransactionId: str
    start: datetime
    period: timedelta
    environment: str = "Sandbox"
    appAccountToken: Optional[str] = None
    price: Optional[int] = None      # milliunits, in every transaction with currency
    currency: Optional[str] = None
    appAppleId: Optional[int] = None  # in every notification (Production's carry it)
    renewals: int = 0
    now: datetime = field(init=False)
    expires: datetime = field(init=False)
    _revoked: Optional[datetime] = field(default=None, init=False)
    _auto_renew: int = field(default=1, init=False)
    sent: List[str] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        _time.milliseconds(self.start, "start")  # an aware datetime, or TypeError/ValueError now
        self.now = self.start
        self.expires = self.start + self.period

    @property
    def transaction_id(self) -> str:
        """The current period's transaction id (the original's for the first period)."""
        return self.originalTransactionId if self.renewals == 0 else f"{self.originalTransactionId}.{self.renewals}"

    def _transaction(self) -> str:
        purchased = self.expires - self.period
        return self.pki.transaction(
            bundleId=self.bundleId, productId=self.productId, transactionId=self.transaction_id,
            originalTransactionId=self.originalTransactionId, purchaseDate=purchased, originalPurchaseDate=self.start,
            expiresDate=self.expires, subscriptionGroupIdentifier=self.group, environment=self.environment,
            signedDate=self.now, appAccountToken=self.appAccountToken,
            transactionReason="PURCHASE" if self.renewals == 0 else "RENEWAL",
            webOrderLineItemId=f"{self.originalTransactionId}{self.renewals:04d}",
            revocationDate=self._revoked, revocationReason=0 if self._revoked else None,
            price=self.price, currency=self.currency)

    def _renewal(self, **fields: Any) -> str:
        return self.pki.renewal_info(originalTransactionId=self.originalTransactionId, productId=self.productId,
                                     signedDate=self.now, environment=self.environment, autoRenewStatus=self._auto_renew,
                                     recentSubscriptionStartDate=self.start, renewalDate=self.expires, **fields)

    def _send(self, kind: str, subtype: Optional[str], status: int, **renewal: Any) -> str:
        signed = self.pki.notification(kind, subtype, bundleId=self.bundleId, environment=self.environment,
                                       signedTransactionInfo=self._transaction(), signedRenewalInfo=self._renewal(**renewal),
                                       signedDate=self.now, status=status, appAppleId=self.appAppleId)
        self.sent.append(signed)
        return signed

    def subscribe(self) -> str:
        """SUBSCRIBED / INITIAL_BUY at :attr:`start`."""
        return self._send("SUBSCRIBED", "INITIAL_BUY", 1)

    def renew(self) -> str:
        """DID_RENEW at the end of the period: a new transaction for the next period."""
        self.now = self.expires
        self.renewals += 1
        self.expires = self.now + self.period
        return self._send("DID_RENEW", None, 1)

    def fail_to_renew(self, grace: Optional[timedelta] = None) -> str:
        """DID_FAIL_TO_RENEW at the end of the period: billing retry, with Apple's billing
        grace period of ``grace`` (subtype GRACE_PERIOD) when given."""
        self.now = self.expires
        if grace is None:
            return self._send("DID_FAIL_TO_RENEW", None, 3, isInBillingRetryPeriod=True)
        return self._send("DID_FAIL_TO_RENEW", "GRACE_PERIOD", 4, isInBillingRetryPeriod=True,
                          gracePeriodExpiresDate=self.now + grace)

    def recover(self, after: timedelta = timedelta(days=1)) -> str:
        """DID_RENEW / BILLING_RECOVERY ``after`` the failed renewal: a new period from then."""
        self.now = self.now + after
        self.renewals += 1
        self.expires = self.now + self.period
        return self._send("DID_RENEW", "BILLING_RECOVERY", 1)

    def disable_auto_renew(self, after: timedelta = timedelta(days=1)) -> str:
        """DID_CHANGE_RENEWAL_STATUS / AUTO_RENEW_DISABLED: the period still runs to its end."""
        self.now = self.now + after
        self._auto_renew = 0
        return self._send("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", 1)

    def expire(self, subtype: str = "VOLUNTARY") -> str:
        """EXPIRED at the end of the period (subtype VOLUNTARY, BILLING_RETRY, PRICE_INCREASE, …)."""
        self.now = max(self.now, self.expires)
        self._auto_renew = 0
        return self._send("EXPIRED", subtype, 2, expirationIntent=1 if subtype == "VOLUNTARY" else 2)

    def refund(self, after: timedelta = timedelta(days=3)) -> str:
        """REFUND ``after`` the current period's purchase: the transaction is revoked."""
        self.now = self.expires - self.period + after
        self._revoked = self.now
        return self._send("REFUND", None, 5)
