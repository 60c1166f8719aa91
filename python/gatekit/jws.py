"""StoreKit 2 / App Store Server signed data (JWS): verify, then decode into typed objects.

Field names are Apple's (the JSON member names, as in Apple's app-store-server-library
models), so code written against Apple's ``SignedDataVerifier`` reads the same. Dates are
Unix milliseconds as ``int`` (Xcode's fractional milliseconds are truncated; the exact text
is in ``raw``). ``raw`` is the whole decoded payload, unknown members included.

    verifier = SignedDataVerifier("com.example.app", "Production", app_apple_id=1234)
    notification = verifier.verify_notification(signed_payload)
    if notification.data and notification.data.transactionInfo:
        print(notification.data.transactionInfo.productId)
"""
from __future__ import annotations

import ctypes
from datetime import datetime, timezone
import json
from dataclasses import dataclass, field, fields
from typing import Any, Callable, ClassVar, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Tuple, Type, TypeVar, Union

from . import _bindings, _native
from . import _time
from ._time import Instant
from .apple_enums import (AutoRenewStatus, Environment, ExpirationIntent, InAppOwnershipType, NotificationTypeV2,
                          OfferDiscountType, OfferType, PriceIncreaseStatus, PurchasePlatform, RevocationReason,
                          RevocationType, Status, Subtype, TransactionReason)
from .apple_enums import Type as PurchaseType
from .apple_enums import member, raw_name
from ._structs import Anchor, JWSOptions, Signed, anchor_der, signed_text as _text
from .errors import GateKitError, check, register
from ._named_enum import NamedIntEnum

__all__ = ["JWSAppTransaction", "EJWS_ALGORITHM", "EJWS_APP_APPLE_ID", "EJWS_BUNDLE_ID",
    "EJWS_CERTIFICATE", "EJWS_CERT_TIME", "EJWS_CHAIN_LENGTH", "EJWS_ENVIRONMENT",
    "EJWS_INTERMEDIATE_OID", "EJWS_LEAF_OID", "EJWS_MALFORMED", "EJWS_PAYLOAD_FIELD",
    "EJWS_SIGNATURE", "EJWS_TEST_SIGNED", "EJWS_UNTRUSTED", "ENVIRONMENTS", "KINDS",
    "NotificationExternalPurchaseToken", "IdentityError", "JWSRenewalInfo", "JWSTransaction",
    "NotificationAppData", "NotificationData", "NotificationSummary", "OPTIONS_VERSION",
    "RealtimeRequest", "JWSNotification", "SignatureError", "Signed", "SignedDataError", "SignedDataVerifier", "VerificationStatus",
    "NotificationSubject", "TEST_PRODUCTION", "UNSIGNED_LOCAL", "notification_subject", "verify_chain"]

# Signed-data error codes (include/gatekit.h, -300 … -399).
EJWS_MALFORMED = _bindings.GATEKIT_EJWS_MALFORMED
EJWS_ALGORITHM = _bindings.GATEKIT_EJWS_ALGORITHM
EJWS_CHAIN_LENGTH = _bindings.GATEKIT_EJWS_CHAIN_LENGTH
EJWS_UNTRUSTED = _bindings.GATEKIT_EJWS_UNTRUSTED
EJWS_LEAF_OID = _bindings.GATEKIT_EJWS_LEAF_OID
EJWS_INTERMEDIATE_OID = _bindings.GATEKIT_EJWS_INTERMEDIATE_OID
EJWS_CERT_TIME = _bindings.GATEKIT_EJWS_CERT_TIME
EJWS_SIGNATURE = _bindings.GATEKIT_EJWS_SIGNATURE
EJWS_BUNDLE_ID = _bindings.GATEKIT_EJWS_BUNDLE_ID
EJWS_APP_APPLE_ID = _bindings.GATEKIT_EJWS_APP_APPLE_ID
EJWS_ENVIRONMENT = _bindings.GATEKIT_EJWS_ENVIRONMENT
EJWS_TEST_SIGNED = _bindings.GATEKIT_EJWS_TEST_SIGNED
EJWS_CERTIFICATE = _bindings.GATEKIT_EJWS_CERTIFICATE
EJWS_PAYLOAD_FIELD = _bindings.GATEKIT_EJWS_PAYLOAD_FIELD

