"""Stripe's API client and the ledger's webhook path against the Stripe stand-in on loopback,
which checks every request (the key, the pinned Stripe-Version, an Idempotency-Key on every
POST, pagination): reads, errors and retries, lists followed to the end, keys refused by
name and never quoted, answers of the other mode refused; then deliveries signed as Stripe
signs them, each read back from Stripe and recorded, forgeries refused before anything is
asked, and a replayed delivery unable to undo what Stripe says now."""
from __future__ import annotations

import datetime
import json
import os
import time
from typing import Any, Dict, List, Optional

import pytest

from gatekit.errors import GateKitError, InvalidArgumentError
from gatekit.ledger import Reason
from gatekit.ledger_stripe import DisputePolicy
from gatekit.stripe_objects import StripeMoney, StripeSubscription, parse
from gatekit import stripe as stripe_module
from gatekit.stripe import API_VERSION, StripeAPIError, StripeClient, StripeResponseError, WebhookRejected
from stripe_standin import StripeStandIn, stripe  # noqa: F401  (the stand-in fixture)

DAY = 86_400
SECRET = "whsec_api_test_secret"


def subscription(sub_id: str, status: str = "active", *, user: Optional[str] = None, created: int = 0, livemode: bool = False,
                 ended: Optional[int] = None, now: Optional[int] = None) -> Dict[str, Any]:
    now = now or int(time.time())
    return {"id": sub_id, "object": "subscription", "customer": f"cus_{sub_id}", "status": status, "livemode": livemode,
            "created": created or now - DAY, "start_date": now - DAY, "cancel_at_period_end": False, "cancel_at": None,
            "canceled_at": ended, "ended_at": ended, "pause_collection": None, "trial_start": None, "trial_end": None,
            "metadata": {"app_user_id": user} if user else {},
            "items": {"object": "list", "has_more": False, "data": [{
                "id": f"si_{sub_id}", "object": "subscription_item", "quantity": 1, "current_period_start": now - DAY,
                "current_period_end": now + 29 * DAY, "price": {"id": "price_m", "object": "price", "product": "prod_pro", "currency": "usd",
                                                                "unit_amount": 999, "type": "recurring",
                                                                "recurring": {"interval": "month", "interval_count": 1}}}]}}


def test_every_request_carries_the_key_the_pinned_version_and_each_post_its_own_idempotency_key(stripe: StripeStandIn):
    stripe.world([subscription("sub_a")], faults=[{"request": 2, "status": 500}])
    with stripe.client() as client:
        assert client.is_test and API_VERSION == stripe.s.version == "2026-06-24.dahlia"
        typed = parse(client.get("/v1/subscriptions/sub_a"))
        assert isinstance(typed, StripeSubscription) and typed.status == "active" and typed.items[0].price.unit_amount == StripeMoney("usd", 999)
        updated = client.post("/v1/subscriptions/sub_a", {"metadata[app_user_id]": "alice", "cancel_at_period_end": True})
        assert updated["metadata"] == {"app_user_id": "alice"} and updated["cancel_at_period_end"] is True
        client.post("/v1/subscriptions/sub_a", {"cancel_at_period_end": False})
    seen = stripe.requests()
    assert [(r["method"], r.get("fault"), r.get("problem")) for r in seen] == [("GET", None, None), ("POST", 500, None), ("POST", None, None),
                                                                              ("POST", None, None)]
    assert all(r["version"] == API_VERSION for r in seen) and seen[0]["idempotencyKey"] is None
    # The retry after the 500 repeats its call's key; the next call has a key of its own.
    assert seen[1]["idempotencyKey"] == seen[2]["idempotencyKey"] != seen[3]["idempotencyKey"]
    assert seen[1]["idempotencyKey"].startswith("gatekit-") and len(seen[1]["idempotencyKey"]) == 40


