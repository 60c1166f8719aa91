"""Typed reads of the Stripe objects an entitlement needs — StripeSubscription, StripeCustomer, StripeInvoice,
Checkout Session, StripeCharge, StripeRefund, StripeDispute, StripePrice, StripeProduct, StripeEventObject — from what
:class:`gatekit.stripe.StripeClient` returns (``parse(client.get("/v1/subscriptions/sub_…"))``).

Read as GateKit's ledger reads them (``Sources/GateKitCore/StripeData/``): a member absent or
null is None, a member of the wrong type raises :class:`StripeObjectError` naming it, never a
default. Statuses and other enumerations are kept as Stripe wrote them, known or not (a status
newer than this package is never mapped to a near one). Every object keeps the whole answer in
``raw``: members this package does not read are there. Amounts are :class:`StripeMoney`, exact in the
currency's minor unit as Stripe sends it."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Type, TypeVar, Union

from .stripe import ESTRIPE_OBJECT, StripeObjectError

__all__ = ["StripeCharge", "StripeCheckoutLineItem", "StripeCheckoutSession", "StripeCustomer", "StripeDispute", "StripeEventObject",
           "StripeInvoice", "StripeInvoiceLine", "StripeMoney", "StripePrice", "StripeProduct", "StripeRefund", "StripeSubscription",
           "StripeSubscriptionItem", "parse"]

#: Currencies Stripe charges in whole units, and those with three decimals
#: (https://docs.stripe.com/currencies); UGX, zero-decimal in ISO, Stripe takes with two.
_ZERO_DECIMAL = frozenset("bif clp djf gnf jpy kmf krw mga pyg rwf vnd vuv xaf xof xpf".split())
_THREE_DECIMAL = frozenset("bhd jod kwd omr tnd".split())


@dataclass(frozen=True)
class StripeMoney:
    """An amount as Stripe writes it: an integer in the currency's smallest unit (1000 is 10.00
    USD, 500 is ¥500, 5120 is 5.120 KWD)."""
    currency: str
    minor_units: int

    @property
    def decimals(self) -> int:
        c = self.currency.lower()
        return 0 if c in _ZERO_DECIMAL else 3 if c in _THREE_DECIMAL else 2

    @property
    def amount(self) -> Decimal:
        """The amount in the currency's unit, exact (``Decimal("9.99")``)."""
        return Decimal(self.minor_units).scaleb(-self.decimals)


class _Reader:
    """Strict member reads of one object, each error naming the member's path."""

    def __init__(self, raw: Any, path: str) -> None:
        if not isinstance(raw, Mapping):
            raise StripeObjectError(ESTRIPE_OBJECT, f"{path} is not an object")
        self.raw: Mapping[str, Any] = raw
        self.path = path

    def wrong(self, name: str, kind: str) -> StripeObjectError:
        return StripeObjectError(ESTRIPE_OBJECT, f"{self.path}.{name} is not {kind}")

    def string(self, name: str) -> Optional[str]:
        value = self.raw.get(name)
        if value is not None and not isinstance(value, str):
            raise self.wrong(name, "a string")
        return value

    def required(self, value: Optional[Any], name: str) -> Any:
        if value is None:
            raise StripeObjectError(ESTRIPE_OBJECT, f"{self.path} has no {name}")
        return value

    def integer(self, name: str) -> Optional[int]:
        value = self.raw.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise self.wrong(name, "an integer")
        return value

    def boolean(self, name: str) -> Optional[bool]:
        value = self.raw.get(name)
        if value is not None and not isinstance(value, bool):
            raise self.wrong(name, "true or false")
        return value

    def time(self, name: str) -> Optional[datetime]:
        seconds = self.integer(name)
        if seconds is None:
            return None
        if not 0 <= seconds < 253_402_300_800:
            raise self.wrong(name, "an instant in Unix seconds before the year 10000")
        return datetime.fromtimestamp(seconds, timezone.utc)

    def object(self, name: str) -> Optional["_Reader"]:
        value = self.raw.get(name)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise self.wrong(name, "an object")
        return _Reader(value, f"{self.path}.{name}")

    def reference(self, name: str) -> Optional[str]:
        """An id, or the object it names expanded: its id either way."""
        value = self.raw.get(name)
        if isinstance(value, Mapping):
            return _Reader(value, f"{self.path}.{name}").string("id")
        return self.string(name)

    def expanded(self, name: str) -> Optional["_Reader"]:
        value = self.raw.get(name)
        return _Reader(value, f"{self.path}.{name}") if isinstance(value, Mapping) else None

    def strings(self, name: str) -> Dict[str, str]:
        value = self.object(name)
        if value is None:
            return {}
        return {key: value.required(value.string(key), key) for key in value.raw}

    def list(self, name: str) -> Optional[Tuple[List["_Reader"], bool]]:
        """A list object's items and whether more pages follow; None when absent (not expanded)."""
        value = self.object(name)
        if value is None:
            return None
        if value.string("object") != "list":
            raise self.wrong(name, "a list object")
        data = value.raw.get("data")
        if not isinstance(data, list):
            raise value.wrong("data", "an array")
        return [_Reader(item, f"{self.path}.{name}.data[{i}]") for i, item in enumerate(data)], bool(value.boolean("has_more"))

    def money(self, amount: str, currency: str = "currency") -> Optional[StripeMoney]:
        units, code = self.integer(amount), self.string(currency)
        return None if units is None or code is None else StripeMoney(code, units)