ENVIRONMENTS = ("Production", "Sandbox", "Xcode", "LocalTesting")


class SignedDataError(GateKitError):
    """Signed data that failed verification; ``code`` says which check (EJWS_*), ``status``
    the same in Apple's terms (so ``except VerificationException as e: e.status`` works)."""

    @property
    def status(self) -> "VerificationStatus":
        return _status_of(self.code)

    def __str__(self) -> str:
        # Apple's VerificationException says "Verification failed with status <NAME>".
        return f"Verification failed with status {self.status.name}: {super().__str__()}"


class VerificationStatus(NamedIntEnum):
    """Apple's ``VerificationStatus``: what ``SignedDataError.status`` says for Apple's callers."""
    OK = 0
    VERIFICATION_FAILURE = 1
    INVALID_APP_IDENTIFIER = 2
    INVALID_CERTIFICATE = 3
    INVALID_CHAIN_LENGTH = 4
    INVALID_CHAIN = 5
    INVALID_ENVIRONMENT = 6
    RETRYABLE_VERIFICATION_FAILURE = 7


def _status_of(code: int) -> VerificationStatus:
    # As Apple's verifier: an untrusted root or an expired chain is VERIFICATION_FAILURE.
    return {EJWS_CHAIN_LENGTH: VerificationStatus.INVALID_CHAIN_LENGTH, EJWS_CERTIFICATE: VerificationStatus.INVALID_CERTIFICATE,
            EJWS_BUNDLE_ID: VerificationStatus.INVALID_APP_IDENTIFIER, EJWS_APP_APPLE_ID: VerificationStatus.INVALID_APP_IDENTIFIER,
            EJWS_ENVIRONMENT: VerificationStatus.INVALID_ENVIRONMENT}.get(code, VerificationStatus.VERIFICATION_FAILURE)


class SignatureError(SignedDataError):
    """Not signed by Apple (or the test anchor): shape, algorithm, chain, time or signature."""


class IdentityError(SignedDataError):
    """Genuine signed data for another app or environment (bundle id, app Apple id, environment)."""


for _code in (EJWS_MALFORMED, EJWS_ALGORITHM, EJWS_CHAIN_LENGTH, EJWS_UNTRUSTED, EJWS_LEAF_OID,
              EJWS_INTERMEDIATE_OID, EJWS_CERT_TIME, EJWS_SIGNATURE, EJWS_TEST_SIGNED, EJWS_CERTIFICATE):
    register(_code, SignatureError)
for _code in (EJWS_BUNDLE_ID, EJWS_APP_APPLE_ID, EJWS_ENVIRONMENT):
    register(_code, IdentityError)
register(EJWS_PAYLOAD_FIELD, SignedDataError)




OPTIONS_VERSION = _bindings.GATEKIT_JWS_OPTIONS_VERSION
#: Test only: accept data signed under the test anchor whose environment is Production.
TEST_PRODUCTION = _bindings.GATEKIT_JWS_TEST_PRODUCTION
UNSIGNED_LOCAL = _bindings.GATEKIT_JWS_UNSIGNED_LOCAL

_Options = JWSOptions
_OptionsP = ctypes.POINTER(_Options)
_options_init = _bindings.jws_options_init
_options_size = _bindings.jws_options_size
_verify_transaction = _bindings.jws_verify_transaction
_verify_renewal = _bindings.jws_verify_renewal_info
_verify_notification = _bindings.jws_verify_notification
_verify_app = _bindings.jws_verify_app_transaction
_verify_realtime = _bindings.jws_verify_realtime_request