def test_stripes_errors_are_typed_and_429_is_retried_after_its_wait(stripe: StripeStandIn):
    stripe.world([subscription("sub_b")], faults=[{"request": 1, "status": 429, "retryAfter": "1"}])
    with stripe.client() as client:
        started = time.monotonic()
        assert client.get("/v1/subscriptions/sub_b")["id"] == "sub_b"
        assert time.monotonic() - started >= 0.9  # it waited as Stripe asked
        with pytest.raises(StripeAPIError) as missing:
            client.get("/v1/subscriptions/sub_nope")
        assert (missing.value.http_status, missing.value.type, missing.value.error_code, missing.value.param) == \
            (404, "invalid_request_error", "resource_missing", "id")
        assert not missing.value.retryable
        with pytest.raises(InvalidArgumentError, match="below /v1/"):
            client.get("/v2/core/events")
        with pytest.raises(InvalidArgumentError, match="form-encoded"):
            client.get("/v1/subscriptions", "status=all#x")
    with stripe.client(max_retries=0) as client:
        stripe.world([], faults=[{"request": 1, "status": 503}])
        with pytest.raises(StripeAPIError) as outage:
            client.get("/v1/subscriptions/sub_b")
        assert outage.value.http_status == 503 and outage.value.retryable


def test_a_list_is_followed_to_its_end_and_bounded(stripe: StripeStandIn):
    now = int(time.time())
    stripe.world([subscription(f"sub_l{i:03d}", created=now - i) for i in range(250)]
                 + [subscription("sub_gone", "canceled", created=now - 1000, ended=now - 10)])
    with stripe.client() as client:
        objects, more = client.list("/v1/subscriptions")
        assert [o["id"] for o in objects] == [f"sub_l{i:03d}" for i in range(250)] and not more
        everything, _ = client.list("/v1/subscriptions", {"status": "all"})
        assert len(everything) == 251 and everything[-1]["id"] == "sub_gone"
        first, more = client.list("/v1/subscriptions", max_pages=2)
        assert len(first) == 200 and more
        with pytest.raises(InvalidArgumentError, match="starting_after"):
            client.list("/v1/subscriptions", {"starting_after": "sub_l010"})
    pages = [dict(r["query"]) for r in stripe.requests() if r["path"] == "/v1/subscriptions"]
    assert pages[0] == {"limit": "100"} and pages[1] == {"limit": "100", "starting_after": "sub_l099"}
    assert pages[2] == {"limit": "100", "starting_after": "sub_l199"}


def test_keys_are_refused_by_name_and_never_quoted(stripe: StripeStandIn, tmp_path):
    wrong = "sk_test_" + "q" * 40
    with StripeClient(api_key=wrong, base_url=stripe.s.url, ca_file=stripe.s.ca, max_retries=0) as client:
        with pytest.raises(StripeAPIError) as refused:
            client.get("/v1/subscriptions/sub_standin")
        assert refused.value.http_status == 401 and "q" * 20 not in str(refused.value)
    for key, reason in [("pk_test_" + "a" * 30, "publishable"), ("whsec_" + "a" * 30, "signing secret"),
                        ("sk_test_short", "8 to 240"), ("hello", "not a Stripe secret")]:
        with pytest.raises(InvalidArgumentError, match=reason) as caught:
            StripeClient(api_key=key)
        assert key not in str(caught.value)
    with pytest.raises(InvalidArgumentError, match="both set"):
        StripeClient(stripe.s.key_file, api_key=wrong)
    with pytest.raises(InvalidArgumentError, match="looks like a key"):
        StripeClient(wrong)
    shared = tmp_path / "key"
    shared.write_text(wrong + "\n")
    os.chmod(shared, 0o644)  # others can read it: it has leaked
    with pytest.raises(GateKitError, match="other users can read") as leaked:
        StripeClient(shared)
    assert wrong not in str(leaked.value)
    os.chmod(shared, 0o600)
    assert StripeClient(shared).is_test


def test_an_answer_of_the_other_mode_is_refused(stripe: StripeStandIn):
    stripe.world([subscription("sub_live", livemode=True)])
    with stripe.client() as client, pytest.raises(StripeResponseError, match="live answer to a test key"):
        client.get("/v1/subscriptions/sub_live")