T = TypeVar("T", bound="_StripeObject")


@dataclass(frozen=True)
class _StripeObject:
    id: str
    raw: Mapping[str, Any] = field(repr=False, compare=False)

    kind = ""

    @classmethod
    def from_dict(cls: Type[T], raw: Mapping[str, Any]) -> T:
        read = _Reader(raw, f"Stripe {cls.kind}")
        if read.string("object") != cls.kind:
            raise StripeObjectError(ESTRIPE_OBJECT, f"the object is not a Stripe {cls.kind} (its \"object\" is {raw.get('object')!r})")
        return cls._read(read)

    @classmethod
    def _read(cls: Type[T], read: _Reader) -> T:
        raise NotImplementedError


@dataclass(frozen=True)
class StripeProduct(_StripeObject):
    name: Optional[str] = None
    active: Optional[bool] = None
    default_price: Optional[str] = None
    metadata: Dict[str, str] = field(default_factory=dict)
    kind = "product"

    @classmethod
    def _read(cls, read: _Reader) -> "StripeProduct":
        return cls(id=read.required(read.string("id"), "id"), raw=read.raw, name=read.string("name"), active=read.boolean("active"),
                   default_price=read.reference("default_price"), metadata=read.strings("metadata"))


@dataclass(frozen=True)
class StripePrice(_StripeObject):
    product: Optional[str] = None
    active: Optional[bool] = None
    type: Optional[str] = None
    """"one_time" or "recurring"."""
    unit_amount: Optional[StripeMoney] = None
    interval: Optional[str] = None
    """"day", "week", "month" or "year" (recurring prices)."""
    interval_count: Optional[int] = None
    lookup_key: Optional[str] = None
    kind = "price"

    @classmethod
    def _read(cls, read: _Reader) -> "StripePrice":
        recurring = read.object("recurring")
        return cls(id=read.required(read.string("id"), "id"), raw=read.raw, product=read.reference("product"), active=read.boolean("active"),
                   type=read.string("type"), unit_amount=read.money("unit_amount"),
                   interval=recurring.string("interval") if recurring else None,
                   interval_count=recurring.integer("interval_count") if recurring else None, lookup_key=read.string("lookup_key"))


@dataclass(frozen=True)
class StripeCustomer(_StripeObject):
    email: Optional[str] = None
    livemode: Optional[bool] = None
    deleted: bool = False
    metadata: Dict[str, str] = field(default_factory=dict)
    kind = "customer"

    @classmethod
    def _read(cls, read: _Reader) -> "StripeCustomer":
        return cls(id=read.required(read.string("id"), "id"), raw=read.raw, email=read.string("email"), livemode=read.boolean("livemode"),
                   deleted=bool(read.boolean("deleted")), metadata=read.strings("metadata"))