_S = ctypes.POINTER(_bindings.gatekit_jws)
_verify = _bindings.jws_verify
_signed_json = _bindings.jws_json
_signed_identity = _bindings.jws_identity
_signed_is_test = _bindings.jws_is_test_signed
_signed_free = _bindings.jws_free
#: The kinds of signed data by the one name C's JSON, the tool and Python give each, with its
#: GATEKIT_JWS_* number.
KINDS: Dict[str, int] = {"notification": _bindings.GATEKIT_JWS_NOTIFICATION, "transaction": _bindings.GATEKIT_JWS_TRANSACTION,
                         "renewal-info": _bindings.GATEKIT_JWS_RENEWAL_INFO,
                         "app-transaction": _bindings.GATEKIT_JWS_APP_TRANSACTION,
                         "realtime-request": _bindings.GATEKIT_JWS_REALTIME_REQUEST}
_is_entitled = _bindings.jws_transaction_is_entitled
_payload_is_entitled = _bindings.jws_transaction_payload_is_entitled
_verify_chain = _bindings.jws_verify_chain
_notification_subject = _bindings.jws_notification_subject

if _options_size() != ctypes.sizeof(_Options):
    raise ImportError(f"gatekit_jws_options is {_options_size()} bytes in the library, "
                      f"{ctypes.sizeof(_Options)} in gatekit.jws: library and package disagree")


# ---- decoded payloads -------------------------------------------------------------------------

def _int(value: Any) -> Optional[int]:
    """An integer member; fractional values (Xcode's milliseconds) are truncated toward zero."""
    if value is None or isinstance(value, bool):
        return None
    return int(value)


T = TypeVar("T", bound="_Payload")


@dataclass(frozen=True)
class _Payload:
    #: The decoded JSON object exactly as signed (every member, unknown ones included),
    #: without GateKit's own "gatekit" member (read into ``identity`` and ``test_signed``).
    raw: Dict[str, Any] = field(repr=False, compare=False)
    #: The replay identity: SHA-256 of the signed payload bytes (64 hex digits); None for a
    #: payload that was not verified by GateKit. Hosts dedupe signed data on it.
    identity: Optional[str] = field(default=None, compare=False)
    #: True when accepted under the caller's test anchor: never App Store data.
    test_signed: bool = field(default=False, compare=False)

    #: Members read as integers (dates in ms, counts, integer enumerations).
    _ints: ClassVar[FrozenSet[str]] = frozenset()
    #: Members holding nested objects: name -> converter.
    _nested: ClassVar[Dict[str, Callable[[Dict[str, Any]], Any]]] = {}
    #: Members that are Apple's enumerations: name -> enum (the value as sent is in raw<Name>).
    _enums: ClassVar[Dict[str, Any]] = {}

    @classmethod
    def from_json(cls: Type[T], raw: Dict[str, Any]) -> T:
        names = cls.__dict__.get("_names")
        if names is None:   # computed once per class
            names = frozenset(f.name for f in fields(cls)) - {"raw", "identity", "test_signed"}
            setattr(cls, "_names", names)
        marking = raw.get("gatekit")
        if isinstance(marking, dict):
            raw = {k: v for k, v in raw.items() if k != "gatekit"}
        values: Dict[str, Any] = {"raw": raw}
        if isinstance(marking, dict):
            values["identity"] = marking.get("identity")
            values["test_signed"] = marking.get("testSigned") is True
        for name, value in raw.items():
            if name not in names:
                continue
            if name in cls._ints:
                value = _int(value)
            elif name in cls._nested and isinstance(value, dict):
                value = cls._nested[name](value)
            if name in cls._enums and value is not None:
                values[raw_name(name)] = value
                value = member(cls._enums[name], value)
            values[name] = value
        return cls(**values)


