"""Google Play Developer API resources as typed, immutable models (Android Publisher v3,
developers.google.com/android-publisher/api-ref/rest), with Google's member names in
snake_case: timestamps are aware ``datetime``\\ s, money is :class:`Money` (exact units and
nanos, ``amount`` a ``Decimal``), Google's enumerations are enums whose unknown values are
kept (``member.known`` is False) instead of failing, and every member GateKit does not know
is kept in ``unknown`` — a newer answer parses and loses nothing. ``raw`` is the JSON object
as Google sent it.
"""
from __future__ import annotations

import dataclasses
import datetime
import enum
import json
from decimal import Decimal
from typing import Any, Callable, Dict, Optional, Tuple, Type, TypeVar

from . import _bindings
from ._enums import PlayResource
from .errors import check

__all__ = [
    "AcknowledgementState", "AutoRenewingPlan", "CanceledStateContext", "ConsumptionState", "ExternalAccountIdentifiers",
    "InstallmentPlan", "ItemReplacement", "Money", "OfferDetails", "OfferPhase", "PlayOrder", "OrderState", "PausedStateContext",
    "PlayModel", "PlayModelError", "PriceChangeDetails", "ProductPurchase", "ProductPurchaseV2", "ProductPurchaseState",
    "ProductPurchaseType", "SubscriptionPurchaseLineItem", "SubscriptionPurchaseV2", "SubscriptionState", "VoidedPurchase",
    "VoidedPurchasesPage", "VoidedReason", "VoidedSource",
]


class PlayModelError(ValueError):
    """JSON that does not have the resource's shape (a member of the wrong type)."""


class _OpenEnum(str, enum.Enum):
    """A string enumeration that keeps a value newer than this package as a pseudo-member."""

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = value
        member._value_ = value
        return member

    @property
    def known(self) -> bool:
        return self._name_ in type(self).__members__


class _OpenIntEnum(enum.IntEnum):
    """An integer enumeration that keeps an unknown number as a pseudo-member."""

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        member = int.__new__(cls, value)
        member._name_ = f"UNKNOWN_{value}"
        member._value_ = value
        return member

    @property
    def known(self) -> bool:
        return self._name_ in type(self).__members__


class SubscriptionState(_OpenEnum):
    UNSPECIFIED = "SUBSCRIPTION_STATE_UNSPECIFIED"
    PENDING = "SUBSCRIPTION_STATE_PENDING"
    ACTIVE = "SUBSCRIPTION_STATE_ACTIVE"
    PAUSED = "SUBSCRIPTION_STATE_PAUSED"
    IN_GRACE_PERIOD = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
    ON_HOLD = "SUBSCRIPTION_STATE_ON_HOLD"
    CANCELED = "SUBSCRIPTION_STATE_CANCELED"
    EXPIRED = "SUBSCRIPTION_STATE_EXPIRED"
    PENDING_PURCHASE_CANCELED = "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"


class AcknowledgementState(_OpenEnum):
    UNSPECIFIED = "ACKNOWLEDGEMENT_STATE_UNSPECIFIED"
    PENDING = "ACKNOWLEDGEMENT_STATE_PENDING"
    ACKNOWLEDGED = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"


class OrderState(_OpenEnum):
    PENDING = "PENDING"
    PROCESSED = "PROCESSED"
    CANCELED = "CANCELED"
    PENDING_REFUND = "PENDING_REFUND"
    PARTIALLY_REFUNDED = "PARTIALLY_REFUNDED"
    REFUNDED = "REFUNDED"


class ProductPurchaseState(_OpenIntEnum):
    PURCHASED = 0
    CANCELED = 1
    PENDING = 2


class ConsumptionState(_OpenIntEnum):
    YET_TO_BE_CONSUMED = 0
    CONSUMED = 1


class ProductPurchaseType(_OpenIntEnum):
    """Set only for a purchase outside the standard flow."""
    TEST = 0
    PROMO = 1
    REWARDED = 2


class VoidedSource(_OpenIntEnum):
    USER = 0
    DEVELOPER = 1
    GOOGLE = 2


class VoidedReason(_OpenIntEnum):
    OTHER = 0
    REMORSE = 1
    NOT_RECEIVED = 2
    DEFECTIVE = 3
    ACCIDENTAL_PURCHASE = 4
    FRAUD = 5
    FRIENDLY_FRAUD = 6
    CHARGEBACK = 7
    UNACKNOWLEDGED_PURCHASE = 8


# ---- converters: JSON value -> Python value, strict about types ----

