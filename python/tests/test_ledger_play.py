"""Google Play in the ledger through the C ABI (docs/ledger.md, "Google Play"): pushes verified
and answered by the local Play stand-in `make test` starts (every request checked as Google
would), recorded on SQLite and PostgreSQL, and asked as Apple's purchases are asked: by purchase
token, by app account (a UUID obfuscatedExternalAccountId), by the catalog's names, with Apple's
and Google's purchases of one app account answered together."""
from __future__ import annotations

import datetime
import json
import uuid
from typing import Dict

import pytest

import gatekit
from gatekit.errors import InvalidArgumentError
from gatekit.jws import SignedDataVerifier
from gatekit.ledger import Outcome, Reason, SubscriptionStatus
from gatekit.play import PlayResponseError, push_body
from gatekit.testing import PlaySubscriptionLife
from ledger_lives import APP_APPLE_ID, BUNDLE, Life
from play_standin import PlayStandIn, claims
from signing import PKI, pki  # noqa: F401  (the test PKI fixture)

UTC = datetime.timezone.utc
ALICE = "0c2f4a4e-8a59-4d55-9a2e-3f7c8e1b2d6a"


@pytest.fixture(scope="module")
def play() -> PlayStandIn:
    return PlayStandIn()


def headers(play: PlayStandIn) -> Dict[str, str]:
    return {"Authorization": f"Bearer {play.push_token(claims(play))}"}


def life_now(play: PlayStandIn, token: str, **options: object) -> PlaySubscriptionLife:
    """A life whose first period covers now (the answers are recorded at the real instant)."""
    start = datetime.datetime.now(UTC).replace(microsecond=0) - datetime.timedelta(days=2)
    return PlaySubscriptionLife(play.s.package, "pro.monthly", token, start=start, **options)  # type: ignore[arg-type]


def push(store: gatekit.Store, play: PlayStandIn, life: PlaySubscriptionLife, notification: dict, message: str,
         world: bool = True) -> gatekit.IngestResult:
    """The push, with the stand-in answering the life's state (``world``: set it first; that
    zeroes the stand-in's counters)."""
    if world:
        play.world(subscriptions={life.purchase_token: life.resource()})
    with play.client() as client, play.verifier() as verifier:
        return store.ledger.ingest_play_push(verifier, client, headers(play), push_body(notification, message))


def asked(store: gatekit.Store, customer: str, subject: str, test_signed: bool = True) -> gatekit.Entitlement:
    return store.ledger.entitled(customer, subject, environment="Production", test_signed=test_signed)


