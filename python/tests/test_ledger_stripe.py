"""Stripe in the ledger from Python: a Subscription's and a Checkout Session's answers recorded
as Stripe sent them, asked by the app's own user id beside an App Store purchase, the catalog's
names, the host's past-due grace, test mode kept apart, and what is refused (docs/stripe.md,
docs/ledger.md "Stripe")."""
from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

from gatekit.errors import InvalidArgumentError
from gatekit.ledger import Reason
from gatekit.stripe import ESTRIPE_OBJECT, StripeObjectError

UTC = datetime.timezone.utc
DAY = 86_400


RECEIPT = Path(os.environ.get("GATEKIT_FIXTURES", Path(__file__).resolve().parents[2].parent / "shared" / "fixtures")) \
    / "receipts" / "apple" / "arv__mindnode_mac_sha256_receipt.der"


def now_s() -> int:
    return int(datetime.datetime.now(UTC).timestamp())


def subscription(sub_id: str, status: str, start: int, end: int, *, user: Optional[str] = None, product: str = "prod_pro",
                 price: str = "price_pro_monthly", livemode: bool = True, **members: Any) -> Dict[str, Any]:
    """A Subscription as GET /v1/subscriptions/{id} answers at 2025-03-31.basil or later (the
    period on the item)."""
    body: Dict[str, Any] = {
        "id": sub_id, "object": "subscription", "customer": f"cus_{sub_id}", "status": status, "livemode": livemode,
        "start_date": start, "cancel_at_period_end": False, "cancel_at": None, "canceled_at": None, "ended_at": None,
        "pause_collection": None, "trial_start": None, "trial_end": None, "metadata": {"app_user_id": user} if user else {},
        "items": {"object": "list", "has_more": False, "data": [{
            "id": f"si_{sub_id}", "object": "subscription_item", "quantity": 1, "current_period_start": start, "current_period_end": end,
            "price": {"id": price, "object": "price", "product": product, "currency": "usd", "unit_amount": 999, "type": "recurring",
                      "recurring": {"interval": "month", "interval_count": 1}}}]}}
    body.update(members)
    return body


def checkout(session_id: str, created: int, *, payment_status: str, status: str = "complete", reference: Optional[str] = None,
             intent_status: Optional[str] = None) -> Dict[str, Any]:
    """A payment-mode Checkout Session read with expand[]=line_items and expand[]=payment_intent."""
    return {"id": session_id, "object": "checkout.session", "mode": "payment", "status": status, "payment_status": payment_status,
            "livemode": True, "created": created, "client_reference_id": reference, "customer": None, "subscription": None,
            "payment_intent": None if intent_status is None else {"id": f"pi_{session_id}", "object": "payment_intent", "status": intent_status},
            "metadata": {}, "line_items": {"object": "list", "has_more": False, "data": [{
                "id": f"li_{session_id}", "object": "item", "amount_total": 4900, "currency": "eur", "quantity": 1,
                "price": {"id": "price_lifetime", "object": "price", "product": "prod_lifetime", "type": "one_time"}}]}}