def test_a_delivery_is_read_back_from_stripe_and_a_replay_cannot_undo_what_stripe_says_now(stripe: StripeStandIn, store):
    stripe.world([subscription("sub_w", user="wendy")])
    with stripe.client() as client:
        header, body = stripe.delivery("customer.subscription.created", "sub_w", SECRET)
        first = store.ledger.ingest_stripe_webhook(client, {"Stripe-Signature": header}, body, SECRET)
        assert (first.event_type, first.object_id, first.livemode) == ("customer.subscription.created", "sub_w", False)
        assert first.ingested is not None and first.ingested.outcome.name == "NEW" and first.ingested.environment == "Sandbox"
        assert store.ledger.is_entitled("wendy", "prod_pro", environment="Sandbox", by_app_user=True)
        # Stripe ends it; its deleted event says so.
        now = int(time.time())
        stripe.world([subscription("sub_w", "canceled", user="wendy", ended=now - 1)])
        header2, body2 = stripe.delivery("customer.subscription.deleted", "sub_w", SECRET)
        assert store.ledger.ingest_stripe_webhook(client, header2, body2, SECRET).ingested.outcome.name == "NEW"
        assert store.ledger.entitled("wendy", "prod_pro", environment="Sandbox", by_app_user=True).reason == Reason.EXPIRED
        # The first delivery again (genuine, within its tolerance): Stripe is asked, and says canceled.
        replay = store.ledger.ingest_stripe_webhook(client, header, body, SECRET)
        assert replay.ingested is not None and replay.ingested.outcome.name == "DUPLICATE"
        assert not store.ledger.is_entitled("wendy", "prod_pro", environment="Sandbox", by_app_user=True)
        # Forgeries are refused before Stripe is asked.
        stale = stripe.delivery("customer.subscription.updated", "sub_w", SECRET, t=now - 3600)
        foreign = stripe.delivery("customer.subscription.updated", "sub_w", "whsec_another_endpoint")
        asked = len(stripe.requests())
        forgeries = [(header, body.replace(b'"active"', b'"trialing"')), foreign, stale, ("t=1,v0=00", body)]
        for (h, b), code in zip(forgeries, ["ESTRIPE_SIGNATURE", "ESTRIPE_SIGNATURE", "ESTRIPE_TIMESTAMP", "ESTRIPE_SIGNATURE_HEADER"]):
            with pytest.raises(WebhookRejected) as rejected:
                store.ledger.ingest_stripe_webhook(client, h, b, SECRET)
            assert rejected.value.code == getattr(stripe_module, code), (code, rejected.value)
        assert len(stripe.requests()) == asked


def test_invoice_and_checkout_events_read_what_they_sell(stripe: StripeStandIn, store):
    now = int(time.time())
    invoice = {"id": "in_1", "object": "invoice", "status": "paid", "livemode": False, "amount_paid": 999, "currency": "usd",
               "billing_reason": "subscription_cycle", "parent": {"type": "subscription_details",
                                                                  "subscription_details": {"subscription": "sub_inv", "metadata": {}}}}
    session = {"id": "cs_w", "object": "checkout.session", "mode": "payment", "status": "complete", "payment_status": "paid",
               "livemode": False, "created": now - 60, "client_reference_id": "xena", "customer": None, "subscription": None,
               "payment_intent": {"id": "pi_w", "object": "payment_intent", "status": "succeeded"}, "metadata": {},
               "line_items": {"object": "list", "has_more": False, "data": [{
                   "id": "li_w", "object": "item", "amount_total": 4900, "currency": "usd", "quantity": 1,
                   "price": {"id": "price_life", "object": "price", "product": "prod_lifetime", "type": "one_time"}}]}}
    customer = {"id": "cus_1", "object": "customer", "livemode": False}
    stripe.world([subscription("sub_inv", user="ivan"), invoice, session, customer])
    with stripe.client() as client:
        paid = store.ledger.ingest_stripe_webhook(client, *stripe.delivery("invoice.paid", "in_1", SECRET), SECRET)
        assert paid.ingested is not None and paid.ingested.customer == "sub_inv"
        assert store.ledger.is_entitled("ivan", "prod_pro", environment="Sandbox", by_app_user=True)
        done = store.ledger.ingest_stripe_webhook(client, *stripe.delivery("checkout.session.completed", "cs_w", SECRET), SECRET)
        assert done.ingested is not None and done.ingested.kind == "stripe-checkout-session"
        assert store.ledger.entitled("xena", "prod_lifetime", environment="Sandbox", by_app_user=True).reason == Reason.NON_CONSUMABLE
        other = store.ledger.ingest_stripe_webhook(client, *stripe.delivery("customer.updated", "cus_1", SECRET), SECRET)
        assert other.ingested is None and other.object_type == "customer"
        assert store.ledger.refresh_stripe(client, "cs_w").outcome.name == "DUPLICATE"
        assert store.ledger.refresh_stripe(client, "in_1").kind == "stripe-invoice"
        with pytest.raises(InvalidArgumentError, match="sub_"):
            store.ledger.refresh_stripe(client, "cus_1")
    sessions = [r for r in stripe.requests() if r["path"] == "/v1/checkout/sessions/cs_w"]
    assert len(sessions) == 2 and all([v for k, v in r["query"] if k == "expand[]"] == ["line_items", "payment_intent"]
               for r in sessions)