def test_a_life_pushed_through_the_stand_in_answers_from_googles_answers(play, store):
    life = life_now(play, "ledger-life-1", obfuscated_account_id=ALICE)
    first = push(store, play, life, life.subscribe(), "lm-1")
    assert first.outcome == Outcome.NEW and first.kind == "play-notification" and first.store == "play"
    assert first.notification_type == "SUBSCRIPTION_PURCHASED" and first.notification_uuid == "lm-1"
    assert first.test_signed, "pushed under the stand-in's issuer, not Google's: test data"
    assert first.acknowledged is False, "not acknowledged yet: Google refunds it after three days"
    assert first.customer == ALICE and first.app_account_token == ALICE
    e = asked(store, "ledger-life-1", "pro.monthly")
    assert e.reason == Reason.SUBSCRIPTION and e.store == "play" and e.product_id == "pro.monthly:monthly"
    assert e.until == life.expires and e.store_state == "SUBSCRIPTION_STATE_ACTIVE" and e.acknowledged is False
    assert asked(store, ALICE, "pro.monthly").reason == Reason.SUBSCRIPTION, "the UUID account id is the app account token"
    assert asked(store, "ledger-life-1", "pro.monthly", test_signed=False).reason == Reason.ONLY_TEST_SIGNED

    # Pub/Sub redelivers: the message is a duplicate, and Google is not asked again.
    play.world(subscriptions={life.purchase_token: life.resource()})
    api = play.counters()["api"]
    again = push(store, play, life, life.sent[-1], "lm-1", world=False)
    assert again.outcome == Outcome.DUPLICATE and play.counters()["api"] == api

    # Acknowledged through the ledger: Google is told, and its answer after it recorded.
    with play.client() as client:
        acked = store.ledger.acknowledge_play(client, "ledger-life-1")
    assert acked.acknowledged is True and asked(store, "ledger-life-1", "pro.monthly").acknowledged is True
    ack = [e for e in play.log() if e.get("path", "").endswith(":acknowledge")]
    assert ack and ack[-1]["path"].endswith("/purchases/subscriptions/pro.monthly/tokens/ledger-life-1:acknowledge")
    with play.client() as client, pytest.raises(gatekit.errors.NotFoundError):
        store.ledger.acknowledge_play(client, "never-ingested")
    life.acknowledge()
    canceled = push(store, play, life, life.cancel(), "lm-2")
    assert canceled.outcome == Outcome.NEW and canceled.acknowledged is True
    e = asked(store, "ledger-life-1", "pro.monthly")
    assert e.reason == Reason.SUBSCRIPTION and e.until == life.expires and e.store_state == "SUBSCRIPTION_STATE_CANCELED"

    # Revoked: Google's voided list holds the order (a push alone revokes nothing: test_ledger_play_hostile.py).
    notification = life.revoke(datetime.timedelta(seconds=0))
    play.world(subscriptions={life.purchase_token: life.resource()},
               voided=[{"purchaseToken": life.purchase_token, "orderId": life.order_id, "purchaseTimeMillis": "1", "voidedSource": 1,
                        "voidedReason": 0, "voidedTimeMillis": str(int(life.now.timestamp() * 1000)), "_kind": "subscription"}])
    revoked = push(store, play, life, notification, "lm-3", world=False)
    assert revoked.notification_type == "VOIDED_PURCHASE"
    e = asked(store, "ledger-life-1", "pro.monthly")
    assert e.reason == Reason.REVOKED and not e and e.status == SubscriptionStatus.REVOKED
    # The change feed carries Play's changes in the same sequence as Apple's.
    feed = [(c.original_transaction_id, c.reason) for c in store.ledger.changes(limit=1000).changes
            if c.original_transaction_id == "ledger-life-1"]
    assert feed[0] == ("ledger-life-1", Reason.SUBSCRIPTION) and feed[-1] == ("ledger-life-1", Reason.REVOKED)
    history = store.ledger.history("ledger-life-1", environment="Production", test_signed=True)
    assert [item["kind"] for item in history["items"]] == ["play-notification", "play-subscription", "play-notification", "play-notification",
                                                           "play-notification"]
    assert history["items"][-1]["payload"]["subscriptionState"] == "SUBSCRIPTION_STATE_EXPIRED", "Google's answer, as sent"


def test_answers_the_host_fetched_are_recorded_as_sent_and_never_a_devices_json(play, store):
    life = life_now(play, "ledger-life-2")
    life.subscribe()
    life.acknowledge()
    play.world(subscriptions={life.purchase_token: life.resource()})
    with play.client() as client:
        first = store.ledger.refresh_play_subscription(client, life.purchase_token)
    assert first.outcome == Outcome.NEW and first.kind == "play-subscription" and not first.test_signed
    e = store.ledger.entitled("ledger-life-2", "pro.monthly", environment="Production")
    assert e.reason == Reason.SUBSCRIPTION and e.store == "play" and e.acknowledged is True
    # The same answer again: a duplicate; the first instant it was known stays.
    again = store.ledger.ingest_play_subscription(play.s.package, life.purchase_token, json.dumps(life.resource()))
    assert again.outcome in (Outcome.DUPLICATE, Outcome.SUPERSEDED)
    device_json = {"orderId": "GPA.1", "packageName": play.s.package, "productId": "pro.monthly", "purchaseTime": 1,
                   "purchaseState": 0, "purchaseToken": life.purchase_token, "acknowledged": True}
    with pytest.raises(PlayResponseError, match="kind"):
        store.ledger.ingest_play_subscription(play.s.package, "forged", json.dumps(device_json))
    future = datetime.datetime.now(UTC) + datetime.timedelta(minutes=5)
    with pytest.raises(InvalidArgumentError, match="future"):
        store.ledger.ingest_play_subscription(play.s.package, "later", json.dumps(life.resource()), answered=future)
    with pytest.raises(InvalidArgumentError, match="one ledger per app"):
        store.ledger.ingest_play_subscription("com.other.app", "other", json.dumps(life.resource()))
    assert store.ledger.entitled("forged", "pro.monthly", environment="Production").reason == Reason.UNKNOWN_CUSTOMER  # every answer for it was refused