def at(seconds: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(seconds, UTC)


def test_a_web_subscriber_is_answered_by_the_catalogs_names(store):
    """Alice subscribed on the web: "pro" from the catalog's entry for the Stripe product, by
    her own user id, with Stripe's status beside the answer."""
    store.ledger.declare_catalog({"products": {"prod_pro": {"type": "auto-renewable", "entitlements": ["pro"]},
                                               "prod_lifetime": {"type": "non-consumable", "entitlements": ["no-ads"]}}})
    t = now_s()
    body = json.dumps(subscription("sub_alice", "active", t - 5 * DAY, t + 25 * DAY, user="alice")).encode()
    r = store.ledger.ingest_stripe(body, at(t - 5 * DAY))
    assert (r.kind, r.store, r.environment, r.outcome.name) == ("stripe-subscription", "stripe", "Production", "NEW")
    assert store.ledger.ingest_stripe(body, at(t - 5 * DAY)).outcome.name == "DUPLICATE"
    pro = store.ledger.entitled("alice", "pro", environment="Production", by_app_user=True)
    assert pro and pro.reason == Reason.SUBSCRIPTION and pro.store == "stripe" and pro.grants == ("pro",)
    assert pro.product_id == "prod_pro:price_pro_monthly" and pro.until == at(t + 25 * DAY)
    assert pro.store_state == "active"
    # A one-time Checkout purchase by the same user (client_reference_id), paid: owned.
    store.ledger.ingest_stripe(checkout("cs_alice", t - DAY, payment_status="paid", reference="alice", intent_status="succeeded"))
    active = {e.product_id: e.store for e in store.ledger.active("alice", environment="Production", by_app_user=True)}
    assert active == {"prod_pro:price_pro_monthly": "stripe", "prod_lifetime": "stripe"}
    assert store.ledger.entitled("alice", "no-ads", environment="Production", by_app_user=True).reason == Reason.NON_CONSUMABLE
    # The metrics split by store, and the customer's report naming the Stripe subscription.
    today = datetime.datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    window = dict(environment="Production", start=today - datetime.timedelta(days=7), end=today + datetime.timedelta(days=1), granularity="day")
    by_store = {s.key: s for s in store.ledger.metrics(by="store", **window).series}
    started = (at(t - 5 * DAY).replace(hour=0, minute=0, second=0, microsecond=0) - window["start"]).days
    assert set(by_store) == {"stripe"} and by_store["stripe"]["new"][started] == 1 and sum(by_store["stripe"]["new"]) == 1
    assert by_store["stripe"]["activeSubscriptions"][-1] == 1
    assert "Stripe subscription sub_alice" in store.ledger.customer_report("sub_alice", **window).html
    assert {(c.original_transaction_id, c.store) for c in store.ledger.changes(limit=100).changes} >= {("sub_alice", "stripe")}
    # Stripe ends it at once: canceled, ended_at now.
    ended = subscription("sub_alice", "canceled", t - 5 * DAY, t + 25 * DAY, user="alice", canceled_at=t - 60, ended_at=t - 60)
    store.ledger.ingest_stripe(ended, at(t - 30))
    assert store.ledger.entitled("alice", "pro", environment="Production", by_app_user=True).reason == Reason.EXPIRED
    # As of before the cancellation, the answer then (by the product: the catalog took effect just now).
    assert store.ledger.is_entitled("alice", "prod_pro", environment="Production", by_app_user=True, at=at(t - 120))
    assert not store.ledger.is_entitled("alice", "pro", environment="Production", by_app_user=True, at=at(t - 120))


@pytest.mark.skipif(not RECEIPT.is_file(), reason=f"receipt fixture not found at {RECEIPT} (set GATEKIT_FIXTURES)")
def test_one_app_account_holds_an_apple_a_play_and_a_stripe_purchase(store):
    """Alice's account holds what three stores sold her, all in Production: a Mac receipt Apple
    signed in 2023 (a lifetime unlock, and a yearly subscription that ended in 2022), a Play
    subscription Google answered for, and a Stripe subscription. "pro" answers from whichever
    store entitles, by the catalog's names; the history and the customer report name each store."""
    bundle = "com.ideasoncanvas.mindnode.macos"
    lifetime, yearly = f"{bundle}.iap.fullversionfree", f"{bundle}.subscription.yearly"
    store.ledger.declare_catalog({"products": {lifetime: {"type": "non-consumable", "entitlements": ["pro"]},
                                               yearly: {"type": "auto-renewable", "entitlements": ["pro"]},
                                               "pro.monthly": {"type": "auto-renewable", "entitlements": ["pro"]},
                                               "prod_pro": {"type": "auto-renewable", "entitlements": ["pro"]}}})
    apple = store.ledger.ingest_receipt(RECEIPT.read_bytes(), bundle)
    assert (apple.environment, apple.test_signed) == ("Production", False)
    for original in ("710000253893482", "710000831465389"):  # expected/receipts.json: the unlock and the subscription
        store.ledger.link("alice", original, environment="Production")
    t = now_s()
    stamp = lambda s: at(s).strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    play = {"kind": "androidpublisher#subscriptionPurchaseV2", "regionCode": "US", "startTime": stamp(t - DAY),
            "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
            "lineItems": [{"productId": "pro.monthly", "expiryTime": stamp(t + 29 * DAY), "latestSuccessfulOrderId": "GPA.3333-1111",
                           "autoRenewingPlan": {"autoRenewEnabled": True}, "offerDetails": {"basePlanId": "monthly"}}]}
    google = store.ledger.ingest_play_subscription("com.example.mindnode", "play-token-alice", json.dumps(play), answered=at(t - 60))
    assert (google.environment, google.test_signed) == ("Production", False)
    store.ledger.link("alice", "play-token-alice", environment="Production")
    store.ledger.ingest_stripe(subscription("sub_three", "active", t - DAY, t + 29 * DAY, user="alice"), at(t - 60))
    entitled = {e.store: e.product_id for e in store.ledger.active("alice", environment="Production", by_app_user=True) if "pro" in e.grants}
    assert entitled == {"app-store": lifetime, "play": "pro.monthly:monthly", "stripe": "prod_pro:price_pro_monthly"}
    assert store.ledger.is_entitled("alice", "pro", environment="Production", by_app_user=True)
    ended = store.ledger.entitled("alice", yearly, environment="Production", by_app_user=True)
    assert ended.reason == Reason.EXPIRED and ended.store == "app-store"
    history = json.dumps(store.ledger.history("alice", environment="Production", by_app_user=True))
    assert all(held in history for held in ("710000831465389", "play-token-alice", "sub_three")), history
    today = datetime.datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    page = store.ledger.customer_report("alice", environment="Production", by_app_user=True, start=today - datetime.timedelta(days=2),
                                        end=today + datetime.timedelta(days=1), granularity="day").html
    assert all(f'<td class="text">{name}</td>' in page for name in ("App Store", "Google Play", "Stripe")), page


def test_a_catalog_names_a_price_alone_or_every_price_of_its_product(store):
    """`:price_…` names one price of any product, `prod_…` every price of it: a purchase grants
    both entries' names (the price's first), answers to its price's key, and the metrics split
    by entitlement count it under each name."""
    t = now_s()
    for sub_id, price in [("sub_m", "price_pro_monthly"), ("sub_y", "price_pro_yearly")]:
        store.ledger.ingest_stripe(subscription(sub_id, "active", t - DAY, t + 29 * DAY, price=price), at(t - 60))
    report = store.ledger.declare_catalog({"products": {":price_pro_monthly": {"entitlements": ["pro"]},
                                                        "prod_pro": {"entitlements": ["member"]}}})
    assert report.warnings == () and report.unseen_products == () and report.unnamed_products == ()
    monthly = store.ledger.entitled("sub_m", "pro", environment="Production")
    assert monthly.reason == Reason.SUBSCRIPTION and monthly.grants == ("pro", "member")
    assert store.ledger.entitled("sub_y", "pro", environment="Production").reason == Reason.NO_PURCHASE
    assert store.ledger.entitled("sub_y", "member", environment="Production").grants == ("member",)
    assert store.ledger.is_entitled("sub_y", ":price_pro_yearly", environment="Production")
    assert not store.ledger.is_entitled("sub_m", ":price_pro_yearly", environment="Production")
    today = datetime.datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    series = {s.key: s for s in store.ledger.metrics(by="entitlement", environment="Production", start=today - datetime.timedelta(days=2),
                                                     end=today + datetime.timedelta(days=1), granularity="day").series}
    assert {k: s["activeSubscriptions"][-1] for k, s in series.items()} == {"pro": 1, "member": 2}
    with pytest.raises(InvalidArgumentError, match="names no plan"):
        store.ledger.declare_catalog({"products": {":": {"entitlements": ["pro"]}}})


def test_a_catalog_names_prices_by_their_lookup_key(store):
    """An entry under "lookupKeys" names every price an answer showed bearing the key: the old
    price keeps granting after transfer_lookup_key moved the key to a new one; a typo'd key is
    reported with the key it is likely a typo of."""
    t = now_s()

    def priced(sub_id: str, price: str, key: Optional[str], answered: int) -> None:
        body = subscription(sub_id, "active", t - 20 * DAY, t + 10 * DAY, price=price)
        body["items"]["data"][0]["price"]["lookup_key"] = key
        store.ledger.ingest_stripe(body, at(answered))

    priced("sub_old", "price_old", "pro_monthly", t - 20 * DAY)
    priced("sub_new", "price_new", "pro_monthly", t - 10 * DAY)   # the key moved to the new price
    priced("sub_old", "price_old", None, t - 9 * DAY)
    priced("sub_plain", "price_plain", "basic_monthly", t - 20 * DAY)
    typo = store.ledger.declare_catalog({"lookupKeys": {"pro_montly": {"entitlements": ["pro"]}}}, check_only=True)
    assert typo.unseen_lookup_keys == (("pro_montly", "pro_monthly"),) and not typo.declared
    assert any('did you mean "pro_monthly"' in w for w in typo.warnings), typo.warnings
    report = store.ledger.declare_catalog({"lookupKeys": {"pro_monthly": {"entitlements": ["pro"]}}})
    assert report.unseen_lookup_keys == () and report.unnamed_products == ("prod_pro:price_plain",)
    assert {p for p, gained, _ in report.entitlement_changes if gained == ("pro",)} == {"prod_pro:price_old", "prod_pro:price_new"}
    assert store.ledger.catalog()["lookupKeys"] == {"pro_monthly": {"entitlements": ["pro"]}}
    for sub_id, entitled in (("sub_old", True), ("sub_new", True), ("sub_plain", False)):
        assert store.ledger.is_entitled(sub_id, "pro", environment="Production") == entitled, sub_id
    assert store.ledger.entitled("sub_new", "pro_monthly", environment="Production").reason == Reason.UNKNOWN_NAME


def test_a_partial_refund_keeps_access_and_counts_its_amount(store):
    """A charge refunded in part: alice keeps pro, and the metrics' refunds hold the 3.00 given
    back on the day of the refund (no refunded subscription); refunded whole, the 9.99 instead."""
    t = now_s()
    store.ledger.ingest_stripe(subscription("sub_part", "active", t - 3 * DAY, t + 27 * DAY, user="alice"), at(t - 3 * DAY))
    invoice = {"id": "in_part", "object": "invoice", "livemode": True, "status": "paid",
               "parent": {"type": "subscription_details", "subscription_details": {"subscription": "sub_part"}},
               "lines": {"object": "list", "has_more": False, "data": [{"id": "il_part", "object": "line_item",
                         "period": {"start": t - 3 * DAY, "end": t + 27 * DAY},
                         "parent": {"type": "subscription_item_details",
                                    "subscription_item_details": {"subscription": "sub_part", "subscription_item": "si_sub_part"}}}]},
               "payments": {"object": "list", "has_more": False, "data": [{"id": "inpay_part", "object": "invoice_payment",
                            "payment": {"type": "payment_intent", "payment_intent": "pi_part"}}]}}
    store.ledger.ingest_stripe(json.dumps(invoice), at(t - 3 * DAY))

    def charge(*refunds: Any) -> str:
        given = sum(r[1] for r in refunds)
        return json.dumps({"id": "ch_part", "object": "charge", "livemode": True, "created": t - 3 * DAY, "payment_intent": "pi_part",
                           "amount": 999, "amount_refunded": given, "refunded": given == 999, "currency": "usd",
                           "refunds": {"object": "list", "has_more": False, "data": [
                               {"id": rid, "object": "refund", "amount": amount, "status": "succeeded", "created": created}
                               for rid, amount, created in refunds]}})
    store.ledger.ingest_stripe(charge(("re_1", 300, t - 2 * DAY)), at(t - 2 * DAY))
    assert store.ledger.is_entitled("alice", "prod_pro", environment="Production", by_app_user=True)
    today = datetime.datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    window = dict(environment="Production", start=today - datetime.timedelta(days=4), end=today + datetime.timedelta(days=1), granularity="day")
    day = (at(t - 2 * DAY).replace(hour=0, minute=0, second=0, microsecond=0) - window["start"]).days
    series = store.ledger.metrics(**window).series[0]
    assert series.refunds["USD"][day] == 3_000 and sum(series.refunds["USD"]) == 3_000 and sum(series["refunded"]) == 0
    store.ledger.ingest_stripe(charge(("re_1", 300, t - 2 * DAY), ("re_2", 699, t - DAY)), at(t - DAY))
    assert not store.ledger.is_entitled("alice", "prod_pro", environment="Production", by_app_user=True)
    series = store.ledger.metrics(**window).series[0]
    assert series.refunds["USD"][day + 1] == 9_990 and sum(series.refunds["USD"]) == 9_990 and sum(series["refunded"]) == 1


def test_the_past_due_grace_is_the_hosts(store):
    """past_due: access for the period Stripe is collecting for by default, for the host's grace
    when it names one, and none with timedelta(0)."""
    t = now_s()
    for sub_id, grace, reason in [("sub_default", None, Reason.GRACE_PERIOD), ("sub_3d", datetime.timedelta(days=3), Reason.GRACE_PERIOD),
                                  ("sub_none", datetime.timedelta(0), Reason.BILLING_RETRY)]:
        store.ledger.ingest_stripe(subscription(sub_id, "past_due", t - DAY, t + 29 * DAY), at(t - 60), past_due_grace=grace)
        e = store.ledger.entitled(sub_id, "prod_pro", environment="Production")
        assert e.reason == reason, sub_id
        if grace is None:
            assert e.until == at(t + 29 * DAY)
        elif grace:
            assert e.until == at(t - DAY) + grace
    with pytest.raises(ValueError, match="negative"):
        store.ledger.ingest_stripe(subscription("sub_x", "past_due", t - DAY, t + 29 * DAY), past_due_grace=datetime.timedelta(seconds=-1))
    with pytest.raises(InvalidArgumentError, match="0 to a year"):
        store.ledger.ingest_stripe(subscription("sub_x", "past_due", t - DAY, t + 29 * DAY), past_due_grace=datetime.timedelta(days=400))


def test_the_metadata_key_is_the_hosts_and_test_mode_is_sandbox(store):
    t = now_s()
    body = subscription("sub_key", "active", t - DAY, t + 29 * DAY, metadata={"user": "bob"})
    store.ledger.ingest_stripe(body, account_metadata_key="user")
    assert store.ledger.is_entitled("bob", "prod_pro", environment="Production", by_app_user=True)
    store.ledger.ingest_stripe(subscription("sub_test", "active", t - DAY, t + 29 * DAY, user="carol", livemode=False))
    assert store.ledger.is_entitled("carol", "prod_pro", environment="Sandbox", by_app_user=True)
    assert not store.ledger.is_entitled("carol", "prod_pro", environment="Production", by_app_user=True)
    with pytest.raises(InvalidArgumentError, match="metadata key"):
        store.ledger.ingest_stripe(body, account_metadata_key="a[b]")


def test_a_one_time_purchase_entitles_only_once_paid(store):
    t = now_s()
    store.ledger.ingest_stripe(checkout("cs_async", t - 2 * DAY, payment_status="unpaid", intent_status="processing"), at(t - 2 * DAY))
    assert store.ledger.entitled("cs_async", "prod_lifetime", environment="Production").reason == Reason.PENDING
    store.ledger.ingest_stripe(checkout("cs_async", t - 2 * DAY, payment_status="unpaid", intent_status="requires_payment_method"), at(t - DAY))
    failed = store.ledger.entitled("cs_async", "prod_lifetime", environment="Production")
    assert not failed and failed.reason == Reason.REVOKED
    store.ledger.ingest_stripe(checkout("cs_expired", t - 2 * DAY, payment_status="unpaid", status="expired"), at(t - DAY))
    assert store.ledger.entitled("cs_expired", "prod_lifetime", environment="Production").reason == Reason.REVOKED


@pytest.mark.parametrize("body, reason", [
    (b"not json", "not JSON"),
    (b'{"object":"customer","id":"cus_1"}', '"customer"'),
    (b'{"object":"invoice","id":"in_1","livemode":false}', r'expand\[\]=payments'),
    (json.dumps({**subscription("sub_bad", "active", 1, 2), "status": 7}).encode(), "status"),
    (json.dumps({k: v for k, v in checkout("cs_bad", 1, payment_status="paid").items() if k != "line_items"}).encode(), "line items"),
])
def test_what_is_not_a_stripe_object_is_refused_with_its_reason(store, body, reason):
    with pytest.raises(StripeObjectError, match=reason) as caught:
        store.ledger.ingest_stripe(body)
    assert caught.value.code == ESTRIPE_OBJECT
    with pytest.raises(TypeError):
        store.ledger.ingest_stripe(42)  # type: ignore[arg-type]


def test_the_tool_records_stripes_answer_and_answers_for_it(tmp_path):
    """`gatekit ledger ingest --store-kind stripe`, as docs/stripe.md shows, then asked as the
    stores' purchases are; a refusal exits with the library's code and reason."""
    import os
    import subprocess
    from conftest import REPO_ROOT
    tool = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
    store = str(tmp_path / "tool.sqlite")
    t = now_s()
    body = json.dumps(subscription("sub_tool", "past_due", t - DAY, t + 29 * DAY, metadata={"uid": "dave"})).encode()
    ingested = subprocess.run([tool, "--store", store, "ledger", "ingest", "--store-kind", "stripe", "--past-due-grace-ms", str(3 * DAY * 1000),
                               "--account-metadata-key", "uid", "-"], input=body, capture_output=True, timeout=60)
    assert ingested.returncode == 0, ingested.stderr
    report = json.loads(ingested.stdout)
    assert (report["outcome"], report["kind"], report["store"]) == ("new", "stripe-subscription", "stripe")
    asked = subprocess.run([tool, "--store", store, "ledger", "entitled", "--environment", "Production", "--app-user", "dave",
                            "prod_pro"],
                           capture_output=True, text=True, timeout=60)
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)
    assert answer["reason"] == "grace-period" and answer["store"] == "stripe" and answer["storeState"] == "past_due"
    assert answer["until"] == (t + 2 * DAY) * 1000
    refused = subprocess.run([tool, "--store", store, "ledger", "ingest", "--store-kind", "stripe", "-"], input='{"object":"customer"}',
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and 'not a Stripe object the ledger reads' in refused.stderr and '"customer"' in refused.stderr
    typo = subprocess.run([tool, "--store", store, "ledger", "ingest", "--store-kind", "strpe", "-"], input="{}", capture_output=True,
                          text=True, timeout=60)
    assert typo.returncode == 2 and "play or stripe" in typo.stderr


def test_a_batch_records_subscriptions_sessions_and_invoices_in_one_transaction(store):
    """ledger_ingest_stripe_batch: each answer read as ingest_stripe reads it, in order, one
    durable transaction; a charge among them is refused in its place (it is ingested one by one)
    and the rest recorded."""
    t = now_s()
    charge = {"id": "ch_b", "object": "charge", "livemode": True, "created": t - 60, "payment_intent": "pi_b", "amount": 999,
              "amount_refunded": 999, "refunded": True, "currency": "usd"}
    answers = [subscription("sub_b1", "active", t - DAY, t + 29 * DAY, user="bo"), json.dumps(charge),
               checkout("cs_b", t - 60, payment_status="paid", reference="bo"), subscription("sub_b1", "active", t - DAY, t + 29 * DAY, user="bo")]
    results = store.ledger.ingest_stripe_batch(answers, at(t - 5))
    assert [type(r).__name__ for r in results] == ["IngestResult", "StripeObjectError", "IngestResult", "IngestResult"]
    assert [getattr(r, "outcome", None) and r.outcome.name for r in results] == ["NEW", None, "NEW", "DUPLICATE"]
    assert isinstance(results[1], StripeObjectError) and "one by one" in str(results[1])
    assert store.ledger.is_entitled("bo", "prod_pro", environment="Production", by_app_user=True)
    assert store.ledger.entitled("bo", "prod_lifetime", environment="Production", by_app_user=True).reason == Reason.NON_CONSUMABLE
    # Charges one by one: this one paid nothing the ledger holds, so it waits.
    store.ledger.ingest_stripe(json.dumps(charge), at(t - 4))
    assert store.ledger.ingest_stripe_batch([]) == []
    with pytest.raises(TypeError):
        store.ledger.ingest_stripe_batch(json.dumps(charge))  # type: ignore[arg-type]