@dataclass(frozen=True)
class JWSTransaction(_Payload):
    """JWSTransactionDecodedPayload: a purchase, renewal, refund or revocation."""
    originalTransactionId: Optional[str] = None
    transactionId: Optional[str] = None
    webOrderLineItemId: Optional[str] = None
    bundleId: Optional[str] = None
    productId: Optional[str] = None
    subscriptionGroupIdentifier: Optional[str] = None
    purchaseDate: Optional[int] = None
    originalPurchaseDate: Optional[int] = None
    expiresDate: Optional[int] = None
    quantity: Optional[int] = None
    type: Optional[PurchaseType] = None
    rawType: Optional[str] = None
    appAccountToken: Optional[str] = None
    inAppOwnershipType: Optional[InAppOwnershipType] = None
    rawInAppOwnershipType: Optional[str] = None
    signedDate: Optional[int] = None
    revocationReason: Optional[RevocationReason] = None
    rawRevocationReason: Optional[int] = None
    revocationDate: Optional[int] = None
    revocationType: Optional[RevocationType] = None
    rawRevocationType: Optional[str] = None
    revocationPercentage: Optional[int] = None
    isUpgraded: Optional[bool] = None
    offerType: Optional[OfferType] = None
    rawOfferType: Optional[int] = None
    offerIdentifier: Optional[str] = None
    offerDiscountType: Optional[OfferDiscountType] = None
    rawOfferDiscountType: Optional[str] = None
    offerPeriod: Optional[str] = None
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    storefront: Optional[str] = None
    storefrontId: Optional[str] = None
    transactionReason: Optional[TransactionReason] = None
    rawTransactionReason: Optional[str] = None
    price: Optional[int] = None
    currency: Optional[str] = None
    appTransactionId: Optional[str] = None
    billingPlanType: Optional[str] = None
    advancedCommerceInfo: Optional[Dict[str, Any]] = None
    commitmentInfo: Optional[Dict[str, Any]] = None

    _ints = frozenset({"purchaseDate", "originalPurchaseDate", "expiresDate", "quantity", "signedDate",
                       "revocationReason", "revocationDate", "revocationPercentage", "offerType", "price"})

    def is_entitled(self, at: Instant = None) -> bool:
        """The library's rule (jws_transaction_payload_is_entitled) on this decoded transaction
        (``raw``, as signed), at the aware datetime ``at`` (default now). It verifies nothing:
        the transaction was verified when it was decoded."""
        # raw is the payload as signed (fractional dates included): the C rule reads it as the
        # verifier did, so the answer cannot drift from jws_transaction_is_entitled's.
        payload = json.dumps(self.raw, separators=(",", ":")).encode("utf-8")
        return check(_payload_is_entitled(payload, None, _time.milliseconds(at, "at") or 0)) == 1
    _enums = {"type": PurchaseType, "inAppOwnershipType": InAppOwnershipType, "revocationReason": RevocationReason,
               "revocationType": RevocationType, "offerType": OfferType, "offerDiscountType": OfferDiscountType,
               "environment": Environment, "transactionReason": TransactionReason}



@dataclass(frozen=True)
class JWSRenewalInfo(_Payload):
    """JWSRenewalInfoDecodedPayload: the renewal state of an auto-renewable subscription."""
    expirationIntent: Optional[ExpirationIntent] = None
    rawExpirationIntent: Optional[int] = None
    originalTransactionId: Optional[str] = None
    autoRenewProductId: Optional[str] = None
    productId: Optional[str] = None
    autoRenewStatus: Optional[AutoRenewStatus] = None
    rawAutoRenewStatus: Optional[int] = None
    isInBillingRetryPeriod: Optional[bool] = None
    priceIncreaseStatus: Optional[PriceIncreaseStatus] = None
    rawPriceIncreaseStatus: Optional[int] = None
    gracePeriodExpiresDate: Optional[int] = None
    offerType: Optional[OfferType] = None
    rawOfferType: Optional[int] = None
    offerIdentifier: Optional[str] = None
    offerDiscountType: Optional[OfferDiscountType] = None
    rawOfferDiscountType: Optional[str] = None
    offerPeriod: Optional[str] = None
    signedDate: Optional[int] = None
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    recentSubscriptionStartDate: Optional[int] = None
    renewalDate: Optional[int] = None
    renewalPrice: Optional[int] = None
    currency: Optional[str] = None
    eligibleWinBackOfferIds: Optional[List[str]] = None
    appAccountToken: Optional[str] = None
    appTransactionId: Optional[str] = None
    renewalBillingPlanType: Optional[str] = None
    advancedCommerceInfo: Optional[Dict[str, Any]] = None
    commitmentInfo: Optional[Dict[str, Any]] = None

    _ints = frozenset({"expirationIntent", "autoRenewStatus", "priceIncreaseStatus", "gracePeriodExpiresDate",
                       "offerType", "signedDate", "recentSubscriptionStartDate", "renewalDate", "renewalPrice"})
    _enums = {"expirationIntent": ExpirationIntent, "autoRenewStatus": AutoRenewStatus,
               "priceIncreaseStatus": PriceIncreaseStatus, "offerType": OfferType,
               "offerDiscountType": OfferDiscountType, "environment": Environment}