def test_a_refund_or_a_dispute_is_read_back_with_what_its_payment_paid_for(stripe: StripeStandIn, store):
    """charge.refunded and charge.dispute.* only say whom to ask: the ledger reads the charge or
    the dispute, and first what its payment paid for when it does not know (the invoice through
    /v1/invoice_payments, else the Checkout Session by its payment intent)."""
    now = int(time.time())
    sub = subscription("sub_r", user="rita")
    item = sub["items"]["data"][0]
    invoice = {"id": "in_r", "object": "invoice", "status": "paid", "livemode": False, "amount_paid": 999, "currency": "usd",
               "parent": {"type": "subscription_details", "subscription_details": {"subscription": "sub_r", "metadata": {}}},
               "lines": {"object": "list", "has_more": False, "data": [{
                   "id": "il_r", "object": "line_item", "amount": 999, "currency": "usd",
                   "period": {"start": item["current_period_start"], "end": item["current_period_end"]},
                   "parent": {"type": "subscription_item_details",
                              "subscription_item_details": {"subscription": "sub_r", "subscription_item": item["id"], "proration": False}}}]},
               "payments": {"object": "list", "has_more": False, "data": [{
                   "id": "inpay_r", "object": "invoice_payment", "status": "paid", "payment": {"type": "payment_intent", "payment_intent": "pi_r"}}]}}
    paid_by = {"id": "inpay_r", "object": "invoice_payment", "invoice": "in_r", "status": "paid", "created": now - DAY,
               "payment": {"type": "payment_intent", "payment_intent": "pi_r"}}

    def charge(charge_id: str, intent: str, refunded: int, amount: int = 999) -> Dict[str, Any]:
        refunds = [{"id": f"re_{charge_id}", "object": "refund", "amount": refunded, "status": "succeeded", "created": now - 60,
                    "charge": charge_id}] if refunded else []
        return {"id": charge_id, "object": "charge", "livemode": False, "created": now - DAY, "payment_intent": intent, "amount": amount,
                "amount_refunded": refunded, "refunded": refunded == amount, "currency": "usd", "status": "succeeded",
                "refunds": {"object": "list", "has_more": False, "data": refunds}}
    session = {"id": "cs_x", "object": "checkout.session", "mode": "payment", "status": "complete", "payment_status": "paid",
               "livemode": False, "created": now - DAY, "client_reference_id": "xavi", "customer": None, "subscription": None,
               "payment_intent": {"id": "pi_x", "object": "payment_intent", "status": "succeeded"}, "metadata": {},
               "line_items": {"object": "list", "has_more": False, "data": [{
                   "id": "li_x", "object": "item", "amount_total": 4900, "currency": "usd", "quantity": 1,
                   "price": {"id": "price_life", "object": "price", "product": "prod_lifetime", "type": "one_time"}}]}}

    def dispute(status: str) -> Dict[str, Any]:
        return {"id": "du_x", "object": "dispute", "livemode": False, "created": now - 30, "charge": "ch_x", "payment_intent": "pi_x",
                "status": status, "amount": 4900, "currency": "usd", "reason": "fraudulent"}
    stripe.world([sub, invoice, paid_by, charge("ch_r", "pi_r", 300), session, dispute("needs_response")])
    with stripe.client() as client:
        def deliver(event_type: str, object_id: str) -> Any:
            return store.ledger.ingest_stripe_webhook(client, *stripe.delivery(event_type, object_id, SECRET), SECRET)
        deliver("customer.subscription.created", "sub_r")
        # A partial refund: the charge is read (after what its payment paid for), access kept.
        partial = deliver("charge.refunded", "ch_r")
        assert partial.ingested is not None and partial.ingested.kind == "stripe-charge"
        assert store.ledger.is_entitled("rita", "prod_pro", environment="Sandbox", by_app_user=True)
        asked = [(r["path"], sorted(tuple(q) for q in r["query"])) for r in stripe.requests()]
        assert ("/v1/invoice_payments", [("limit", "1"), ("payment[payment_intent]", "pi_r"), ("payment[type]", "payment_intent")]) in asked
        assert ("/v1/invoices/in_r", [("expand[]", "payments")]) in asked and ("/v1/charges/ch_r", [("expand[]", "refunds")]) in asked
        # Refunded whole: revoked, without asking again what the payment paid for.
        stripe.objects([charge("ch_r", "pi_r", 999)])
        before = len(stripe.requests())
        deliver("charge.refunded", "ch_r")
        assert store.ledger.entitled("rita", "prod_pro", environment="Sandbox", by_app_user=True).reason == Reason.REVOKED
        assert [r["path"] for r in stripe.requests()[before:]] == ["/v1/charges/ch_r"]
        # A dispute on a one-time purchase: the Checkout Session found by its payment intent;
        # revoked while open (the default), restored when won.
        opened = deliver("charge.dispute.created", "du_x")
        assert opened.ingested is not None and opened.ingested.kind == "stripe-dispute"
        assert ("/v1/checkout/sessions", [("limit", "1"), ("payment_intent", "pi_x")]) in \
            [(r["path"], sorted(tuple(q) for q in r["query"])) for r in stripe.requests()]
        assert store.ledger.entitled("xavi", "prod_lifetime", environment="Sandbox", by_app_user=True).reason == Reason.REVOKED
        stripe.objects([dispute("won")])
        deliver("charge.dispute.closed", "du_x")
        assert store.ledger.entitled("xavi", "prod_lifetime", environment="Sandbox", by_app_user=True).reason == Reason.NON_CONSUMABLE
        # The host's policy: a dispute lost only once it is lost.
        stripe.objects([dispute("needs_response")])
        store.ledger.refresh_stripe(client, "du_x", disputes=DisputePolicy.REVOKE_WHEN_LOST)
        assert store.ledger.is_entitled("xavi", "prod_lifetime", environment="Sandbox", by_app_user=True)
        with pytest.raises(TypeError, match="DisputePolicy"):
            store.ledger.refresh_stripe(client, "du_x", disputes=1)  # type: ignore[arg-type]