def test_one_app_account_answers_for_both_stores_by_the_catalogs_names(play, store, pki: PKI):
    """Alice subscribed on iOS (appAccountToken) and bought a Play product (the same UUID as
    obfuscatedAccountId): "pro" and "no-ads" come from whichever store entitles."""
    store.ledger.declare_catalog({"products": {
        "apple.pro.monthly": {"type": "auto-renewable", "entitlements": ["pro"]},
        "pro.monthly": {"type": "auto-renewable", "entitlements": ["pro"]},
        "remove_ads": {"type": "non-consumable", "entitlements": ["no-ads"]},
    }})
    now = int(datetime.datetime.now(UTC).timestamp() * 1000)
    apple = Life(pki, "alice-ios", "7000000001", environment="Production", token=ALICE)
    apple.transaction(apple.tx("7000000001", "apple.pro.monthly", now - 86_400_000, expires=now + 10 * 86_400_000))
    verifier = SignedDataVerifier(BUNDLE, "Production", APP_APPLE_ID, test_anchor=pki.der("root"), test_production=True)
    for _, jws in apple.items:
        store.ledger.ingest_transaction(jws, verifier, verify_time=datetime.datetime.now(UTC))
    product = {"kind": "androidpublisher#productPurchaseV2", "purchaseStateContext": {"purchaseState": "PURCHASED"},
               "purchaseCompletionTime": datetime.datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "orderId": "GPA.3333-0000", "regionCode": "US",
               "obfuscatedExternalAccountId": ALICE, "testPurchaseContext": {"fopType": "TEST"},
               "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
               "productLineItem": [{"productId": "remove_ads", "productOfferDetails": {"quantity": 1, "consumptionState": "CONSUMPTION_STATE_YET_TO_BE_CONSUMED"}}]}
    r = store.ledger.ingest_play_product(play.s.package, "otp-alice", json.dumps(product))
    assert r.kind == "play-product" and r.test_signed and r.customer == ALICE
    pro = asked(store, ALICE, "pro")
    assert pro.reason == Reason.SUBSCRIPTION and pro.store == "app-store" and pro.product_id == "apple.pro.monthly"
    ads = asked(store, ALICE, "no-ads")
    assert ads.reason == Reason.NON_CONSUMABLE and ads.store == "play" and ads.grants == ("no-ads",)
    active = {e.product_id: e.store for e in store.ledger.active(ALICE, environment="Production", test_signed=True)}
    assert active == {"apple.pro.monthly": "app-store", "remove_ads": "play"}
    # A Play subscription's base plan answers to the catalog's subscription entry.
    life = life_now(play, "ledger-life-3", obfuscated_account_id=ALICE)
    push(store, play, life, life.subscribe(), "lm-pro")
    entitled = [e for e in store.ledger.active(ALICE, environment="Production", test_signed=True) if "pro" in e.grants]
    assert sorted((e.store, e.product_id) for e in entitled) == [("app-store", "apple.pro.monthly"), ("play", "pro.monthly:monthly")]
    # The metrics split by store, and alice's report naming each store's purchases.
    today = datetime.datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    window = dict(environment="Production", test_signed=True, start=today - datetime.timedelta(days=3), end=today + datetime.timedelta(days=1),
                  granularity="day")
    by_store = {s.key: s for s in store.ledger.metrics(by="store", **window).series}
    assert set(by_store) == {"app-store", "play"}
    assert by_store["play"]["new"] == [0, 1, 0, 0] and by_store["play"]["activeSubscriptions"] == [0, 1, 1, 1]
    assert by_store["app-store"]["new"] == [0, 0, 1, 0]
    # By storefront, one spelling of a country: Apple's "USA" and Play's region "US" are one series.
    by_storefront = {s.key: s for s in store.ledger.metrics(by="storefront", **window).series}
    assert set(by_storefront) == {"USA"}, by_storefront.keys()
    assert by_storefront["USA"]["new"] == [a + b for a, b in zip(by_store["play"]["new"], by_store["app-store"]["new"])] == [0, 1, 1, 0]
    page = store.ledger.customer_report(ALICE, **window).html
    assert "Google Play subscription ledger-life-3" in page and "Subscription 7000000001" in page
    assert "<td class=\"text\">Google Play</td>" in page and "<td class=\"text\">App Store</td>" in page
    # The app's report: a row per store, in neutral words (issue 60, item 16); the feed names each change's store.
    app = store.ledger.report(**window)
    assert "<h2 id=\"stores\">By store</h2>" in app and "<th scope=\"row\">App Store</th>" in app and "<th scope=\"row\">Google Play</th>" in app
    assert "Apple had signed" not in app and "as Apple signed it" not in app and "what the stores had said by then" in app
    feed = {(c.original_transaction_id, c.store) for c in store.ledger.changes(limit=1000).changes}
    assert {("7000000001", "app-store"), ("otp-alice", "play"), ("ledger-life-3", "play")} <= feed, feed