@dataclass(frozen=True)
class JWSAppTransaction(_Payload):
    """AppTransaction, verified: the app's own purchase (environment in ``receiptType``)."""
    receiptType: Optional[Environment] = None
    rawReceiptType: Optional[str] = None
    appAppleId: Optional[int] = None
    bundleId: Optional[str] = None
    applicationVersion: Optional[str] = None
    versionExternalIdentifier: Optional[int] = None
    receiptCreationDate: Optional[int] = None
    originalPurchaseDate: Optional[int] = None
    originalApplicationVersion: Optional[str] = None
    deviceVerification: Optional[str] = None
    deviceVerificationNonce: Optional[str] = None
    preorderDate: Optional[int] = None
    appTransactionId: Optional[str] = None
    originalPlatform: Optional[PurchasePlatform] = None
    rawOriginalPlatform: Optional[str] = None

    _ints = frozenset({"appAppleId", "versionExternalIdentifier", "receiptCreationDate", "originalPurchaseDate",
                       "preorderDate"})
    _enums = {"receiptType": Environment, "originalPlatform": PurchasePlatform}



@dataclass(frozen=True)
class RealtimeRequest(_Payload):
    """DecodedRealtimeRequestBody: a Retention Messaging API request."""
    originalTransactionId: Optional[str] = None
    appAppleId: Optional[int] = None
    productId: Optional[str] = None
    userLocale: Optional[str] = None
    requestIdentifier: Optional[str] = None
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    signedDate: Optional[int] = None

    _ints = frozenset({"appAppleId", "signedDate"})
    _enums = {"environment": Environment}



@dataclass(frozen=True)
class NotificationData(_Payload):
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    appAppleId: Optional[int] = None
    bundleId: Optional[str] = None
    bundleVersion: Optional[str] = None
    signedTransactionInfo: Optional[str] = None
    signedRenewalInfo: Optional[str] = None
    status: Optional[Status] = None
    rawStatus: Optional[int] = None
    consumptionRequestReason: Optional[str] = None
    #: signedTransactionInfo, verified and decoded by the library.
    transactionInfo: Optional[JWSTransaction] = None
    #: signedRenewalInfo, verified and decoded by the library.
    renewalInfo: Optional[JWSRenewalInfo] = None

    _ints = frozenset({"appAppleId", "status"})
    _nested = {"transactionInfo": JWSTransaction.from_json, "renewalInfo": JWSRenewalInfo.from_json}
    _enums = {"environment": Environment, "status": Status}



@dataclass(frozen=True)
class NotificationSummary(_Payload):
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    appAppleId: Optional[int] = None
    bundleId: Optional[str] = None
    productId: Optional[str] = None
    requestIdentifier: Optional[str] = None
    storefrontCountryCodes: Optional[List[str]] = None
    succeededCount: Optional[int] = None
    failedCount: Optional[int] = None

    _ints = frozenset({"appAppleId", "succeededCount", "failedCount"})
    _enums = {"environment": Environment}



@dataclass(frozen=True)
class NotificationExternalPurchaseToken(_Payload):
    externalPurchaseId: Optional[str] = None
    tokenCreationDate: Optional[int] = None
    appAppleId: Optional[int] = None
    bundleId: Optional[str] = None

    _ints = frozenset({"tokenCreationDate", "appAppleId"})