def stripe_lives(now: int) -> Dict[str, List[Dict[str, Any]]]:
    """Twelve purchases, each the states Stripe's API answers in turn (stripe.md §3, §4): the
    objects a webhook at each step would make the ledger read back."""
    def sub(sub_id: str, status: str, *, start: int = now - DAY, end: int = now + 29 * DAY, product: str = "prod_pro",
            **members: Any) -> Dict[str, Any]:
        body = subscription(sub_id, status, user=f"user-{sub_id}", ended=members.pop("ended", None))
        item = body["items"]["data"][0]
        item.update(current_period_start=start, current_period_end=end, id=members.pop("item", item["id"]))
        item["price"] = dict(item["price"], product=product)
        body.update(members)
        return body

    def session(cs_id: str, payment: str, intent: str) -> Dict[str, Any]:
        return {"id": cs_id, "object": "checkout.session", "mode": "payment", "status": "complete", "payment_status": payment,
                "livemode": False, "created": now - DAY, "client_reference_id": f"user-{cs_id}", "customer": None, "subscription": None,
                "payment_intent": {"id": f"pi_{cs_id}", "object": "payment_intent", "status": intent}, "metadata": {},
                "line_items": {"object": "list", "has_more": False, "data": [{
                    "id": f"li_{cs_id}", "object": "item", "amount_total": 4900, "currency": "usd", "quantity": 1,
                    "price": {"id": "price_life", "object": "price", "product": "prod_lifetime", "type": "one_time"}}]}}
    return {
        "sub_d_renew": [sub("sub_d_renew", "active", start=now - 40 * DAY, end=now - 10 * DAY), sub("sub_d_renew", "active", start=now - 10 * DAY)],
        "sub_d_cpe": [sub("sub_d_cpe", "active"), sub("sub_d_cpe", "active", cancel_at_period_end=True)],
        "sub_d_cancel": [sub("sub_d_cancel", "active"), sub("sub_d_cancel", "canceled", ended=now - 5)],
        "sub_d_trial": [sub("sub_d_trial", "trialing", trial_start=now - DAY, trial_end=now + 13 * DAY), sub("sub_d_trial", "active")],
        "sub_d_recover": [sub("sub_d_recover", "active"), sub("sub_d_recover", "past_due"), sub("sub_d_recover", "active")],
        "sub_d_unpaid": [sub("sub_d_unpaid", "active"), sub("sub_d_unpaid", "past_due"), sub("sub_d_unpaid", "unpaid")],
        "sub_d_first": [sub("sub_d_first", "incomplete"), sub("sub_d_first", "active")],
        "sub_d_never": [sub("sub_d_never", "incomplete"), sub("sub_d_never", "incomplete_expired", ended=now - 5)],
        "sub_d_paused": [sub("sub_d_paused", "trialing"), sub("sub_d_paused", "paused")],
        "sub_d_swap": [sub("sub_d_swap", "active"), sub("sub_d_swap", "active", product="prod_max", item="si_swapped")],
        "cs_d_paid": [session("cs_d_paid", "unpaid", "processing"), session("cs_d_paid", "paid", "succeeded")],
        "cs_d_failed": [session("cs_d_failed", "unpaid", "processing"), session("cs_d_failed", "unpaid", "requires_payment_method")],
    }