def test_the_tool_records_googles_answer_and_answers_for_it(play, tmp_path):
    """`gatekit play subscription TOKEN` piped to `gatekit ledger ingest --store-kind play`, as
    docs/ledger.md shows, then asked as Apple's purchases are."""
    import os
    import subprocess
    from conftest import REPO_ROOT
    tool = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
    life = life_now(play, "ledger-tool-1")
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource()})
    store = str(tmp_path / "tool.sqlite")
    fetched = subprocess.run([tool, "play", "subscription", life.purchase_token, "--package", play.s.package, "--service-account",
                              play.s.account, "--base-url", play.s.url, "--ca-file", play.s.ca], capture_output=True, timeout=60)
    assert fetched.returncode == 0, fetched.stderr
    ingested = subprocess.run([tool, "--store", store, "ledger", "ingest", "--store-kind", "play", "--type", "subscription",
                               "--package", play.s.package, "--token", life.purchase_token, "-"],
                              input=fetched.stdout, capture_output=True, timeout=60)
    assert ingested.returncode == 0, ingested.stderr
    report = json.loads(ingested.stdout)
    assert report["outcome"] == "new" and report["kind"] == "play-subscription" and report["store"] == "play"
    asked = subprocess.run([tool, "--store", store, "ledger", "entitled", "--environment", "Production", life.purchase_token,
                            "pro.monthly"], capture_output=True, text=True, timeout=60)
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)
    assert answer["reason"] == "subscription" and answer["store"] == "play" and answer["storeState"] == "SUBSCRIPTION_STATE_ACTIVE"
    wrong = subprocess.run([tool, "--store", store, "ledger", "ingest", "--store-kind", "play", "--type", "subscripton",
                            "--package", play.s.package, "--token", "t", "-"], input=b"{}", capture_output=True, text=False, timeout=60)
    assert wrong.returncode == 2 and b"did you mean subscription" in wrong.stderr


