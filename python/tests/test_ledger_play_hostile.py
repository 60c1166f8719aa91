"""A push is a hint, never a verdict (Hardening V): Pub/Sub reuses its OIDC token for up to an
hour and the token does not cover the body, so anyone holding one genuine push token can write
any body. Each test replays one token from a genuine push with a body the attacker wrote, and
checks that what the ledger records comes from Google's answers (the local Play stand-in's)
and Google's voided purchases list alone."""
from __future__ import annotations

import datetime
import json
import os
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

import gatekit
from gatekit.ledger import Outcome, Reason, SubscriptionStatus
from gatekit.play import PushRejected, push_body
from gatekit.testing import PlaySubscriptionLife
from play_standin import PlayStandIn, claims

UTC = datetime.timezone.utc


@pytest.fixture(scope="module")
def play() -> PlayStandIn:
    return PlayStandIn()


@pytest.fixture(scope="module")
def replayed(play: PlayStandIn) -> Dict[str, str]:
    """One genuine push token, kept and sent again with every forged body below."""
    return {"Authorization": f"Bearer {play.push_token(claims(play))}"}


def active_life(play: PlayStandIn, token: str) -> PlaySubscriptionLife:
    start = datetime.datetime.now(UTC).replace(microsecond=0) - datetime.timedelta(days=2)
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", token, start=start)
    life.subscribe()
    life.acknowledge()
    return life


def send(store: gatekit.Store, play: PlayStandIn, headers: Dict[str, str], notification: Dict[str, Any],
         message: str) -> gatekit.IngestResult:
    with play.client() as client, play.verifier() as verifier:
        return store.ledger.ingest_play_push(verifier, client, headers, push_body(notification, message))


def note(play: PlayStandIn, member: str, payload: Dict[str, Any], event_ms: str = "1") -> Dict[str, Any]:
    return {"version": "1.0", "packageName": play.s.package, "eventTimeMillis": event_ms, member: payload}


def void(life: PlaySubscriptionLife, at: datetime.datetime) -> Dict[str, Any]:
    return {"kind": "androidpublisher#voidedPurchase", "purchaseToken": life.purchase_token, "orderId": life.order_id,
            "purchaseTimeMillis": str(int(life.start.timestamp() * 1000)), "voidedTimeMillis": str(int(at.timestamp() * 1000)),
            "voidedSource": 1, "voidedReason": 0, "_kind": "subscription"}


def asked(store: gatekit.Store, token: str) -> gatekit.Entitlement:
    return store.ledger.entitled(token, "pro.monthly", environment="Production", test_signed=True)


def voided_reads(play: PlayStandIn, since: int) -> List[Dict[str, Any]]:
    return [e for e in play.log()[since:] if e.get("path", "").endswith("/voidedpurchases")]


def test_a_forged_revoke_of_an_active_subscription_changes_nothing(play, store, replayed):
    """H1: SUBSCRIPTION_REVOKED with eventTimeMillis 1 for a token Google says is ACTIVE."""
    life = active_life(play, "hostile-h1")
    play.world(subscriptions={life.purchase_token: life.resource()})
    logged = len(play.log())
    r = send(store, play, replayed, note(play, "subscriptionNotification",
                                         {"version": "1.0", "notificationType": 12, "purchaseToken": life.purchase_token}), "h1-1")
    assert r.outcome == Outcome.NEW and r.notification_type == "SUBSCRIPTION_REVOKED"
    e = asked(store, life.purchase_token)
    assert e.reason == Reason.SUBSCRIPTION and e.until == life.expires, "Google's ACTIVE answer decides, not the push's type"
    reads = voided_reads(play, logged)
    assert reads, "a push saying revoked has Google's voided list read for the token"
    month_ago = int((datetime.datetime.now(UTC) - datetime.timedelta(days=30)).timestamp() * 1000)
    assert all(month_ago <= int(dict(v["query"])["startTime"]) for v in reads), "the forged 1970 is clamped into Google's 30 days"
    # Nothing later undoes Google's word either: a refresh still says entitled.
    with play.client() as client:
        store.ledger.refresh_play_subscription(client, life.purchase_token)
    assert asked(store, life.purchase_token).reason == Reason.SUBSCRIPTION