@dataclass(frozen=True)
class NotificationAppData(_Payload):
    appAppleId: Optional[int] = None
    bundleId: Optional[str] = None
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    signedAppTransactionInfo: Optional[str] = None
    #: signedAppTransactionInfo, verified and decoded by the library.
    appTransactionInfo: Optional[JWSAppTransaction] = None

    _ints = frozenset({"appAppleId"})
    _nested = {"appTransactionInfo": JWSAppTransaction.from_json}
    _enums = {"environment": Environment}



@dataclass(frozen=True)
class JWSNotification(_Payload):
    """ResponseBodyV2DecodedPayload, verified: an App Store Server Notification V2."""
    notificationType: Optional[NotificationTypeV2] = None
    rawNotificationType: Optional[str] = None
    subtype: Optional[Subtype] = None
    rawSubtype: Optional[str] = None
    notificationUUID: Optional[str] = None
    data: Optional[NotificationData] = None
    summary: Optional[NotificationSummary] = None
    externalPurchaseToken: Optional[NotificationExternalPurchaseToken] = None
    appData: Optional[NotificationAppData] = None
    version: Optional[str] = None
    signedDate: Optional[int] = None

    _ints = frozenset({"signedDate"})
    _nested = {"data": NotificationData.from_json, "summary": NotificationSummary.from_json,
               "externalPurchaseToken": NotificationExternalPurchaseToken.from_json, "appData": NotificationAppData.from_json}
    _enums = {"notificationType": NotificationTypeV2, "subtype": Subtype}



# ---- the verifier -----------------------------------------------------------------------------