Convert = Callable[[Any], Any]


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise PlayModelError(f"expected a string, got {type(value).__name__}")
    return value


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise PlayModelError(f"expected true or false, got {type(value).__name__}")
    return value


def _integer(value: Any) -> int:
    """An int64: Google writes them as JSON strings; a number is taken too."""
    if isinstance(value, bool):
        raise PlayModelError("expected an integer, got a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    raise PlayModelError(f"expected an integer (or its string), got {value!r}")


def _timestamp(value: Any) -> datetime.datetime:
    """RFC 3339 in UTC with 0 to 9 fractional digits ("2024-05-01T10:00:00.123456789Z")."""
    text = _string(value)
    if not text.endswith("Z"):
        raise PlayModelError(f"expected an RFC 3339 UTC timestamp, got {text!r}")
    main, _, fraction = text[:-1].partition(".")
    if fraction and (not fraction.isdigit() or len(fraction) > 9):
        raise PlayModelError(f"expected an RFC 3339 UTC timestamp, got {text!r}")
    try:
        moment = datetime.datetime.strptime(main, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        raise PlayModelError(f"expected an RFC 3339 UTC timestamp, got {text!r}") from None
    return moment + datetime.timedelta(microseconds=int((fraction + "000000")[:6])) if fraction else moment


def _millis(value: Any) -> datetime.datetime:
    """v1 resources' "...Millis" members: milliseconds since 1970 (as a string)."""
    ms = _integer(value)
    try:
        return datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(milliseconds=ms)
    except OverflowError:
        raise PlayModelError(f"expected milliseconds since 1970 within years 1 to 9999, got {ms}") from None


def _strings(value: Any) -> Tuple[str, ...]:
    if not isinstance(value, list):
        raise PlayModelError(f"expected an array, got {type(value).__name__}")
    return tuple(_string(v) for v in value)


def _object(value: Any) -> Dict[str, Any]:
    if not isinstance(value, dict):
        raise PlayModelError(f"expected an object, got {type(value).__name__}")
    return value


def _enum(cls: Type[enum.Enum]) -> Convert:
    def convert(value: Any) -> Any:
        numeric = issubclass(cls, int)
        if isinstance(value, bool) or not isinstance(value, (str, int) if numeric else str):
            raise PlayModelError(f"expected a {cls.__name__} value ({'a number' if numeric else 'a string'}), got {value!r}")
        try:
            return cls(_integer(value) if numeric else value)
        except ValueError:
            raise PlayModelError(f"expected a {cls.__name__} value, got {value!r}") from None
    return convert


def _model(cls: "Type[M]") -> Convert:
    return cls.from_json


def _models(cls: "Type[M]") -> Convert:
    def convert(value: Any) -> Tuple[Any, ...]:
        if not isinstance(value, list):
            raise PlayModelError(f"expected an array, got {type(value).__name__}")
        return tuple(cls.from_json(v) for v in value)
    return convert


def _present(value: Any) -> bool:
    """Members whose presence is the fact (``testPurchase: {}``)."""
    _object(value)
    return True


def member(json_name: str, convert: Convert = _string) -> Any:
    """A model attribute read from ``json_name`` by ``convert`` (None when absent)."""
    return dataclasses.field(default=None, metadata={"json": json_name, "convert": convert})


M = TypeVar("M", bound="PlayModel")


@dataclasses.dataclass(frozen=True)
class PlayModel:
    """What every resource shares: members GateKit does not know, and the object as sent."""
    unknown: Dict[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)
    raw: Dict[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def _member_table(cls) -> Dict[str, Tuple[str, Convert]]:
        table = cls.__dict__.get("_member_cache")
        if table is None:
            table = {f.metadata["json"]: (f.name, f.metadata["convert"]) for f in dataclasses.fields(cls) if "json" in f.metadata}
            setattr(cls, "_member_cache", table)
        return table

    @classmethod
    def from_json(cls: Type[M], data: Any) -> M:
        document = _object(data)
        values: Dict[str, Any] = {}
        unknown: Dict[str, Any] = {}
        table = cls._member_table()
        for name, value in document.items():
            spec = table.get(name)
            if spec is None:
                unknown[name] = value
                continue
            if value is None:
                continue
            try:
                values[spec[0]] = spec[1](value)
            except PlayModelError as error:
                raise PlayModelError(f"{cls.__name__}.{name}: {error}") from None
        return cls(unknown=unknown, raw=document, **values)


@dataclasses.dataclass(frozen=True)
class Money(PlayModel):
    """An amount in a currency, exactly: ``units`` whole units and ``nanos`` billionths (the
    same sign). ``amount`` is their sum as a Decimal."""
    currency_code: Optional[str] = member("currencyCode")
    units: Optional[int] = member("units", _integer)
    nanos: Optional[int] = member("nanos", _integer)

    @property
    def amount(self) -> Decimal:
        return Decimal(self.units or 0) + Decimal(self.nanos or 0).scaleb(-9)


@dataclasses.dataclass(frozen=True)
class PriceChangeDetails(PlayModel):
    new_price: Optional[Money] = member("newPrice", _model(Money))
    price_change_mode: Optional[str] = member("priceChangeMode")
    price_change_state: Optional[str] = member("priceChangeState")
    expected_new_price_charge_time: Optional[datetime.datetime] = member("expectedNewPriceChargeTime", _timestamp)


@dataclasses.dataclass(frozen=True)
class PriceStepUpConsentDetails(PlayModel):
    consent_deadline_time: Optional[datetime.datetime] = member("consentDeadlineTime", _timestamp)
    new_price: Optional[Money] = member("newPrice", _model(Money))
    state: Optional[str] = member("state")


@dataclasses.dataclass(frozen=True)
class InstallmentPlan(PlayModel):
    initial_committed_payments_count: Optional[int] = member("initialCommittedPaymentsCount", _integer)
    remaining_committed_payments_count: Optional[int] = member("remainingCommittedPaymentsCount", _integer)
    subsequent_committed_payments_count: Optional[int] = member("subsequentCommittedPaymentsCount", _integer)
    pending_cancellation: Optional[bool] = member("pendingCancellation", _present)


@dataclasses.dataclass(frozen=True)
class AutoRenewingPlan(PlayModel):
    auto_renew_enabled: Optional[bool] = member("autoRenewEnabled", _boolean)
    recurring_price: Optional[Money] = member("recurringPrice", _model(Money))
    price_change_details: Optional[PriceChangeDetails] = member("priceChangeDetails", _model(PriceChangeDetails))
    price_step_up_consent_details: Optional[PriceStepUpConsentDetails] = member("priceStepUpConsentDetails", _model(PriceStepUpConsentDetails))
    installment_details: Optional[InstallmentPlan] = member("installmentDetails", _model(InstallmentPlan))


@dataclasses.dataclass(frozen=True)
class PrepaidPlan(PlayModel):
    allow_extend_after_time: Optional[datetime.datetime] = member("allowExtendAfterTime", _timestamp)


@dataclasses.dataclass(frozen=True)
class OfferDetails(PlayModel):
    base_plan_id: Optional[str] = member("basePlanId")
    offer_id: Optional[str] = member("offerId")
    offer_tags: Optional[Tuple[str, ...]] = member("offerTags", _strings)


@dataclasses.dataclass(frozen=True)
class OfferPhase(PlayModel):
    """The current phase: exactly one of the four is set."""
    base_price: Optional[bool] = member("basePrice", _present)
    free_trial: Optional[bool] = member("freeTrial", _present)
    introductory_price: Optional[bool] = member("introductoryPrice", _present)
    proration_period: Optional[Dict[str, Any]] = member("prorationPeriod", _object)


@dataclasses.dataclass(frozen=True)
class ItemReplacement(PlayModel):
    product_id: Optional[str] = member("productId")
    base_plan_id: Optional[str] = member("basePlanId")
    offer_id: Optional[str] = member("offerId")
    replacement_mode: Optional[str] = member("replacementMode")


@dataclasses.dataclass(frozen=True)
class SubscriptionPurchaseLineItem(PlayModel):
    product_id: Optional[str] = member("productId")
    expiry_time: Optional[datetime.datetime] = member("expiryTime", _timestamp)
    auto_renewing_plan: Optional[AutoRenewingPlan] = member("autoRenewingPlan", _model(AutoRenewingPlan))
    prepaid_plan: Optional[PrepaidPlan] = member("prepaidPlan", _model(PrepaidPlan))
    offer_details: Optional[OfferDetails] = member("offerDetails", _model(OfferDetails))
    offer_phase: Optional[OfferPhase] = member("offerPhase", _model(OfferPhase))
    latest_successful_order_id: Optional[str] = member("latestSuccessfulOrderId")
    deferred_item_replacement: Optional[Dict[str, Any]] = member("deferredItemReplacement", _object)
    deferred_item_removal: Optional[bool] = member("deferredItemRemoval", _present)
    item_replacement: Optional[ItemReplacement] = member("itemReplacement", _model(ItemReplacement))
    signup_promotion: Optional[Dict[str, Any]] = member("signupPromotion", _object)


@dataclasses.dataclass(frozen=True)
class PausedStateContext(PlayModel):
    auto_resume_time: Optional[datetime.datetime] = member("autoResumeTime", _timestamp)


@dataclasses.dataclass(frozen=True)
class CanceledStateContext(PlayModel):
    """Exactly one cause is set; ``user_initiated_cancellation`` carries the survey and cancel time."""
    user_initiated_cancellation: Optional[Dict[str, Any]] = member("userInitiatedCancellation", _object)
    system_initiated_cancellation: Optional[bool] = member("systemInitiatedCancellation", _present)
    developer_initiated_cancellation: Optional[bool] = member("developerInitiatedCancellation", _present)
    replacement_cancellation: Optional[bool] = member("replacementCancellation", _present)

    @property
    def cancel_time(self) -> Optional[datetime.datetime]:
        text = (self.user_initiated_cancellation or {}).get("cancelTime")
        return None if text is None else _timestamp(text)


@dataclasses.dataclass(frozen=True)
class ExternalAccountIdentifiers(PlayModel):
    external_account_id: Optional[str] = member("externalAccountId")
    obfuscated_external_account_id: Optional[str] = member("obfuscatedExternalAccountId")
    obfuscated_external_profile_id: Optional[str] = member("obfuscatedExternalProfileId")


@dataclasses.dataclass(frozen=True)
class SubscriptionPurchaseV2(PlayModel):
    """purchases.subscriptionsv2.get: the subscription the purchase token names."""
    kind: Optional[str] = member("kind")
    region_code: Optional[str] = member("regionCode")
    line_items: Optional[Tuple[SubscriptionPurchaseLineItem, ...]] = member("lineItems", _models(SubscriptionPurchaseLineItem))
    start_time: Optional[datetime.datetime] = member("startTime", _timestamp)
    subscription_state: Optional[SubscriptionState] = member("subscriptionState", _enum(SubscriptionState))
    latest_order_id: Optional[str] = member("latestOrderId")
    linked_purchase_token: Optional[str] = member("linkedPurchaseToken")
    paused_state_context: Optional[PausedStateContext] = member("pausedStateContext", _model(PausedStateContext))
    canceled_state_context: Optional[CanceledStateContext] = member("canceledStateContext", _model(CanceledStateContext))
    test_purchase: Optional[bool] = member("testPurchase", _present)
    acknowledgement_state: Optional[AcknowledgementState] = member("acknowledgementState", _enum(AcknowledgementState))
    external_account_identifiers: Optional[ExternalAccountIdentifiers] = member("externalAccountIdentifiers", _model(ExternalAccountIdentifiers))
    out_of_app_purchase_context: Optional[Dict[str, Any]] = member("outOfAppPurchaseContext", _object)
    subscribe_with_google_info: Optional[Dict[str, Any]] = member("subscribeWithGoogleInfo", _object)

    @property
    def is_test(self) -> bool:
        """A license tester's purchase: never a sale (the ledger's rule, asked of the library)."""
        return _is_test(self, PlayResource.SUBSCRIPTION_V2)


def _is_test(model: PlayModel, resource: PlayResource) -> bool:
    """play_purchase_is_test on the object as Google sent it: one rule, the library's."""
    body = json.dumps(model.raw, separators=(",", ":")).encode()
    return check(_bindings.play_purchase_is_test(body, len(body), resource)) == 1


@dataclasses.dataclass(frozen=True)
class ProductPurchase(PlayModel):
    """purchases.products.get: a one-time product purchase."""
    kind: Optional[str] = member("kind")
    purchase_time: Optional[datetime.datetime] = member("purchaseTimeMillis", _millis)
    purchase_state: Optional[ProductPurchaseState] = member("purchaseState", _enum(ProductPurchaseState))
    consumption_state: Optional[ConsumptionState] = member("consumptionState", _enum(ConsumptionState))
    developer_payload: Optional[str] = member("developerPayload")
    order_id: Optional[str] = member("orderId")
    purchase_type: Optional[ProductPurchaseType] = member("purchaseType", _enum(ProductPurchaseType))
    acknowledgement_state: Optional[int] = member("acknowledgementState", _integer)
    purchase_token: Optional[str] = member("purchaseToken")
    product_id: Optional[str] = member("productId")
    quantity: Optional[int] = member("quantity", _integer)
    obfuscated_external_account_id: Optional[str] = member("obfuscatedExternalAccountId")
    obfuscated_external_profile_id: Optional[str] = member("obfuscatedExternalProfileId")
    region_code: Optional[str] = member("regionCode")
    refundable_quantity: Optional[int] = member("refundableQuantity", _integer)

    @property
    def is_test(self) -> bool:
        """A license tester's purchase: never a sale (the ledger's rule, asked of the library)."""
        return _is_test(self, PlayResource.PRODUCT)


@dataclasses.dataclass(frozen=True)
class ProductPurchaseV2(PlayModel):
    """purchases.productsv2.getproductpurchasev2."""
    kind: Optional[str] = member("kind")
    order_id: Optional[str] = member("orderId")
    purchase_completion_time: Optional[datetime.datetime] = member("purchaseCompletionTime", _timestamp)
    purchase_state_context: Optional[Dict[str, Any]] = member("purchaseStateContext", _object)
    acknowledgement_state: Optional[AcknowledgementState] = member("acknowledgementState", _enum(AcknowledgementState))
    region_code: Optional[str] = member("regionCode")
    obfuscated_external_account_id: Optional[str] = member("obfuscatedExternalAccountId")
    obfuscated_external_profile_id: Optional[str] = member("obfuscatedExternalProfileId")
    test_purchase_context: Optional[Dict[str, Any]] = member("testPurchaseContext", _object)
    product_line_item: Optional[Tuple[Dict[str, Any], ...]] = member("productLineItem", lambda v: tuple(_object(i) for i in v) if isinstance(v, list) else _object(v))

    @property
    def is_test(self) -> bool:
        """A license tester's purchase: never a sale (the ledger's rule, asked of the library)."""
        return _is_test(self, PlayResource.PRODUCT_V2)


@dataclasses.dataclass(frozen=True)
class VoidedPurchase(PlayModel):
    kind: Optional[str] = member("kind")
    purchase_token: Optional[str] = member("purchaseToken")
    order_id: Optional[str] = member("orderId")
    purchase_time: Optional[datetime.datetime] = member("purchaseTimeMillis", _millis)
    voided_time: Optional[datetime.datetime] = member("voidedTimeMillis", _millis)
    voided_source: Optional[VoidedSource] = member("voidedSource", _enum(VoidedSource))
    voided_reason: Optional[VoidedReason] = member("voidedReason", _enum(VoidedReason))
    voided_quantity: Optional[int] = member("voidedQuantity", _integer)


@dataclasses.dataclass(frozen=True)
class VoidedPurchasesPage(PlayModel):
    """One page of purchases.voidedpurchases.list; ``next_page_token`` None on the last."""
    voided_purchases: Tuple[VoidedPurchase, ...] = member("voidedPurchases", _models(VoidedPurchase))
    token_pagination: Optional[Dict[str, Any]] = member("tokenPagination", _object)
    page_info: Optional[Dict[str, Any]] = member("pageInfo", _object)

    def __post_init__(self) -> None:
        if self.voided_purchases is None:
            object.__setattr__(self, "voided_purchases", ())

    @property
    def next_page_token(self) -> Optional[str]:
        token = (self.token_pagination or {}).get("nextPageToken")
        return token if isinstance(token, str) and token else None


@dataclasses.dataclass(frozen=True)
class PlayOrder(PlayModel):
    """orders.get: one payment, for revenue and refunds."""
    order_id: Optional[str] = member("orderId")
    purchase_token: Optional[str] = member("purchaseToken")
    state: Optional[OrderState] = member("state", _enum(OrderState))
    create_time: Optional[datetime.datetime] = member("createTime", _timestamp)
    last_event_time: Optional[datetime.datetime] = member("lastEventTime", _timestamp)
    total: Optional[Money] = member("total", _model(Money))
    tax: Optional[Money] = member("tax", _model(Money))
    developer_revenue_in_buyer_currency: Optional[Money] = member("developerRevenueInBuyerCurrency", _model(Money))
    buyer_address: Optional[Dict[str, Any]] = member("buyerAddress", _object)
    order_details: Optional[Dict[str, Any]] = member("orderDetails", _object)
    order_history: Optional[Dict[str, Any]] = member("orderHistory", _object)
    line_items: Optional[Tuple[Dict[str, Any], ...]] = member("lineItems", lambda v: tuple(_object(i) for i in v) if isinstance(v, list) else _object(v))
    sales_channel: Optional[str] = member("salesChannel")
    points_details: Optional[Dict[str, Any]] = member("pointsDetails", _object)