@dataclass(frozen=True)
class StripeSubscriptionItem:
    id: str
    price: StripePrice
    quantity: int
    current_period_start: Optional[datetime]
    current_period_end: Optional[datetime]


@dataclass(frozen=True)
class StripeSubscription(_StripeObject):
    customer: Optional[str] = None
    status: str = ""
    """Stripe's status as it named it: "incomplete", "incomplete_expired", "trialing", "active",
    "past_due", "canceled", "unpaid", "paused", or one newer than this package."""
    livemode: bool = False
    items: Tuple[StripeSubscriptionItem, ...] = ()
    start_date: Optional[datetime] = None
    trial_start: Optional[datetime] = None
    trial_end: Optional[datetime] = None
    cancel_at_period_end: bool = False
    cancel_at: Optional[datetime] = None
    canceled_at: Optional[datetime] = None
    ended_at: Optional[datetime] = None
    pause_collection: Optional[Mapping[str, Any]] = None
    latest_invoice: Optional[str] = None
    metadata: Dict[str, str] = field(default_factory=dict)
    kind = "subscription"

    @classmethod
    def _read(cls, read: _Reader) -> "StripeSubscription":
        sub_id = read.required(read.string("id"), "id")
        listed = read.required(read.list("items"), "items")
        if listed[1]:
            raise StripeObjectError(ESTRIPE_OBJECT, f"{read.path}.items has more pages than the object carries: list them whole first")
        items = tuple(StripeSubscriptionItem(id=i.required(i.string("id"), "id"), price=StripePrice._read(i.required(i.object("price"), "price")),
                                       quantity=i.integer("quantity") or 1, current_period_start=i.time("current_period_start"),
                                       current_period_end=i.time("current_period_end")) for i in listed[0])
        paused = read.object("pause_collection")
        return cls(id=sub_id, raw=read.raw, customer=read.reference("customer"),
                   status=read.required(read.string("status"), "status"), livemode=read.required(read.boolean("livemode"), "livemode"),
                   items=items, start_date=read.time("start_date"), trial_start=read.time("trial_start"), trial_end=read.time("trial_end"),
                   cancel_at_period_end=bool(read.boolean("cancel_at_period_end")), cancel_at=read.time("cancel_at"),
                   canceled_at=read.time("canceled_at"), ended_at=read.time("ended_at"), pause_collection=paused.raw if paused else None,
                   latest_invoice=read.reference("latest_invoice"), metadata=read.strings("metadata"))


@dataclass(frozen=True)
class StripeInvoiceLine:
    id: Optional[str]
    amount: Optional[StripeMoney]
    period_start: Optional[datetime]
    period_end: Optional[datetime]
    """The service period the line bills (both ends included), not the invoice's ``period_*``."""
    subscription_item: Optional[str]
    proration: Optional[bool]
    price: Optional[str]
    product: Optional[str]


@dataclass(frozen=True)
class StripeInvoice(_StripeObject):
    status: Optional[str] = None
    """"draft", "open", "paid", "uncollectible" or "void"."""
    livemode: bool = False
    billing_reason: Optional[str] = None
    amount_paid: Optional[StripeMoney] = None
    subscription: Optional[str] = None
    """The subscription it bills (``parent.subscription_details.subscription``)."""
    lines: Tuple[StripeInvoiceLine, ...] = ()
    payments: Optional[Tuple[Tuple[str, Optional[str]], ...]] = None
    """Each payment's (type, payment intent or charge): ("payment_intent", "pi_…"),
    ("out_of_band_payment", None); None when read without ``expand[]=payments``."""
    kind = "invoice"

    @classmethod
    def _read(cls, read: _Reader) -> "StripeInvoice":
        parent = read.object("parent")
        details = parent.object("subscription_details") if parent else None
        lines: List[StripeInvoiceLine] = []
        for line in (read.list("lines") or ([], False))[0]:
            period = line.object("period")
            line_parent = line.object("parent")
            item = line_parent.object("subscription_item_details") if line_parent else None
            pricing = line.object("pricing")
            price = pricing.object("price_details") if pricing else None
            lines.append(StripeInvoiceLine(id=line.string("id"), amount=line.money("amount"), period_start=period.time("start") if period else None,
                                     period_end=period.time("end") if period else None,
                                     subscription_item=item.reference("subscription_item") if item else None,
                                     proration=item.boolean("proration") if item else None,
                                     price=price.reference("price") if price else None, product=price.reference("product") if price else None))
        listed = read.list("payments")
        payments = None
        if listed is not None:
            found = []
            for p in listed[0]:
                payment = p.required(p.object("payment"), "payment")
                kind = payment.required(payment.string("type"), "type")
                found.append((kind, payment.reference(kind) if kind in ("payment_intent", "charge") else None))
            payments = tuple(found)
        return cls(id=read.required(read.string("id"), "id"), raw=read.raw, status=read.string("status"),
                   livemode=read.required(read.boolean("livemode"), "livemode"), billing_reason=read.string("billing_reason"),
                   amount_paid=read.money("amount_paid"), subscription=details.reference("subscription") if details else None,
                   lines=tuple(lines), payments=payments)