class SignedDataVerifier:
    """What the caller expects of signed data; the methods verify and decode.

    ``environment``: "Production" (requires ``app_apple_id``), "Sandbox", "Xcode" or
    "LocalTesting". ``test_anchor``: Apple's test root or the StoreKit Testing in Xcode
    certificate — DER or PEM bytes, or its file's path — test mode, trusted instead of Apple
    Root CA - G3.
    Verification is offline: no OCSP. Instances are immutable and safe to share between threads.
    """

    def __init__(self, bundle_id: str, environment: str, app_apple_id: Optional[int] = None,
                 test_anchor: Optional[Anchor] = None, *apples_order: Any, test_production: bool = False,
                 unsigned_local: bool = False) -> None:
        """``test_production`` (test only): accept test-signed data whose environment is
        Production; without it such data raises SignatureError (EJWS_TEST_SIGNED).
        ``unsigned_local`` (Xcode and LocalTesting only, no test anchor): read data without
        checking its signature, as Apple's verifier does in those environments; bundle id and
        environment are still checked, and the result is marked test-signed."""
        # Apple's (root_certificates, enable_online_checks, environment, bundle_id, app_apple_id).
        if apples_order or isinstance(bundle_id, (list, tuple)) or isinstance(environment, bool):
            raise TypeError("SignedDataVerifier(root_certificates, enable_online_checks, environment, bundle_id, "
                            "app_apple_id) is Apple's signature: use gatekit.apple.SignedDataVerifier for it. "
                            "gatekit.jws.SignedDataVerifier takes (bundle_id, environment, app_apple_id=None, "
                            "test_anchor=None) and always trusts Apple's pinned root")
        if environment not in ENVIRONMENTS:
            raise ValueError(f"environment must be one of {', '.join(ENVIRONMENTS)}, not {environment!r}")
        if environment == "Production" and not app_apple_id:
            raise ValueError("app_apple_id is required when the environment is Production: Production data is checked "
                             "against the app's Apple ID (App Store Connect, App Information)")
        if unsigned_local and (environment not in ("Xcode", "LocalTesting") or test_anchor is not None):
            raise ValueError("unsigned_local reads Xcode and LocalTesting data only, and without a test anchor")
        self.bundle_id = bundle_id
        self.environment = environment
        self.app_apple_id = app_apple_id
        self.test_anchor = anchor_der(test_anchor)
        self.test_production = test_production
        self.unsigned_local = unsigned_local
        self._bundle = _native.to_c_string(bundle_id, "bundle_id")
        self._environment = environment.encode("ascii")
        self._default_options = self._make_options(None)

    def c_options(self, verify_time: Instant = None) -> JWSOptions:
        """The gatekit_jws_options these expectations make (for the package's other modules,
        which pass it to the library); read-only for the library, shared when verify_time is None."""
        if verify_time is None:
            return self._default_options   # read-only for the library: shared by all threads
        return self._make_options(verify_time)

    def _make_options(self, verify_time: Instant) -> _Options:
        o = _Options()
        check(_options_init(ctypes.byref(o), OPTIONS_VERSION))
        o.flags = (TEST_PRODUCTION if self.test_production else 0) | (UNSIGNED_LOCAL if self.unsigned_local else 0)
        o.bundle_id = self._bundle
        o.environment = self._environment
        o.app_apple_id = self.app_apple_id or 0
        o.verify_time = _time.seconds(verify_time, "verify_time")
        if self.test_anchor is not None:
            o.test_anchor_der = self.test_anchor
            o.test_anchor_len = len(self.test_anchor)
        return o

    def _json(self, function: Any, signed: Signed, verify_time: Instant) -> Dict[str, Any]:
        o = self.c_options(verify_time)
        out = ctypes.c_void_p()
        check(function(ctypes.byref(out), _text(signed), ctypes.byref(o)))
        payload: Dict[str, Any] = json.loads(_native.take_string(out))
        return payload

    def verify_transaction(self, signed: Signed, verify_time: Instant = None) -> JWSTransaction:
        """A signedTransaction (JWSTransaction). ``verify_time``: the aware datetime at which
        the certificates must be valid (default: the payload's signedDate)."""
        return JWSTransaction.from_json(self._json(_verify_transaction, signed, verify_time))

    def verify_renewal_info(self, signed: Signed, verify_time: Instant = None) -> JWSRenewalInfo:
        return JWSRenewalInfo.from_json(self._json(_verify_renewal, signed, verify_time))

    def verify_notification(self, signed: Signed, verify_time: Instant = None) -> JWSNotification:
        """An App Store Server Notification V2 ``signedPayload``; nested signed data is verified too."""
        return JWSNotification.from_json(self._json(_verify_notification, signed, verify_time))

    def verify_app_transaction(self, signed: Signed, verify_time: Instant = None) -> JWSAppTransaction:
        return JWSAppTransaction.from_json(self._json(_verify_app, signed, verify_time))

    def verify_realtime_request(self, signed: Signed, verify_time: Instant = None) -> RealtimeRequest:
        """A Retention Messaging realtime request (appAppleId in Production, environment)."""
        return RealtimeRequest.from_json(self._json(_verify_realtime, signed, verify_time))

    # Apple's method names (appstoreserverlibrary.signed_data_verifier.SignedDataVerifier).
    def verify_and_decode_signed_transaction(self, signed_transaction: Signed) -> JWSTransaction:
        return self.verify_transaction(signed_transaction)

    def verify_and_decode_renewal_info(self, signed_renewal_info: Signed) -> JWSRenewalInfo:
        return self.verify_renewal_info(signed_renewal_info)

    def verify_and_decode_notification(self, signed_payload: Signed) -> JWSNotification:
        return self.verify_notification(signed_payload)

    def verify_and_decode_app_transaction(self, signed_app_transaction: Signed) -> JWSAppTransaction:
        return self.verify_app_transaction(signed_app_transaction)

    def verify_and_decode_realtime_request(self, signed_payload: Signed) -> RealtimeRequest:
        return self.verify_realtime_request(signed_payload)

    def verify_json(self, kind: str, signed: Signed, verify_time: Instant = None) -> Dict[str, Any]:
        """The verified payload as a dict, for kind "transaction", "renewal-info", "notification", "realtime-request",
        "app-transaction", with GateKit's "gatekit" member ({"identity", "testSigned"})."""
        handle = self._verify(kind, signed, verify_time)
        try:
            result: Dict[str, Any] = json.loads(_signed_json(handle))
            return result
        finally:
            _signed_free(handle)

    def verified(self, kind: str, signed: Signed, verify_time: Instant = None) -> Tuple[str, bool]:
        """Verifies ``signed`` as ``kind`` (see verify_json) and returns its replay identity
        (64 hex digits) and whether it was accepted under the test anchor."""
        handle = self._verify(kind, signed, verify_time)
        try:
            return _signed_identity(handle).decode("ascii"), check(_signed_is_test(handle)) == 1
        finally:
            _signed_free(handle)

    def _verify(self, kind: str, signed: Signed, verify_time: Instant) -> Any:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        o = self.c_options(verify_time)
        handle = _S()
        check(_verify(ctypes.byref(handle), KINDS[kind], _text(signed), ctypes.byref(o)))
        return handle

    def is_entitled(self, signed_transaction: Signed, product_id: Optional[str] = None,
                    at: Instant = None, verify_time: Instant = None) -> bool:
        """Verifies a signed transaction and answers whether it entitles the user at the aware
        datetime ``at`` (default now) — revoked, upgraded, not yet purchased or expired: False."""
        o = self.c_options(verify_time)
        return check(_is_entitled(_text(signed_transaction), ctypes.byref(o),
                                  _native.to_c_string(product_id, "product_id"), _time.milliseconds(at, "at"))) == 1