def test_a_forged_void_that_googles_list_does_not_hold_changes_nothing(play, store, replayed):
    """H2: a voidedPurchaseNotification, refundType 1 and no orderId, for a token in no voided list."""
    life = active_life(play, "hostile-h2")
    play.world(subscriptions={life.purchase_token: life.resource()}, voided=[])
    r = send(store, play, replayed, note(play, "voidedPurchaseNotification",
                                         {"purchaseToken": life.purchase_token, "productType": 1, "refundType": 1}), "h2-1")
    assert r.outcome == Outcome.NEW and r.notification_type == "VOIDED_PURCHASE"
    e = asked(store, life.purchase_token)
    assert e.reason == Reason.SUBSCRIPTION and e.status == SubscriptionStatus.ACTIVE


def test_a_genuine_revoke_is_dated_by_googles_list_never_by_the_push(play, store, replayed):
    """Google's list holds the void: revoked at its voidedTimeMillis, whatever the push's eventTimeMillis says."""
    life = active_life(play, "hostile-revoke")
    play.world(subscriptions={life.purchase_token: life.resource()})
    send(store, play, replayed, note(play, "subscriptionNotification",
                                     {"version": "1.0", "notificationType": 4, "purchaseToken": life.purchase_token}), "rv-0")
    order = life.order_id
    life.revoke(datetime.timedelta(hours=1))
    at = life.now
    play.world(subscriptions={life.purchase_token: life.resource()}, voided=[void(life, at)])
    r = send(store, play, replayed, note(play, "subscriptionNotification",
                                         {"version": "1.0", "notificationType": 12, "purchaseToken": life.purchase_token}), "rv-1")
    assert r.notification_type == "VOIDED_PURCHASE" and r.outcome == Outcome.NEW
    e = asked(store, life.purchase_token)
    assert e.reason == Reason.REVOKED and e.status == SubscriptionStatus.REVOKED and e.transaction_id == order
    # Recorded as Google's void, under Google's instant (the push said 1970).
    keys = [i["notificationUUID"] for i in store.ledger.history(life.purchase_token, environment="Production", test_signed=True)["items"]]
    assert keys[-1] == f"voided:{order}:{int(at.timestamp() * 1000)}"
    # The sync finds the same void recorded.
    with play.client() as client:
        report = store.ledger.sync_play(client, max_refreshes=0)
    assert report.voided == 0 and report.voided_before == 1, report.raw


def test_google_s_answer_ends_access_when_the_list_has_not_the_void_yet(play, store, replayed):
    """A genuine revoke whose void Google has not listed yet: the answer (EXPIRED, expiry now) ends access."""
    life = active_life(play, "hostile-revoke-unlisted")
    life.revoke(datetime.timedelta(hours=1))
    play.world(subscriptions={life.purchase_token: life.resource()}, voided=[])
    send(store, play, replayed, note(play, "subscriptionNotification",
                                     {"version": "1.0", "notificationType": 12, "purchaseToken": life.purchase_token}), "rvu-1")
    e = asked(store, life.purchase_token)
    assert not e and e.reason == Reason.EXPIRED