def drop_test_lives(play: PlayStandIn, now: datetime.datetime):
    """Ten lives (one an upgrade: two tokens) whose every step lies in the past (so the voided list, which ends at now,
    holds the revoked one), each a list of (message id, step) after its purchase."""
    day = datetime.timedelta(days=1)

    def life(name: str, days_ago: int) -> PlaySubscriptionLife:
        return PlaySubscriptionLife(play.s.package, "pro.monthly", f"drop-{name}", start=now - days_ago * day)
    lives = {n: life(n, d) for n, d in [("renew", 40), ("cancel", 20), ("revoke", 20), ("grace", 32), ("hold", 40),
                                         ("pause", 40), ("expire", 40), ("recover", 45), ("upgrade-old", 20)]}
    # An upgrade: a new token naming the old; Google's answer for the old one says it was replaced.
    lives["upgrade-new"] = PlaySubscriptionLife(play.s.package, "pro.monthly", "drop-upgrade-new", start=now - 10 * day,
                                                linked_purchase_token="drop-upgrade-old")

    def replaced(l: PlaySubscriptionLife) -> dict:
        l.canceled = {"replacementCancellation": {}}
        l.now = l.expires = now - 10 * day
        return l.expire()
    steps = {
        "renew": [lambda l: l.renew()],
        "cancel": [lambda l: l.cancel(day)],
        "revoke": [lambda l: l.revoke(2 * day)],
        "grace": [lambda l: l.enter_grace(7 * day)],
        "hold": [lambda l: l.enter_grace(3 * day), lambda l: l.hold()],
        "pause": [lambda l: l.pause(now + 20 * day)],
        "expire": [lambda l: l.cancel(day), lambda l: l.expire()],
        "recover": [lambda l: l.enter_grace(3 * day), lambda l: l.hold(), lambda l: l.recover(2 * day)],
        "upgrade-old": [replaced],
        "upgrade-new": [],
    }
    return lives, steps


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_notifications_lost_at_random_are_restored_by_sync_play(play, open_store, seed):
    """The drop test: one store receives every RTDN, another loses each (but the purchases')
    with probability one half; ledger_sync_play (the voided list, then a refresh of every token
    whose answer may have changed) restores the same answer for every token."""
    import random
    rng = random.Random(seed)
    now = datetime.datetime.now(UTC).replace(microsecond=0)
    lives, steps = drop_test_lives(play, now)
    full, lossy = open_store("full"), open_store("lossy")
    voided = []

    def deliver(life: PlaySubscriptionLife, notification: dict, message: str, lost: bool) -> None:
        play.world(subscriptions={l.purchase_token: l.resource() for l in lives.values()}, voided=voided)
        push(full, play, life, notification, message, world=False)
        if not lost:
            push(lossy, play, life, notification, message, world=False)

    for name, life in lives.items():
        life.acknowledge()
        deliver(life, life.subscribe(), f"{name}-0", lost=False)
    lost = 0
    for name, life in lives.items():
        for i, step in enumerate(steps[name], 1):
            notification = step(life)
            if name == "revoke":
                voided.append({"kind": "androidpublisher#voidedPurchase", "purchaseToken": life.purchase_token, "orderId": life.order_id,
                               "purchaseTimeMillis": str(int(life.start.timestamp() * 1000)),
                               "voidedTimeMillis": str(int(life.now.timestamp() * 1000)), "voidedSource": 1, "voidedReason": 0,
                               "_kind": "subscription"})
            drop = rng.random() < 0.5
            lost += drop
            deliver(life, notification, f"{name}-{i}", lost=drop)
    play.world(subscriptions={l.purchase_token: l.resource() for l in lives.values()}, voided=voided)

    def answers(store: gatekit.Store) -> Dict[str, tuple]:
        out = {}
        for life in lives.values():
            e = asked(store, life.purchase_token, "pro.monthly")
            out[life.purchase_token] = (e.reason, e.until, e.status)
        return out

    expected = answers(full)
    assert {r for r, _, _ in expected.values()} >= {Reason.SUBSCRIPTION, Reason.REVOKED, Reason.GRACE_PERIOD, Reason.BILLING_RETRY,
                                                    Reason.PAUSED, Reason.EXPIRED}, expected

    def metrics(store: gatekit.Store) -> list:
        m = store.ledger.metrics(environment="Production", test_signed=True, by="store", granularity="day",
                                 start=now - datetime.timedelta(days=50), end=now + datetime.timedelta(days=1))
        return [(s.key, s.counts, s.revenue) for s in m.series]
    with play.client() as client:
        report = full.ledger.sync_play(client)
        assert report.outcome == gatekit.ledger.SyncOutcome.DONE and report.refresh_failures == {}
        assert answers(full) == expected, "a sync of a store that heard everything changes no answer"
        report = lossy.ledger.sync_play(client)
        assert report.outcome == gatekit.ledger.SyncOutcome.DONE and report.voided_unknown == 0, report.raw
        assert answers(lossy) == expected, f"seed {seed}: {lost} notifications lost"
        # The metrics agree on what the answers decide: today's levels (a replaced token asked
        # again no longer counts beside its replacement) and every event's total. Not each
        # event's day: a lost grace extension is history Google's current answer no longer
        # tells, so a recovered period may begin days earlier than full delivery dates it.
        got, want = metrics(lossy), metrics(full)
        assert [k for k, _, _ in got] == [k for k, _, _ in want] == ["play"]
        levels = ("activeSubscriptions", "activeTrials", "inGracePeriod", "inBillingRetry", "paidSubscribers")
        assert {k: got[0][1][k][-1] for k in levels} == {k: want[0][1][k][-1] for k in levels}
        flows = [k for k in want[0][1] if k not in levels and k != "familyShared"]
        assert {k: sum(got[0][1][k]) for k in flows} == {k: sum(want[0][1][k]) for k in flows}
        assert {c: sum(v) for c, v in got[0][2].items()} == {c: sum(v) for c, v in want[0][2].items()}
        again = lossy.ledger.sync_play(client, overlap=datetime.timedelta(days=29))
        assert again.voided == 0 and again.voided_before == len(voided), "a void is recorded once"