def verify_chain(certificates: Sequence[str], test_anchor: Optional[Anchor] = None, verify_time: Instant = None) -> str:
    """Checks an x5c chain on its own (base64 DER certificates, leaf first) by the rules of
    signed data — Apple Root CA - G3, or ``test_anchor`` (DER) in test mode; Apple's OIDs;
    valid at ``verify_time`` (an aware datetime; default now) — and returns the leaf's public
    key as PEM. Failures raise SignatureError (``.status`` in Apple's terms)."""
    out = ctypes.c_void_p()
    anchor = anchor_der(test_anchor)
    check(_verify_chain(ctypes.byref(out), json.dumps(list(certificates)).encode("utf-8"), anchor,
                        len(anchor) if anchor is not None else 0, _time.seconds(verify_time, "verify_time")))
    return _native.take_string(out)


class NotificationSubject(NamedTuple):
    """The app and environment a notification is about (None where the payload has none)."""
    bundle_id: Optional[str]
    app_apple_id: Optional[int]
    environment: Optional[str]


def notification_subject(payload: Union[str, bytes, Dict[str, Any]]) -> NotificationSubject:
    """Which app and environment a notification's payload (JSON text or a dict) is about, as
    Apple's verifier takes them: from ``data``, else ``summary``, else
    ``externalPurchaseToken`` (Sandbox when its externalPurchaseId starts with "SANDBOX", else
    Production), else ``appData``. Reading it before verification to choose which app's
    verifier to use is fine: that verifier then checks it."""
    text = json.dumps(payload) if isinstance(payload, dict) else payload
    out = ctypes.c_void_p()
    check(_notification_subject(ctypes.byref(out), _native.to_c_string(text, "payload")))
    subject = json.loads(_native.take_string(out))
    return NotificationSubject(subject["bundleId"], subject["appAppleId"], subject["environment"])



#: The names 0.1 gave the verified results; gatekit.payload_models (Apple's library's models)
#: uses the same names for other classes, so each now has one meaning.
_RENAMED = {"AppTransaction": "JWSAppTransaction", "ResponseBodyV2": "JWSNotification",
            "ExternalPurchaseToken": "NotificationExternalPurchaseToken"}


def __getattr__(name: str) -> Any:
    if name in _RENAMED:
        import warnings
        warnings.warn(f"gatekit.jws.{name} is now gatekit.jws.{_RENAMED[name]} (Apple's models use the old name: "
                      f"gatekit.apple.models.{name})", DeprecationWarning, stacklevel=2)
        return globals()[_RENAMED[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