def test_a_forged_push_cannot_shadow_googles_push_of_the_same_message_id(play, store, replayed):
    """M4: a push under a future message id naming another token; Google's own push with that id is not a duplicate."""
    decoy, victim = active_life(play, "hostile-m4-decoy"), active_life(play, "hostile-m4-victim")
    play.world(subscriptions={decoy.purchase_token: decoy.resource(), victim.purchase_token: victim.resource()})
    forged = send(store, play, replayed, note(play, "subscriptionNotification",
                                              {"version": "1.0", "notificationType": 4, "purchaseToken": decoy.purchase_token}), "9000001")
    assert forged.outcome == Outcome.NEW
    genuine = send(store, play, replayed, note(play, "subscriptionNotification",
                                               {"version": "1.0", "notificationType": 4, "purchaseToken": victim.purchase_token}), "9000001")
    assert genuine.outcome == Outcome.NEW and genuine.notification_uuid == "9000001"
    assert asked(store, victim.purchase_token).reason == Reason.SUBSCRIPTION
    # Redeliveries of each are duplicates, and Google is not asked again.
    api = play.counters()["api"]
    for token in (decoy.purchase_token, victim.purchase_token):
        again = send(store, play, replayed, note(play, "subscriptionNotification",
                                                 {"version": "1.0", "notificationType": 4, "purchaseToken": token}), "9000001")
        assert again.outcome == Outcome.DUPLICATE
    assert play.counters()["api"] == api


def test_a_push_cannot_take_the_key_of_a_void_from_googles_list(play, store, replayed):
    """L8: a push whose messageId is voided:<order>:<ms> is refused, and the sync records that real void."""
    life = active_life(play, "hostile-l8")
    order = life.order_id
    at = datetime.datetime.now(UTC).replace(microsecond=0) - datetime.timedelta(hours=2)
    entry = void(life, at)
    play.world(subscriptions={life.purchase_token: life.resource()})
    with play.client() as client:
        store.ledger.refresh_play_subscription(client, life.purchase_token)
    with pytest.raises(PushRejected, match="voided:"):
        send(store, play, replayed, note(play, "testNotification", {"version": "1.0"}), f"voided:{order}:{entry['voidedTimeMillis']}")
    play.world(subscriptions={life.purchase_token: life.resource()}, voided=[entry])
    with play.client() as client:
        report = store.ledger.sync_play(client, max_refreshes=0, overlap=datetime.timedelta(days=1))
    assert report.voided == 1, report.raw
    assert store.ledger.entitled(life.purchase_token, "pro.monthly", environment="Production").reason == Reason.REVOKED


def test_a_notification_must_carry_one_notification_object(play, store, replayed):
    with pytest.raises(PushRejected, match="no notification object"):
        send(store, play, replayed, {"version": "1.0", "packageName": play.s.package, "eventTimeMillis": "1"}, "empty-1")
    with pytest.raises(PushRejected, match="printable"):
        send(store, play, replayed, note(play, "testNotification", {"version": "1.0"}), "x" * 300)


@pytest.mark.parametrize("state", ["SUBSCRIPTION_STATE_EXPIRED", "SUBSCRIPTION_STATE_ON_HOLD", "SUBSCRIPTION_STATE_PAUSED",
                                   "SUBSCRIPTION_STATE_UNSPECIFIED", "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED", "SUBSCRIPTION_STATE_NEW_IN_2027"])
def test_a_state_without_access_never_entitles_whatever_the_expiry(play, store, state):
    """M1: Google's table (google-play.md §5.1) says no access in these states, and a state GateKit
    does not know (or one never paid) gives none either; an expiryTime 28 days ahead changes nothing."""
    life = active_life(play, f"hostile-m1-{state.lower()}")
    resource = life.resource()
    resource["subscriptionState"] = state
    store.ledger.ingest_play_subscription(play.s.package, life.purchase_token, json.dumps(resource))
    e = store.ledger.entitled(life.purchase_token, "pro.monthly", environment="Production")
    assert not e, f"{state} with an expiry 28 days ahead: {e.reason}"