def answers_of(ledger: Any, lives: Dict[str, List[Dict[str, Any]]]) -> Dict[str, Any]:
    """Every purchase's answer now, by its own id and by its user, for each product it sold."""
    answers = {}
    for purchase in lives:
        for product in ("prod_pro", "prod_max", "prod_lifetime"):
            for by_user in (False, True):
                who = f"user-{purchase}" if by_user else purchase
                e = ledger.entitled(who, product, environment="Sandbox", by_app_user=by_user)
                answers[(who, product)] = (e.reason, e.until, e.store_state)
    return answers


@pytest.mark.parametrize("seed", [62, 2026])
def test_deliveries_lost_at_random_are_restored_by_sync_stripe(stripe: StripeStandIn, open_store, seed: int):
    """Two ledgers see the same lives; one gets every webhook, the other loses each with
    probability 1/2. After its sync (the first lists every subscription, later ones read the
    Events list) every answer is the full delivery's."""
    import random
    rng = random.Random(seed)
    now = int(time.time())
    lives = stripe_lives(now)
    stripe.world([])
    with open_store("full") as full, open_store("lossy") as lossy, stripe.client() as client:
        def live(step: int) -> int:
            lost = 0
            for purchase in rng.sample(sorted(lives), len(lives)):
                states = lives[purchase]
                if step >= len(states):
                    continue
                stripe.objects([states[step]])
                kind = "checkout.session.completed" if purchase.startswith("cs_") else \
                    ("customer.subscription.created" if step == 0 else "customer.subscription.updated")
                delivery = stripe.delivery(kind, purchase, SECRET)
                full.ledger.ingest_stripe_webhook(client, *delivery, SECRET)
                if rng.random() < 0.5:
                    lost += 1
                else:
                    lossy.ledger.ingest_stripe_webhook(client, *delivery, SECRET)
            return lost
        lost = live(0)
        first = lossy.ledger.sync_stripe(client)
        assert first.outcome.name == "DONE" and first.listed == 10 and first.events == len(lives) and not first.refresh_failures
        assert answers_of(lossy.ledger, lives) == answers_of(full.ledger, lives), f"after the first sync ({lost} lost)"
        lost = live(1) + live(2)
        assert lost > 0
        assert answers_of(lossy.ledger, lives) != answers_of(full.ledger, lives)  # the losses show until the sync
        second = lossy.ledger.sync_stripe(client, max_pages=1)  # the Events list, from the checkpoint
        assert second.outcome.name == "DONE" and second.listed == 0 and second.refreshed == len(lives)
        assert answers_of(lossy.ledger, lives) == answers_of(full.ledger, lives)
    # Every list the sync read pinned the version; the events it asked for were the window's.
    events = [dict(r["query"]) for r in stripe.requests() if r["path"] == "/v1/events"]
    assert len(events) == 2 and all("created[gte]" in q and q["limit"] == "100" for q in events)
    assert int(events[1]["created[gte]"]) >= now - 700  # from the checkpoint less the overlap, not 30 days back