@dataclass(frozen=True)
class StripeCheckoutLineItem:
    id: str
    price: Optional[str]
    product: Optional[str]
    quantity: int
    amount_total: Optional[StripeMoney]


@dataclass(frozen=True)
class StripeCheckoutSession(_StripeObject):
    mode: str = ""
    """"payment", "subscription" or "setup"."""
    status: Optional[str] = None
    payment_status: str = ""
    """"paid", "unpaid" or "no_payment_required": whether to fulfil."""
    livemode: bool = False
    created: Optional[datetime] = None
    client_reference_id: Optional[str] = None
    customer: Optional[str] = None
    subscription: Optional[str] = None
    payment_intent: Optional[str] = None
    metadata: Dict[str, str] = field(default_factory=dict)
    line_items: Optional[Tuple[StripeCheckoutLineItem, ...]] = None
    """None when read without ``expand[]=line_items``."""
    kind = "checkout.session"

    @staticmethod
    def _line(item: _Reader) -> StripeCheckoutLineItem:
        price = item.required(item.object("price"), "price")  # a line item's price is always rendered whole
        return StripeCheckoutLineItem(id=item.required(item.string("id"), "id"), price=price.string("id"), product=price.reference("product"),
                                quantity=item.integer("quantity") or 1, amount_total=item.money("amount_total"))

    @classmethod
    def _read(cls, read: _Reader) -> "StripeCheckoutSession":
        listed = read.list("line_items")
        items = None
        if listed is not None:
            items = tuple(StripeCheckoutSession._line(i) for i in listed[0])
        return cls(id=read.required(read.string("id"), "id"), raw=read.raw, mode=read.required(read.string("mode"), "mode"),
                   status=read.string("status"), payment_status=read.required(read.string("payment_status"), "payment_status"),
                   livemode=read.required(read.boolean("livemode"), "livemode"), created=read.time("created"),
                   client_reference_id=read.string("client_reference_id"), customer=read.reference("customer"),
                   subscription=read.reference("subscription"), payment_intent=read.reference("payment_intent"),
                   metadata=read.strings("metadata"), line_items=items)


@dataclass(frozen=True)
class StripeRefund(_StripeObject):
    amount: Optional[StripeMoney] = None
    charge: Optional[str] = None
    payment_intent: Optional[str] = None
    status: Optional[str] = None
    """"pending", "requires_action", "succeeded", "failed" or "canceled"."""
    reason: Optional[str] = None
    created: Optional[datetime] = None
    kind = "refund"

    @classmethod
    def _read(cls, read: _Reader) -> "StripeRefund":
        return cls(id=read.required(read.string("id"), "id"), raw=read.raw, amount=read.money("amount"), charge=read.reference("charge"),
                   payment_intent=read.reference("payment_intent"), status=read.string("status"), reason=read.string("reason"),
                   created=read.time("created"))