def test_the_tool_syncs_a_package(play, tmp_path):
    """`gatekit ledger sync-play` runs the same sync: a void of a held token revokes it."""
    import os
    import subprocess
    from conftest import REPO_ROOT
    tool = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
    store = str(tmp_path / "tool.sqlite")
    now = datetime.datetime.now(UTC).replace(microsecond=0)
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", "tool-sync-1", start=now - datetime.timedelta(days=3))
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource()})
    client = ["--package", play.s.package, "--service-account", play.s.account, "--base-url", play.s.url, "--ca-file", play.s.ca]
    fetched = subprocess.run([tool, "play", "subscription", life.purchase_token, *client], capture_output=True, timeout=60)
    subprocess.run([tool, "--store", store, "ledger", "ingest", "--store-kind", "play", "--type", "subscription", "--package",
                    play.s.package, "--token", life.purchase_token, "-"], input=fetched.stdout, check=True, capture_output=True, timeout=60)
    life.revoke(datetime.timedelta(days=1))
    play.world(subscriptions={life.purchase_token: life.resource()},
               voided=[{"purchaseToken": life.purchase_token, "orderId": life.order_id, "voidedTimeMillis": str(int(life.now.timestamp() * 1000)),
                        "purchaseTimeMillis": "1", "voidedSource": 2, "voidedReason": 7, "_kind": "subscription"}])
    synced = subprocess.run([tool, "--store", store, "ledger", "sync-play", *client], capture_output=True, text=True, timeout=60)
    assert synced.returncode == 0, synced.stderr
    report = json.loads(synced.stdout)
    assert report["outcome"] == "done" and report["voided"] == 1 and report["packageName"] == play.s.package
    asked = subprocess.run([tool, "--store", store, "ledger", "entitled", "--environment", "Production", life.purchase_token,
                            "pro.monthly"], capture_output=True, text=True, timeout=60)
    assert asked.returncode == 3 and json.loads(asked.stdout)["reason"] == "revoked"
    # A later answer (EXPIRED, saying nothing of the void) leaves the order revoked: Google never takes a void back.
    later = subprocess.run([tool, "play", "subscription", life.purchase_token, *client], capture_output=True, timeout=60)
    subprocess.run([tool, "--store", store, "ledger", "ingest", "--store-kind", "play", "--type", "subscription", "--package",
                    play.s.package, "--token", life.purchase_token, "-"], input=later.stdout, check=True, capture_output=True, timeout=60)
    again = subprocess.run([tool, "--store", store, "ledger", "entitled", "--environment", "Production", life.purchase_token,
                            "pro.monthly"], capture_output=True, text=True, timeout=60)
    assert json.loads(again.stdout)["reason"] == "revoked"


def test_a_question_asks_google_before_saying_no(play, store):
    """Refresh-before-deny for Play: the stored answer says the period ended with renewal on
    (the RENEWED notification was lost); with a Play refresher the question asks Google within
    its budget and answers from the renewal, without one it comes back stale."""
    now = datetime.datetime.now(UTC).replace(microsecond=0)
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", "deny-1", start=now - datetime.timedelta(days=31))
    push(store, play, life, life.subscribe(), "deny-0")
    lapsed = asked(store, "deny-1", "pro.monthly")
    assert lapsed.reason == Reason.EXPIRED and not lapsed.stale
    life.renew()   # Google renewed it; the notification never came
    play.world(subscriptions={life.purchase_token: life.resource()})
    ask = dict(environment="Production", test_signed=True, refresh_within=datetime.timedelta(seconds=5))
    stale = store.ledger.entitled("deny-1", "pro.monthly", **ask)
    assert stale.reason == Reason.EXPIRED and stale.stale, "no refresher: the stored answer, marked"
    with play.client() as client:
        store.ledger.set_play_refresher(client)
    renewed = store.ledger.entitled("deny-1", "pro.monthly", **ask)
    assert renewed.reason == Reason.SUBSCRIPTION and renewed.until == life.expires and not renewed.stale
    assert play.counters()["api"] == 1, "one question, one request"
    assert asked(store, "deny-1", "pro.monthly").reason == Reason.SUBSCRIPTION, "the answer was recorded"
    store.ledger.set_play_refresher(None)