def test_a_sync_is_one_hosts_at_a_time_and_resumes_from_its_page(stripe: StripeStandIn, store):
    now = int(time.time())
    stripe.world([subscription(f"sub_p{i:03d}", created=now - i, user=f"p{i}") for i in range(150)])
    with stripe.client() as client:
        part = store.ledger.sync_stripe(client, max_pages=1)
        assert (part.outcome.name, part.stopped_by, part.listed, part.pages) == ("PARTIAL", "max-pages", 100, 1)
        rest = store.ledger.sync_stripe(client)
        assert rest.outcome.name == "DONE" and rest.listed == 50 and rest.raw["state"]["syncedUntil"] is not None
        assert store.ledger.is_entitled("p149", "prod_pro", environment="Sandbox", by_app_user=True)
    lists = [dict(r["query"]) for r in stripe.requests() if r["path"] == "/v1/subscriptions"]
    assert lists[0].get("starting_after") is None and lists[1]["starting_after"] == "sub_p099"  # resumed from its page


def test_a_question_asks_stripe_before_saying_no(stripe: StripeStandIn, store):
    """A renewal whose invoice.paid was lost: the period ended while the subscription renews.
    With a refresher and a budget the question reads Stripe first; without, the stored answer
    is marked stale."""
    now = int(time.time())
    ended = subscription("sub_r", user="rita", now=now)
    ended["items"]["data"][0].update(current_period_start=now - 31 * DAY, current_period_end=now - DAY)
    store.ledger.ingest_stripe(json.dumps(ended), at_seconds(now - 30 * DAY))
    stripe.world([subscription("sub_r", user="rita", now=now)])  # Stripe renewed it: a period to now + 29 days
    stale = store.ledger.entitled("sub_r", "prod_pro", environment="Sandbox", refresh_within=timedelta_ms(500))
    assert not stale and stale.reason == Reason.EXPIRED and stale.stale
    live = subscription("sub_live", user="lena", livemode=True, now=now)
    live["items"]["data"][0].update(current_period_start=now - 31 * DAY, current_period_end=now - DAY)
    store.ledger.ingest_stripe(json.dumps(live), at_seconds(now - 30 * DAY))
    with stripe.client() as client:
        store.ledger.set_stripe_refresher(client)
    # A test key never answers for a live purchase: stale, and Stripe not asked.
    untouched = store.ledger.entitled("sub_live", "prod_pro", environment="Production", refresh_within=timedelta_ms(500))
    assert not untouched and untouched.stale
    fresh = store.ledger.entitled("rita", "prod_pro", environment="Sandbox", by_app_user=True, refresh_within=timedelta_ms(5000))
    assert fresh and fresh.reason == Reason.SUBSCRIPTION and not fresh.stale and fresh.until == at_seconds(now + 29 * DAY)
    assert [r["path"] for r in stripe.requests()] == ["/v1/subscriptions/sub_r"]
    # Certain answers never ask: a second question is answered from what was recorded.
    assert store.ledger.is_entitled("sub_r", "prod_pro", environment="Sandbox", refresh_within=timedelta_ms(5000))
    assert len(stripe.requests()) == 1
    store.ledger.set_stripe_refresher(None)
    with pytest.raises(TypeError):
        store.ledger.set_stripe_refresher("sk_test_x")  # type: ignore[arg-type]


def at_seconds(seconds: int) -> "datetime.datetime":
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)


def timedelta_ms(ms: int) -> "datetime.timedelta":
    return datetime.timedelta(milliseconds=ms)
