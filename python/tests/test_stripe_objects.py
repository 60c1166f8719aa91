"""gatekit.stripe_objects: typed reads of Stripe's objects as Stripe renders them at the pinned
version (../shared/docs/stripe.md §3) — each member read strictly (absent or null is None, a
wrong type is refused naming its path), statuses kept as Stripe wrote them, known or not, the
whole answer kept in ``raw``, money exact in the currency's minor unit."""
from __future__ import annotations

import copy
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Dict

import pytest

from gatekit.stripe import ESTRIPE_OBJECT, StripeObjectError
from gatekit.stripe_objects import (StripeCharge, StripeCheckoutSession, StripeCustomer, StripeDispute, StripeEventObject, StripeInvoice, StripeMoney, StripePrice, StripeProduct, StripeRefund,
                                    StripeSubscription, parse)

T0 = 1_767_225_600  # 2026-01-01T00:00:00Z


def utc(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


PRICE: Dict[str, Any] = {"id": "price_m", "object": "price", "product": "prod_pro", "active": True, "type": "recurring", "currency": "usd",
                         "unit_amount": 999, "lookup_key": "pro_monthly", "recurring": {"interval": "month", "interval_count": 1}}
SUBSCRIPTION: Dict[str, Any] = {
    "id": "sub_1", "object": "subscription", "customer": {"id": "cus_1", "object": "customer"}, "status": "active", "livemode": True,
    "start_date": T0, "trial_start": None, "trial_end": None, "cancel_at_period_end": False, "cancel_at": None, "canceled_at": None,
    "ended_at": None, "pause_collection": {"behavior": "void", "resumes_at": None}, "latest_invoice": "in_1",
    "metadata": {"app_user_id": "alice"}, "a_member_stripe_added_later": {"kept": True},
    "items": {"object": "list", "has_more": False, "data": [{"id": "si_1", "object": "subscription_item", "quantity": 2, "price": PRICE,
                                                             "current_period_start": T0, "current_period_end": T0 + 30 * 86_400}]}}
INVOICE: Dict[str, Any] = {
    "id": "in_1", "object": "invoice", "status": "paid", "livemode": True, "billing_reason": "subscription_cycle", "amount_paid": 1998,
    "currency": "usd", "parent": {"type": "subscription_details", "subscription_details": {"subscription": "sub_1", "metadata": {}}},
    "lines": {"object": "list", "has_more": False, "data": [{
        "id": "il_1", "object": "line_item", "amount": 1998, "currency": "usd", "period": {"start": T0, "end": T0 + 30 * 86_400},
        "pricing": {"type": "price_details", "price_details": {"price": "price_m", "product": "prod_pro"}},
        "parent": {"type": "subscription_item_details",
                   "subscription_item_details": {"subscription": "sub_1", "subscription_item": "si_1", "proration": False}}}]},
    "payments": {"object": "list", "has_more": False, "data": [
        {"id": "inpay_1", "object": "invoice_payment", "payment": {"type": "payment_intent", "payment_intent": "pi_1"}},
        {"id": "inpay_2", "object": "invoice_payment", "payment": {"type": "out_of_band_payment"}}]}}


def test_a_subscription_is_read_whole_and_keeps_what_it_does_not_read():
    s = parse(SUBSCRIPTION)
    assert isinstance(s, StripeSubscription) and (s.id, s.status, s.customer, s.latest_invoice) == ("sub_1", "active", "cus_1", "in_1")
    item = s.items[0]
    assert (item.id, item.quantity, item.current_period_end) == ("si_1", 2, utc(T0 + 30 * 86_400))
    assert (item.price.product, item.price.lookup_key, item.price.interval, item.price.unit_amount) == \
        ("prod_pro", "pro_monthly", "month", StripeMoney("usd", 999))
    assert s.pause_collection == {"behavior": "void", "resumes_at": None} and s.metadata == {"app_user_id": "alice"}
    assert s.raw["a_member_stripe_added_later"] == {"kept": True}
    # A status newer than this package is kept as Stripe wrote it.
    assert parse(dict(SUBSCRIPTION, status="frozen")).status == "frozen"


def test_an_invoice_says_what_its_payments_paid_for():
    i = StripeInvoice.from_dict(INVOICE)
    assert (i.subscription, i.status, i.amount_paid) == ("sub_1", "paid", StripeMoney("usd", 1998))
    line = i.lines[0]
    assert (line.subscription_item, line.period_start, line.period_end, line.proration, line.price, line.product) == \
        ("si_1", utc(T0), utc(T0 + 30 * 86_400), False, "price_m", "prod_pro")
    assert i.payments == (("payment_intent", "pi_1"), ("out_of_band_payment", None))
    assert StripeInvoice.from_dict({k: v for k, v in INVOICE.items() if k != "payments"}).payments is None  # not expanded


def test_payments_taken_back_and_the_rest():
    charge = parse({"id": "ch_1", "object": "charge", "livemode": False, "created": T0, "payment_intent": "pi_1", "amount": 500,
                    "currency": "jpy", "amount_refunded": 200, "refunded": False, "disputed": True,
                    "refunds": {"object": "list", "has_more": False, "data": [{"id": "re_1", "object": "refund", "amount": 200,
                                                                               "currency": "jpy", "status": "succeeded", "created": T0 + 60,
                                                                               "charge": "ch_1"}]}})
    assert isinstance(charge, StripeCharge) and not charge.refunded and charge.amount_refunded == 200 and charge.disputed
    assert charge.refunds is not None and charge.refunds[0] == StripeRefund(id="re_1", raw={}, amount=StripeMoney("jpy", 200), charge="ch_1",
                                                                      status="succeeded", created=utc(T0 + 60))
    dispute = parse({"id": "du_1", "object": "dispute", "livemode": True, "created": T0, "charge": "ch_1", "payment_intent": "pi_1",
                     "status": "needs_response", "reason": "fraudulent", "amount": 999, "currency": "usd"})
    assert isinstance(dispute, StripeDispute) and (dispute.status, dispute.charge) == ("needs_response", "ch_1")
    session = parse({"id": "cs_1", "object": "checkout.session", "mode": "payment", "status": "complete", "payment_status": "paid",
                     "livemode": True, "created": T0, "client_reference_id": "bob", "customer": None, "subscription": None,
                     "payment_intent": {"id": "pi_2", "object": "payment_intent", "status": "succeeded"}, "metadata": {},
                     "line_items": {"object": "list", "has_more": False, "data": [{
                         "id": "li_1", "object": "item", "amount_total": 4900, "currency": "eur", "quantity": 1,
                         "price": {"id": "price_life", "object": "price", "product": "prod_life", "type": "one_time"}}]}})
    assert isinstance(session, StripeCheckoutSession) and (session.payment_status, session.payment_intent, session.client_reference_id) == \
        ("paid", "pi_2", "bob")
    assert session.line_items is not None and (session.line_items[0].product, session.line_items[0].amount_total) == \
        ("prod_life", StripeMoney("eur", 4900))
    customer = parse({"id": "cus_1", "object": "customer", "email": "a@example.com", "livemode": True, "metadata": {"k": "v"}})
    assert isinstance(customer, StripeCustomer) and customer.email == "a@example.com" and not customer.deleted
    product = parse({"id": "prod_pro", "object": "product", "name": "Pro", "active": True, "default_price": PRICE})
    assert isinstance(product, StripeProduct) and product.default_price == "price_m"
    assert isinstance(parse(PRICE), StripePrice)
    event = parse({"id": "evt_1", "object": "event", "type": "customer.subscription.updated", "livemode": True, "created": T0,
                   "api_version": "2026-06-24.dahlia", "data": {"object": SUBSCRIPTION}})
    assert isinstance(event, StripeEventObject) and event.type == "customer.subscription.updated"
    assert isinstance(event.parsed_object(), StripeSubscription)


@pytest.mark.parametrize("currency, units, amount", [("usd", 999, "9.99"), ("JPY", 500, "500"), ("kwd", 5120, "5.120"),
                                                     ("ugx", 500, "5.00"), ("eur", -250, "-2.50")])
def test_money_is_exact_in_the_currencys_minor_unit(currency, units, amount):
    assert StripeMoney(currency, units).amount == Decimal(amount) and str(StripeMoney(currency, units).amount) == amount


@pytest.mark.parametrize("path, value, reason", [
    (("status",), 7, "Stripe subscription.status is not a string"),
    (("livemode",), "yes", "livemode is not true or false"),
    (("start_date",), "2026", "start_date is not an integer"),
    (("start_date",), True, "start_date is not an integer"),
    (("start_date",), 10 ** 12, "before the year 10000"),
    (("metadata",), {"k": 1}, "metadata.k is not a string"),
    (("items", "has_more"), True, "more pages"),
    (("items", "data", 0, "price"), "price_m", "price is not an object"),
    (("items",), {"data": []}, "items is not a list object"),
])
def test_a_member_of_the_wrong_type_is_refused_naming_it(path, value, reason):
    raw = copy.deepcopy(SUBSCRIPTION)
    node: Any = raw
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(StripeObjectError, match=reason.replace("[", r"\[")) as refused:
        parse(raw)
    assert refused.value.code == ESTRIPE_OBJECT


def test_what_is_not_an_object_it_reads_is_refused():
    for raw, reason in [({"object": "balance_transaction", "id": "txn_1"}, "is not one of"), ({"id": "sub_1"}, "is not one of"),
                        ({"object": "subscription", "status": "active", "livemode": True}, "has no id"),
                        ({"object": "subscription", "id": "sub_1", "status": "active", "livemode": True}, "has no items")]:
        with pytest.raises(StripeObjectError, match=reason):
            parse(raw)
    with pytest.raises(StripeObjectError, match="not a Stripe invoice"):
        StripeInvoice.from_dict(SUBSCRIPTION)
    with pytest.raises(TypeError):
        parse("sub_1")  # type: ignore[arg-type]