def test_a_batch_records_every_answer_in_one_transaction(play, store):
    """ledger_ingest_play_batch: answers of one package in one durable transaction, each as the
    single call would; a refused one is reported in its place and the rest are recorded."""
    lives = [life_now(play, f"batch-{i}") for i in range(3)]
    for life in lives:
        life.subscribe()
    answers = [(life.purchase_token, json.dumps(life.resource())) for life in lives]
    answers.insert(1, ("batch-bad", '{"kind":"androidpublisher#subscriptionPurchaseV2","lineItems":{}}'))
    results = store.ledger.ingest_play_batch(play.s.package, "subscription", answers)
    assert [getattr(r, "outcome", None) for r in results] == [Outcome.NEW, None, Outcome.NEW, Outcome.NEW]
    assert isinstance(results[1], PlayResponseError) and "lineItems" in str(results[1])
    for life in lives:
        assert asked(store, life.purchase_token, "pro.monthly", test_signed=False).reason == Reason.SUBSCRIPTION
    again = store.ledger.ingest_play_batch(play.s.package, "subscription", answers[:1])
    assert again[0].outcome == Outcome.DUPLICATE
    with pytest.raises(ValueError):
        store.ledger.ingest_play_batch(play.s.package, "subscriptions", answers)


def test_sync_play_trusts_googles_clock_and_survives_a_cycling_page_token(play, store):
    """The lessons of Hardening IV for the voided list: the checkpoint never passes Google's
    clock (its Date: a host whose clock runs fast cannot make the next sync skip voids), no
    endTime in Google's future is sent, a page token that repeats an earlier one of the window
    begins the window again (bounded), each void recorded once whatever is read twice."""
    now = datetime.datetime.now(UTC).replace(microsecond=0)
    lives = [PlaySubscriptionLife(play.s.package, "pro.monthly", f"cycle-{i}", start=now - datetime.timedelta(days=5)) for i in range(3)]
    for life in lives:
        life.subscribe()
    play.world(subscriptions={l.purchase_token: l.resource() for l in lives})
    with play.client() as client:
        for life in lives:
            store.ledger.refresh_play_subscription(client, life.purchase_token)
    voided = [{"purchaseToken": l.purchase_token, "orderId": l.order_id, "purchaseTimeMillis": "1", "voidedSource": 2, "voidedReason": 7,
               "voidedTimeMillis": str(int((now - datetime.timedelta(days=1, minutes=i)).timestamp() * 1000)), "_kind": "subscription"}
              for i, l in enumerate(lives)]
    # Google's clock two hours behind this host's.
    play.world(subscriptions={l.purchase_token: l.resource() for l in lives}, voided=voided, pageSize=1,
               token={"dateOffsetSeconds": -7200})
    with play.client() as client:
        report = store.ledger.sync_play(client, max_refreshes=0)
    assert report.outcome == gatekit.ledger.SyncOutcome.DONE and report.pages == 3 and report.voided == 3, report.raw
    assert abs(report.raw["clockSkewMs"] - 7_200_000) < 60_000
    checkpoint = report.raw["state"]["syncedUntil"]
    assert checkpoint <= int(now.timestamp() * 1000) - 7_000_000, "the checkpoint is Google's clock, not this host's"
    asked_end = [dict(e["query"]) for e in play.log() if e.get("path", "").endswith("/voidedpurchases")]
    assert asked_end and all("endTime" not in q for q in asked_end)
    for life in lives:
        assert store.ledger.entitled(life.purchase_token, "pro.monthly", environment="Production").reason == Reason.REVOKED
    # A server that hands back an earlier page token: the window begins again, three times at
    # most, then the sync fails; nothing is recorded twice.
    play.world(subscriptions={l.purchase_token: l.resource() for l in lives}, voided=voided, pageSize=1, voidedTokenCycle=True)
    with play.client() as client, pytest.raises(PlayResponseError, match="repeated an earlier page token"):
        store.ledger.sync_play(client, max_refreshes=0, overlap=datetime.timedelta(days=29))
    history = store.ledger.history(environment="Production")
    assert sum(1 for item in history["items"] if item.get("notificationType") == "VOIDED_PURCHASE") == 3