@pytest.mark.parametrize("context", [{"someCancellationGoogleAddsLater": {"when": "later"}}, {}])
def test_a_cancellation_cause_gatekit_does_not_know_is_read_as_unknown(play, store, context):
    """M2: canceledStateContext is an open enumeration: an unknown (or no) cause is recorded, never a refusal."""
    life = active_life(play, f"hostile-m2-{len(context)}")
    resource = life.resource()
    resource["subscriptionState"] = "SUBSCRIPTION_STATE_CANCELED"
    resource["canceledStateContext"] = context
    r = store.ledger.ingest_play_subscription(play.s.package, life.purchase_token, json.dumps(resource))
    assert r.outcome == Outcome.NEW
    e = store.ledger.entitled(life.purchase_token, "pro.monthly", environment="Production")
    assert e.reason == Reason.SUBSCRIPTION and e.until == life.expires and e.store_state == "SUBSCRIPTION_STATE_CANCELED"


def test_a_resubscription_from_the_play_store_reaches_the_expired_purchases_account(play, store):
    """outOfAppPurchaseContext: a purchase made outside the app names the expired purchase's account."""
    account = "5b0c8c3e-58a8-4bd4-9f4e-2b7a1e0d9c11"
    life = active_life(play, "hostile-out-of-app")
    resource = life.resource()
    resource["outOfAppPurchaseContext"] = {"expiredExternalAccountIdentifiers": {"obfuscatedExternalAccountId": account},
                                           "expiredPurchaseToken": "an-expired-token"}
    r = store.ledger.ingest_play_subscription(play.s.package, life.purchase_token, json.dumps(resource))
    assert r.app_account_token == account
    assert store.ledger.entitled(account, "pro.monthly", environment="Production").reason == Reason.SUBSCRIPTION


def held(store: gatekit.Store, play: PlayStandIn, lives: List[PlaySubscriptionLife]) -> None:
    play.world(subscriptions={l.purchase_token: l.resource() for l in lives})
    with play.client() as client:
        for life in lives:
            store.ledger.refresh_play_subscription(client, life.purchase_token)


def test_a_page_token_cycling_across_calls_is_found(play, store):
    """M5: Google's page tokens cycling A→B→A across calls of one page each: the window remembers
    its tokens across calls, begins again at most three times, then the sync fails with the reason
    (it was PARTIAL forever)."""
    now = datetime.datetime.now(UTC).replace(microsecond=0)
    lives = [active_life(play, f"cycle-calls-{i}") for i in range(3)]
    held(store, play, lives)
    voided = [dict(void(l, now - datetime.timedelta(hours=1, minutes=i))) for i, l in enumerate(lives)]
    play.world(subscriptions={l.purchase_token: l.resource() for l in lives}, voided=voided, pageSize=1, voidedTokenCycle=True)
    outcomes = []
    with play.client() as client:
        for _ in range(15):
            try:
                outcomes.append(store.ledger.sync_play(client, max_pages=1, max_refreshes=0).outcome)
            except gatekit.play.PlayResponseError as error:
                assert "repeated an earlier page token" in str(error)
                break
        else:
            pytest.fail(f"fifteen calls, none found the cycle: {outcomes}")
    assert len(outcomes) <= 12


def test_every_due_token_is_refreshed_in_turn_across_calls(play, store):
    """M6: four tokens on hold and max_refreshes=1: four calls ask about each token once (the
    refresh pass goes on where the last call stopped), never the first token four times."""
    lives = [active_life(play, f"fair-{i}") for i in range(4)]
    for life in lives:
        life.hold()
    held(store, play, lives)
    play.world(subscriptions={l.purchase_token: l.resource() for l in lives}, voided=[])
    logged = len(play.log())
    with play.client() as client:
        for _ in range(4):
            report = store.ledger.sync_play(client, max_refreshes=1)
            assert report.refreshed == 1, report.raw
    asked = [e["path"].rsplit("/", 1)[-1] for e in play.log()[logged:] if "/purchases/subscriptionsv2/tokens/" in e.get("path", "")]
    assert sorted(asked) == sorted(l.purchase_token for l in lives), asked