@dataclass(frozen=True)
class StripeCharge(_StripeObject):
    livemode: bool = False
    created: Optional[datetime] = None
    payment_intent: Optional[str] = None
    amount: Optional[StripeMoney] = None
    amount_refunded: int = 0
    refunded: bool = False
    """True only when refunded whole."""
    disputed: bool = False
    refunds: Optional[Tuple[StripeRefund, ...]] = None
    """None when read without ``expand[]=refunds``."""
    kind = "charge"

    @classmethod
    def _read(cls, read: _Reader) -> "StripeCharge":
        listed = read.list("refunds")
        return cls(id=read.required(read.string("id"), "id"), raw=read.raw, livemode=read.required(read.boolean("livemode"), "livemode"),
                   created=read.time("created"), payment_intent=read.reference("payment_intent"), amount=read.money("amount"),
                   amount_refunded=read.integer("amount_refunded") or 0, refunded=bool(read.boolean("refunded")),
                   disputed=bool(read.boolean("disputed")),
                   refunds=None if listed is None else tuple(StripeRefund._read(r) for r in listed[0]))


@dataclass(frozen=True)
class StripeDispute(_StripeObject):
    livemode: bool = False
    created: Optional[datetime] = None
    charge: Optional[str] = None
    payment_intent: Optional[str] = None
    status: str = ""
    """"warning_needs_response", "warning_under_review", "warning_closed", "needs_response",
    "under_review", "won", "lost", "prevented", or one newer than this package."""
    reason: Optional[str] = None
    amount: Optional[StripeMoney] = None
    kind = "dispute"

    @classmethod
    def _read(cls, read: _Reader) -> "StripeDispute":
        return cls(id=read.required(read.string("id"), "id"), raw=read.raw, livemode=read.required(read.boolean("livemode"), "livemode"),
                   created=read.time("created"), charge=read.reference("charge"), payment_intent=read.reference("payment_intent"),
                   status=read.required(read.string("status"), "status"), reason=read.string("reason"), amount=read.money("amount"))


StripeObjectType = Union[StripeSubscription, StripeCustomer, StripeInvoice, StripeCheckoutSession, StripeCharge, StripeRefund, StripeDispute, StripePrice, StripeProduct]


@dataclass(frozen=True)
class StripeEventObject(_StripeObject):
    type: str = ""
    livemode: bool = False
    created: Optional[datetime] = None
    api_version: Optional[str] = None
    object: Optional[Mapping[str, Any]] = None
    """``data.object`` as the event rendered it (in the event's own API version): whom to ask."""
    kind = "event"

    @classmethod
    def _read(cls, read: _Reader) -> "StripeEventObject":
        data = read.required(read.object("data"), "data")
        inner = data.required(data.object("object"), "object")
        return cls(id=read.required(read.string("id"), "id"), raw=read.raw, type=read.required(read.string("type"), "type"),
                   livemode=read.required(read.boolean("livemode"), "livemode"), created=read.time("created"),
                   api_version=read.string("api_version"), object=inner.raw)

    def parsed_object(self) -> Optional["StripeObjectType"]:
        """The event's object read as its type; None for a type this module does not read."""
        return parse(self.object) if self.object is not None and self.object.get("object") in _KINDS else None


_KINDS: Dict[str, Callable[[Mapping[str, Any]], Any]] = {
    c.kind: c.from_dict for c in (StripeSubscription, StripeCustomer, StripeInvoice, StripeCheckoutSession, StripeCharge, StripeRefund, StripeDispute, StripePrice, StripeProduct, StripeEventObject)}


def parse(raw: Mapping[str, Any]) -> Any:
    """The typed object for what Stripe answered, by its ``object`` member (StripeObjectError for
    an object this module does not read or one whose members are of the wrong type)."""
    if not isinstance(raw, Mapping):
        raise TypeError(f"parse takes what StripeClient.get returned (a dict), not {type(raw).__name__}")
    reader = _KINDS.get(str(raw.get("object")))
    if reader is None:
        raise StripeObjectError(ESTRIPE_OBJECT, f"a Stripe {raw.get('object')!r} is not one of {', '.join(sorted(_KINDS))}")
    return reader(raw)