def test_one_time_product_and_voided_purchase_pushes(play, store):
    """ONE_TIME_PRODUCT_PURCHASED asks productsv2 and records a non-consumable; a voided
    purchase push has Google's voided list read, and a full refund there revokes it at Google's
    voidedTimeMillis; a quantity-based partial refund revokes nothing; a subscription's voided
    order is revoked the same way."""
    now = datetime.datetime.now(UTC).replace(microsecond=0)
    def product(order: str) -> dict:
        return {"kind": "androidpublisher#productPurchaseV2", "purchaseStateContext": {"purchaseState": "PURCHASED"},
                "purchaseCompletionTime": (now - datetime.timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ"), "orderId": order,
                "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
                "productLineItem": [{"productId": "gems", "productOfferDetails": {"quantity": 2, "refundableQuantity": 2,
                                                                                 "consumptionState": "CONSUMPTION_STATE_YET_TO_BE_CONSUMED"}}]}
    life = life_now(play, "voided-sub")
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource()}, productsV2={"otp-full": product("GPA.77"), "otp-part": product("GPA.78")})
    event = str(int((now - datetime.timedelta(hours=1)).timestamp() * 1000))

    def note(member: str, payload: dict) -> dict:
        return {"version": "1.0", "packageName": play.s.package, "eventTimeMillis": event, member: payload}
    with play.client() as client, play.verifier() as verifier:
        def send(notification: dict, message: str) -> gatekit.IngestResult:
            return store.ledger.ingest_play_push(verifier, client, headers(play), push_body(notification, message))
        for token in ("otp-full", "otp-part"):
            r = send(note("oneTimeProductNotification", {"version": "1.0", "notificationType": 1, "purchaseToken": token, "sku": "gems"}), f"p-{token}")
            assert r.notification_type == "ONE_TIME_PRODUCT_PURCHASED" and r.outcome == Outcome.NEW
        send(note("subscriptionNotification", {"version": "1.0", "notificationType": 4, "purchaseToken": life.purchase_token}), "v-sub-0")
        assert asked(store, "otp-full", "gems").reason == Reason.NON_CONSUMABLE
        voids = [("otp-full", "GPA.77", 2, 1), ("otp-part", "GPA.78", 2, 2), (life.purchase_token, life.order_id, 1, 1)]
        listed = [{"purchaseToken": token, "orderId": order, "purchaseTimeMillis": "1", "voidedSource": 0, "voidedReason": 1,
                   "voidedTimeMillis": event, **({"voidedQuantity": 1} if refund_type == 2 else {}),
                   **({"_kind": "subscription"} if product_type == 1 else {})} for token, order, product_type, refund_type in voids]
        play.world(subscriptions={life.purchase_token: life.resource()}, productsV2={"otp-full": product("GPA.77"), "otp-part": product("GPA.78")},
                   voided=listed)
        for token, order, product_type, refund_type in voids:
            r = send(note("voidedPurchaseNotification", {"purchaseToken": token, "orderId": order, "productType": product_type,
                                                         "refundType": refund_type}), f"v-{token}")
            assert r.outcome == Outcome.NEW and r.store == "play" and r.notification_type == "VOIDED_PURCHASE"
    full, partial, sub = (asked(store, t, s) for t, s in (("otp-full", "gems"), ("otp-part", "gems"), (life.purchase_token, "pro.monthly")))
    assert full.reason == Reason.REVOKED and not full
    assert partial.reason == Reason.NON_CONSUMABLE, "a quantity-based partial refund leaves the rest owned"
    assert sub.reason == Reason.REVOKED and sub.status == SubscriptionStatus.REVOKED