def test_a_budget_spent_inside_a_page_request_ends_the_sync_partial(play, store):
    """L9: a 1 s budget against a voided-list page that takes 10 s: the sync returns PARTIAL (the
    budget), in about its budget (a generous bound: a loaded machine), never a transport error."""
    life = active_life(play, "budget-page")
    held(store, play, [life])
    play.world(subscriptions={life.purchase_token: life.resource()}, voided=[], delayMs=10000)
    began = time.monotonic()
    with play.client() as client:
        report = store.ledger.sync_play(client, budget=datetime.timedelta(seconds=1))
    took = time.monotonic() - began
    assert report.outcome == gatekit.ledger.SyncOutcome.PARTIAL and report.raw["stoppedBy"] == "budget", report.raw
    assert took < 6, f"a 1 s budget took {took:.1f} s against a 10 s page"


def test_tokens_linking_in_a_loop_supersede_nothing(play, store):
    """L7: two ACTIVE tokens each naming the other as linkedPurchaseToken, and one naming itself:
    no purchase makes such a chain, so no link supersedes and each answers as Google says (ACTIVE)."""
    a, b, c = (active_life(play, f"loop-{n}") for n in "abc")
    a.linked_purchase_token, b.linked_purchase_token, c.linked_purchase_token = b.purchase_token, a.purchase_token, c.purchase_token
    for life in (a, b, c):
        store.ledger.ingest_play_subscription(play.s.package, life.purchase_token, json.dumps(life.resource()))
    for life in (a, b, c):
        e = store.ledger.entitled(life.purchase_token, "pro.monthly", environment="Production")
        assert e.reason == Reason.SUBSCRIPTION and e.until == life.expires, (life.purchase_token, e.reason)
    # A real chain still supersedes: d replaced a (a upgrade), so a answers "upgraded".
    d = active_life(play, "loop-d")
    d.linked_purchase_token = a.purchase_token
    store.ledger.ingest_play_subscription(play.s.package, d.purchase_token, json.dumps(d.resource()))
    assert store.ledger.entitled(d.purchase_token, "pro.monthly", environment="Production").reason == Reason.SUBSCRIPTION


def test_an_answer_of_thousands_of_line_items_is_recorded_and_answers_each(play, store):
    """M3: one answer of 3,000 line items of distinct products (under the 1 MiB limit) is recorded
    in one pass (it was N²: 6,500 items took 172 s holding the write lock), and every product
    answers, in the feed and to a question."""
    items = [{"productId": f"addon.{i}", "expiryTime": "2099-01-01T00:00:00Z", "autoRenewingPlan": {"autoRenewEnabled": True},
              "offerDetails": {"basePlanId": "monthly"}, "latestSuccessfulOrderId": f"GPA.{i:04d}"} for i in range(3000)]
    answer = {"kind": "androidpublisher#subscriptionPurchaseV2", "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE",
              "startTime": "2026-01-01T00:00:00Z", "lineItems": items}
    assert len(json.dumps(answer)) < 1 << 20
    store.ledger.ingest_play_subscription(play.s.package, "many-items", json.dumps(answer))
    feed = [c for c in store.ledger.changes(limit=10_000).changes if c.original_transaction_id == "many-items"]
    assert sorted(c.product_id for c in feed) == sorted(f"addon.{i}:monthly" for i in range(3000))
    assert all(c.entitled and c.reason == Reason.SUBSCRIPTION for c in feed)
    for i in (0, 1234, 2999):
        assert store.ledger.entitled("many-items", f"addon.{i}", environment="Production").reason == Reason.SUBSCRIPTION


# ---- what the mutation audit found no test for -------------------------------------------------

def product_answer(state: object, order: str = "GPA.9") -> Dict[str, Any]:
    answer: Dict[str, Any] = {"kind": "androidpublisher#productPurchaseV2", "orderId": order,
                              "purchaseCompletionTime": "2026-01-01T00:00:00Z", "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
                              "productLineItem": [{"productId": "gems", "productOfferDetails": {"quantity": 1}}]}
    if state is not None:
        answer["purchaseStateContext"] = {"purchaseState": state}
    return answer


@pytest.mark.parametrize("state", ["PURCHASE_STATE_GOOGLE_ADDS_LATER", None])
def test_a_one_time_purchase_in_a_state_gatekit_does_not_know_entitles_nothing(play, store, state):
    store.ledger.ingest_play_product(play.s.package, f"otp-state-{state}", json.dumps(product_answer(state)))
    assert not store.ledger.entitled(f"otp-state-{state}", "gems", environment="Production")
    # The same answer PURCHASED entitles: the state decides.
    store.ledger.ingest_play_product(play.s.package, "otp-state-bought", json.dumps(product_answer("PURCHASED")))
    assert store.ledger.entitled("otp-state-bought", "gems", environment="Production").reason == Reason.NON_CONSUMABLE


def test_a_void_of_an_earlier_renewal_revokes_that_order_alone(play, store):
    """Renewed twelve times (order …..11): a void of order …..1 revokes that order, compared whole
    (never as a prefix of …..11), and the subscription still entitles."""
    start = datetime.datetime.now(UTC).replace(microsecond=0) - datetime.timedelta(hours=30)   # the 13th period of 3 h lasts to +9 h
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", "renewed-12", start=start, period=datetime.timedelta(hours=3))
    life.subscribe()
    life.acknowledge()
    renewed = []
    for _ in range(12):
        life.renew()
        renewed.append(life.order_id)
    assert life.order_id.endswith("..11") and renewed[1].endswith("..1")
    held(store, play, [life])
    early = dict(void(life, life.start + datetime.timedelta(hours=7)), orderId=renewed[1])
    play.world(subscriptions={life.purchase_token: life.resource()}, voided=[early])
    with play.client() as client:
        report = store.ledger.sync_play(client, max_refreshes=0, overlap=datetime.timedelta(days=3))
    assert report.voided == 1, report.raw
    e = store.ledger.entitled(life.purchase_token, "pro.monthly", environment="Production")
    assert e.reason == Reason.SUBSCRIPTION and e.transaction_id == life.order_id


def test_the_refresh_pass_pages_through_every_token(play, store):
    """501 Play tokens (the refresh pages 500 at a time), the last one due: it is asked about."""
    lives = [active_life(play, f"page-{i:04d}") for i in range(501)]
    lives[-1].hold()
    answers = [json.dumps(l.resource()) for l in lives]
    store.ledger.ingest_play_batch(play.s.package, "subscription", [(l.purchase_token, a) for l, a in zip(lives, answers)])
    play.world(subscriptions={lives[-1].purchase_token: lives[-1].resource()}, voided=[])
    logged = len(play.log())
    with play.client() as client:
        report = store.ledger.sync_play(client)
    asked = [e["path"].rsplit("/", 1)[-1] for e in play.log()[logged:] if "/purchases/subscriptionsv2/tokens/" in e.get("path", "")]
    assert report.refreshed == 1 and asked == [lives[-1].purchase_token], (report.raw, asked)


def test_the_checkpoint_is_the_first_pages_date_of_slow_pages(play, store):
    """Three slow voided-list pages with Google's clock two hours behind: the checkpoint is at
    most the first page's Date (the window's earliest), never a later page's."""
    now = datetime.datetime.now(UTC).replace(microsecond=0)
    lives = [active_life(play, f"slow-page-{i}") for i in range(3)]
    held(store, play, lives)
    voided = [void(l, now - datetime.timedelta(hours=3, minutes=i)) for i, l in enumerate(lives)]
    play.world(subscriptions={l.purchase_token: l.resource() for l in lives}, voided=voided, pageSize=1, delayMs=1500,
               token={"dateOffsetSeconds": -7200})
    began = time.time()
    with play.client() as client:
        report = store.ledger.sync_play(client, max_refreshes=0)
    assert report.pages == 3 and report.voided == 3, report.raw
    first_page_by = int((began + 2.5 - 7200) * 1000)
    assert report.raw["state"]["syncedUntil"] <= first_page_by, (report.raw["state"], first_page_by)


def test_a_lost_expired_push_is_healed_to_googles_last_state(play, store):
    """A canceled subscription whose period ended and whose SUBSCRIPTION_EXPIRED push was lost:
    the sync asks once more and records EXPIRED (the entitlement was right; the state now is)."""
    now = datetime.datetime.now(UTC).replace(microsecond=0)
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", "lost-expired", start=now - datetime.timedelta(days=40))
    life.subscribe()
    life.cancel()
    held(store, play, [life])
    assert store.ledger.entitled(life.purchase_token, "pro.monthly", environment="Production").store_state == "SUBSCRIPTION_STATE_CANCELED"
    life.expire()
    play.world(subscriptions={life.purchase_token: life.resource()}, voided=[])
    with play.client() as client:
        first = store.ledger.sync_play(client)
        again = store.ledger.sync_play(client)
    assert first.refreshed == 1 and again.refreshed == 0, (first.raw, again.raw)
    e = store.ledger.entitled(life.purchase_token, "pro.monthly", environment="Production")
    assert not e and e.store_state == "SUBSCRIPTION_STATE_EXPIRED"


def test_a_catalog_entry_for_a_play_subscription_names_its_base_plans(play, store):
    """A catalog naming "pro.monthly" when only "pro.monthly:monthly" was bought: the entry names
    that base plan, so it is no product nobody bought (an entry naming nothing bought still is)."""
    life = active_life(play, "catalog-base-plan")
    store.ledger.ingest_play_subscription(play.s.package, life.purchase_token, json.dumps(life.resource()))
    report = store.ledger.declare_catalog({"products": {"pro.monthly": {"type": "auto-renewable", "entitlements": ["pro"]}}},
                                          check_only=True)
    assert report.warnings == () and report.unseen_products == () and report.unnamed_products == (), report
    typo = store.ledger.declare_catalog({"products": {"pro.montly": {"type": "auto-renewable", "entitlements": ["pro"]}}},
                                        check_only=True)
    assert [u[0] for u in typo.unseen_products] == ["pro.montly"], typo


def test_a_key_set_lifetime_no_clock_holds_is_capped(play):
    """A key set served with max-age 10^20: kept a day at most (the cap), and the push verifies."""
    from gatekit.play import push_body
    from play_standin import claims
    play.world(keysMaxAge=10 ** 20)
    note = {"version": "1.0", "packageName": play.s.package, "eventTimeMillis": "1", "testNotification": {"version": "1.0"}}
    with play.verifier() as verifier:
        assert verifier.verify_push({"Authorization": f"Bearer {play.push_token(claims(play))}"}, push_body(note, "max-age")).message_id == "max-age"


def test_a_sync_killed_mid_request_is_taken_over_once_its_lease_lapses(play, store, tmp_path):
    """A Play sync killed inside a slow request holds its lease until it lapses: the next sync
    then takes over and finishes, from the checkpoint the dead one left."""
    import signal
    import subprocess
    import sys
    from conftest import child_env, location_of
    life = active_life(play, "killed-sync")
    held(store, play, [life])
    play.world(subscriptions={life.purchase_token: life.resource()}, voided=[], delayMs=20000)
    where, app_id = location_of(store)
    script = ("import datetime, sys, gatekit\nfrom play_standin import PlayStandIn\n"
              "with gatekit.Store(sys.argv[1], app_id=sys.argv[2] or None) as s, PlayStandIn().client() as c:\n"
              "    print('syncing', flush=True)\n"
              "    s.ledger.sync_play(c, lease=datetime.timedelta(seconds=2))\n")
    env = child_env()
    env["PYTHONPATH"] = str(Path(__file__).parent) + os.pathsep + env["PYTHONPATH"]
    child = subprocess.Popen([sys.executable, "-c", script, where, app_id or ""], env=env, stdout=subprocess.PIPE, text=True)
    assert child.stdout and child.stdout.readline().strip() == "syncing"
    time.sleep(1.0)   # inside the 20 s request
    child.send_signal(signal.SIGKILL)
    child.wait()
    play.world(subscriptions={life.purchase_token: life.resource()}, voided=[])
    with play.client() as client:
        assert store.ledger.sync_play(client).outcome == gatekit.ledger.SyncOutcome.BUSY, "the dead sync's lease still holds"
        time.sleep(2.5)
        report = store.ledger.sync_play(client)
    assert report.outcome == gatekit.ledger.SyncOutcome.DONE and report.raw["state"]["syncedUntil"] is not None, report.raw


def test_a_void_synced_days_later_counts_on_its_own_day(play, store):
    """A void dated five days ago, synced today: the refund is counted on the void's day in the
    metrics (the subscription active until then), and the history keeps Google's instant."""
    now = datetime.datetime.now(UTC).replace(microsecond=0)
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", "void-five-days", start=now - datetime.timedelta(days=10))
    life.subscribe()
    life.acknowledge()
    store.ledger.ingest_play_subscription(play.s.package, life.purchase_token, json.dumps(life.resource()))
    voided_at = now - datetime.timedelta(days=5)
    play.world(subscriptions={life.purchase_token: life.resource()}, voided=[void(life, voided_at)])
    with play.client() as client:
        assert store.ledger.sync_play(client, max_refreshes=0).voided == 1
    first = (now - datetime.timedelta(days=12)).replace(hour=0, minute=0, second=0)
    day = (voided_at.replace(hour=0, minute=0, second=0) - first).days
    series = store.ledger.metrics(environment="Production", start=first, end=first + datetime.timedelta(days=13), granularity="day").series[0]
    assert [i for i, n in enumerate(series["refunded"]) if n] == [day], series.counts
    assert series.refunds["USD"][day] == 9990 and sum(series.refunds["USD"]) == 9990
    assert series["activeSubscriptions"][day - 1] == 1 and series["activeSubscriptions"][day + 1] == 0
    keys = [i.get("notificationUUID") for i in store.ledger.history(life.purchase_token, environment="Production")["items"]]
    assert keys[-1] == f"voided:{life.order_id}:{int(voided_at.timestamp() * 1000)}"


def test_an_item_the_newest_answer_no_longer_carries_reads_the_tokens_last_state(play, store):
    """A deferred plan change's placeholder item: once the purchase expired, the item Google's
    newest answer no longer carries reads the token's last state (EXPIRED), not the ACTIVE of
    the answer it last appeared in (the entitlement was right; the state was not)."""
    now = datetime.datetime.now(UTC).replace(microsecond=0)

    def item(product: str, expiry: datetime.datetime) -> Dict[str, Any]:
        return {"productId": product, "expiryTime": expiry.strftime("%Y-%m-%dT%H:%M:%SZ"), "offerDetails": {"basePlanId": "p1m"},
                "autoRenewingPlan": {"autoRenewEnabled": True}}
    first = {"kind": "androidpublisher#subscriptionPurchaseV2", "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE",
             "startTime": (now - datetime.timedelta(days=20)).strftime("%Y-%m-%dT%H:%M:%SZ"),
             "lineItems": [item("old.plan", now - datetime.timedelta(hours=3)), item("new.plan", now + datetime.timedelta(days=10))]}
    last = dict(first, subscriptionState="SUBSCRIPTION_STATE_EXPIRED", lineItems=[item("new.plan", now - datetime.timedelta(hours=1))])
    store.ledger.ingest_play_subscription(play.s.package, "deferred-1", json.dumps(first), answered=now - datetime.timedelta(hours=4))
    store.ledger.ingest_play_subscription(play.s.package, "deferred-1", json.dumps(last), answered=now - datetime.timedelta(minutes=1))
    for product in ("old.plan", "new.plan"):
        e = store.ledger.entitled("deferred-1", product, environment="Production")
        assert not e and e.store_state == "SUBSCRIPTION_STATE_EXPIRED", (product, e.reason, e.store_state)
