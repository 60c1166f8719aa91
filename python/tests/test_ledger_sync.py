"""The ledger heals itself from Apple's API (docs/ledger.md, "Syncing from Apple"), against the
stand-in holding each test's own App Store history (standin_world.py):

- the drop test: a year of customer lives (ledger_lives.py's and random ones) with 30% of their
  notifications lost; syncing from Get Notification History as time passes restores answers
  identical, at every instant, to full delivery; so does a sync SIGKILLed at random and
  restarted, and two processes syncing at once (each page fetched once);
- Apple's errors mid-sync, an expired page token, a busy lease taken over after its holder died;
- one customer refreshed from Get Transaction History and Get All Subscription Statuses; a
  question that asks Apple before saying no, within its time budget, and marks its answer
  stale when Apple does not answer; the tool's sync, sync-state and refresh."""
from __future__ import annotations

import base64
import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

import pytest

import gatekit
from gatekit.jws import SignedDataVerifier
from gatekit.ledger import Reason, SyncOutcome

from conftest import REPO_ROOT, child_env, location_of, systemd_environment, systemd_exec_start, utc, worker
from ledger_lives import AUTO, DAY, MODELS, MONTH, T0, Life, build
from signing import PKI, pki  # noqa: F401  (pki is a fixture)
from standin_world import World, signed_date

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"App Store API models not found at {MODELS} (set GATEKIT_FIXTURES)")

#: The certificate-check time of every verification: the throw-away certificates are valid
#: from their creation, not on the lives' 2025 dates.
NOW_MS = int(time.time() * 1000) + 120_000
NOW = utc(ms=NOW_MS)
SEED = int(os.environ.get("GATEKIT_DROP_SEED", "0")) or random.randrange(1, 1 << 30)
TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))


@pytest.fixture(scope="module", autouse=True)
def certificate_check_time(pki: PKI) -> None:
    """The certificate-check time, taken once this module's PKI exists (its certificates are
    valid from their making): taken at import, it would precede a PKI made minutes later in a
    long run."""
    global NOW_MS, NOW
    NOW_MS = int(time.time() * 1000) + 120_000
    NOW = utc(ms=NOW_MS)


def payload(jws: str) -> Dict[str, Any]:
    body = jws.split(".")[1]
    value: Dict[str, Any] = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    return value


def random_lives(pki: PKI, bundle: str, rng: random.Random, count: int) -> List[Life]:
    """Monthly subscriptions over the year: renewals, billing failures with and without a grace
    period, then an expiry, a refund, or a last period still renewing."""
    lives = []
    for i in range(count):
        life = Life(pki, f"random{i}", original=str(90_000 + i * 100), group="40000001", bundle=bundle,
                    token=f"00000000-0000-4000-8000-{i:012d}" if i % 3 == 0 else None)
        product = rng.choice(["pro.monthly.r", "basic.monthly.r"])
        start = T0 + rng.randrange(0, 90) * DAY
        purchase = start
        for month in range(rng.randrange(2, 12)):
            tid = str(90_000 + i * 100 + month + 1)
            if month > 0 and rng.random() < 0.2:
                grace = rng.random() < 0.5
                extra = {"gracePeriodExpiresDate": purchase + 6 * DAY} if grace else {}
                life.notify("DID_FAIL_TO_RENEW", "GRACE_PERIOD" if grace else None, purchase + 1000,
                            renewal=life.renewal(purchase + 1000, product, isInBillingRetryPeriod=True, expirationIntent=2, **extra))
                purchase += rng.randrange(1, 10) * DAY
                tx = life.tx(tid, product, purchase, purchase + MONTH)
                life.notify("DID_RENEW", "BILLING_RECOVERY", purchase + 2000, tx=tx, renewal=life.renewal(purchase + 2000, product))
            else:
                tx = life.tx(tid, product, purchase, purchase + MONTH)
                life.notify("SUBSCRIBED" if month == 0 else "DID_RENEW", "INITIAL_BUY" if month == 0 else None, purchase + 1000,
                            tx=tx, renewal=life.renewal(purchase + 1000, product))
            last, purchase = tx, purchase + MONTH
        ending = rng.choice(["expire", "refund", "renewing"])
        if ending == "expire":
            off = last["purchaseDate"] + 3 * DAY
            life.notify("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", off, renewal=life.renewal(off, product, autoRenewStatus=0))
            life.notify("EXPIRED", "VOLUNTARY", last["expiresDate"] + 1000,
                        renewal=life.renewal(last["expiresDate"] + 1000, product, autoRenewStatus=0, expirationIntent=1))
        elif ending == "refund":
            at = last["purchaseDate"] + 5 * DAY
            life.notify("REFUND", None, at, tx=dict(last, signedDate=at, revocationDate=at, revocationReason=0))
        lives.append(life)
    return lives


class Data:
    """One app's lives, its notifications (some lost), and the answers full delivery gives."""

    def __init__(self, pki: PKI, tmp: Path) -> None:
        rng = random.Random(SEED)
        self.world = World()
        self.verifier = SignedDataVerifier(self.world.bundle, "Sandbox", test_anchor=pki.der("root"))
        table_lives, _ = build(pki, self.world.bundle)
        self.lives = list(table_lives.values()) + random_lives(pki, self.world.bundle, rng, 16)
        self.notifications = [jws for life in self.lives for kind, jws in life.items if kind == "notification"]
        # What the app hands over itself (its jwsRepresentation): never lost.
        self.others = [(kind, jws) for life in self.lives for kind, jws in life.items if kind != "notification"]
        self.lost = set(rng.sample(self.notifications, int(0.3 * len(self.notifications))))
        dates = [signed_date(jws) for jws in self.notifications]
        self.since = min(dates) - DAY
        end = max(dates) + DAY
        # A sync every 20 days as the year passes (Sandbox history reaches 30 days back).
        self.steps = list(range(self.since + 20 * DAY, end, 20 * DAY)) + [end]
        with gatekit.Store(str(tmp / "full.sqlite")) as full:
            self.deliver(full, self.notifications)
            self.expected = self.answers(full)

    def deliver(self, store: gatekit.Store, notifications: List[str]) -> None:
        """What reached the app: the notifications given, and every item the app itself handed over."""
        for kind, jws in self.others:
            getattr(store.ledger, f"ingest_{kind}")(jws, self.verifier, verify_time=NOW)
        for jws in notifications:
            store.ledger.ingest_notification(jws, self.verifier, verify_time=NOW)

    def delivered(self) -> List[str]:
        return [jws for jws in self.notifications if jws not in self.lost]

    def answers(self, store: gatekit.Store) -> Dict[Tuple[str, str, int], Dict[str, Any]]:
        """Every customer's answer about each of its products and groups, at every instant its
        data names (each signed date, expiry and grace period end, a millisecond either side)
        and at every step."""
        out = {}
        for life in self.lives:
            customers = [life.original] + ([life.token] if life.token else [])
            subjects: Set[str] = set()
            instants: Set[int] = set(self.steps)
            for _, jws in life.items:
                p = payload(jws)
                nested = [payload(p["data"][k]) for k in ("signedTransactionInfo", "signedRenewalInfo") if p.get("data", {}).get(k)]
                for part in [p] + nested:
                    for key in ("signedDate", "expiresDate", "gracePeriodExpiresDate", "revocationDate", "purchaseDate"):
                        if isinstance(part.get(key), int):
                            instants.update((part[key] - 1, part[key], part[key] + 1))
                    for key in ("productId", "subscriptionGroupIdentifier"):
                        if part.get(key):
                            subjects.add(part[key])
            for customer in customers:
                for subject in sorted(subjects):
                    for at in sorted(instants):
                        e = store.ledger.entitled(customer, subject, environment="Sandbox", at=utc(ms=at), test_signed=True)
                        out[(customer, subject, at)] = e.to_dict()
        return out

    def put(self, **options: Any) -> None:
        self.world.put(self.notifications, now=self.since, attempts={jws: "TIMED_OUT" for jws in self.lost}, **options)

    def sync_as_time_passes(self, store: gatekit.Store, client: Any) -> List[gatekit.ledger.SyncReport]:
        reports = []
        for step in self.steps:
            self.world.clock(step)
            reports.append(store.ledger.sync_notifications(client, self.verifier, since=utc(ms=self.since), until=utc(ms=step),
                                                           verify_time=NOW))
        return reports

    def assert_restored(self, store: gatekit.Store) -> None:
        got = self.answers(store)
        wrong = [(k, self.expected[k], got[k]) for k in self.expected if got[k] != self.expected[k]]
        assert not wrong, f"seed {SEED}: {len(wrong)} of {len(self.expected)} answers differ from full delivery, e.g. {wrong[:3]}"
        state = store.ledger.sync_state("Sandbox")
        assert state["syncedUntil"] == self.steps[-1] and "window" not in state and "leaseUntil" not in state, state


@pytest.fixture(scope="module")
def data(pki: PKI, tmp_path_factory) -> Data:
    print(f"drop test seed: {SEED} (GATEKIT_DROP_SEED={SEED} repeats it)")
    return Data(pki, tmp_path_factory.mktemp("sync-full"))


def test_a_sync_restores_what_lost_notifications_carried(open_store, data: Data) -> None:
    data.put()
    with open_store("synced") as store, data.world.client() as client:
        data.deliver(store, data.delivered())
        before = data.answers(store)
        assert any(before[k] != data.expected[k] for k in data.expected), "losing 30% of the notifications changed no answer"
        reports = data.sync_as_time_passes(store, client)
        assert all(r.outcome == SyncOutcome.DONE for r in reports), [r.raw for r in reports]
        assert sum(r.rejected for r in reports) == 0, [r.rejections for r in reports if r.rejected]
        # Each lost notification was recorded once (new, or superseded by newer data already
        # held); every other record the history held was a duplicate.
        assert sum(r.new + r.superseded for r in reports) == len(data.lost)
        assert sum(r.items for r in reports) >= len(data.notifications)
        data.assert_restored(store)
        # Synced again: nothing new, and the checkpoint stays.
        again = store.ledger.sync_notifications(client, data.verifier, until=utc(ms=data.steps[-1]), verify_time=NOW)
        assert again.outcome == SyncOutcome.DONE and again.pages == 0 and again.new == 0


def test_a_sync_killed_at_random_and_restarted_restores_the_same(open_store, data: Data, pki: PKI) -> None:
    # About 65 pages of 3, each answered after 60 ms: a whole sync takes about 4 s, and each
    # run below is killed within a second, mid-page or mid-commit.
    data.put(page_size=3, delay_ms=60)
    rng = random.Random(SEED + 1)
    with open_store("killed") as store:
        data.deliver(store, data.delivered())
        kills = 0
        while kills < 5:
            (child,) = run_workers(data, store, pki, 1, lease_ms=400)
            time.sleep(rng.uniform(0.4, 1.0))
            assert child.poll() is None, "a run finished before it could be killed: the test kills nothing"
            child.send_signal(signal.SIGKILL)
            child.wait()
            kills += 1
        stopped = store.ledger.sync_state("Sandbox")
        assert (stopped["syncedUntil"] or 0) < data.steps[-1], "the killed runs finished the sync: nothing was left to resume"
        (child,) = run_workers(data, store, pki, 1, lease_ms=400)
        out, err = child.communicate(timeout=600)
        assert child.returncode == 0, err
        print(f"killed {kills} times (seed {SEED}); stopped at {stopped}; the last run: {out.split()}")
        data.assert_restored(store)


def run_workers(data: Data, store: gatekit.Store, pki: PKI, count: int, lease_ms: int) -> List[subprocess.Popen]:
    settings = json.dumps({"bundle": data.world.bundle, "anchor": str(pki.folder / "root.der"), "steps": data.steps,
                           "since": data.since, "verify_time": NOW_MS, "lease_ms": lease_ms})
    return [worker("sync-steps", location_of(store), settings, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(count)]


def test_two_processes_syncing_at_once_fetch_each_page_once(open_store, data: Data, pki: PKI) -> None:
    data.put(page_size=3)
    logged = len(data.world.api.log.read_text().splitlines())
    with open_store("pair") as store:
        data.deliver(store, data.delivered())
        children = run_workers(data, store, pki, 2, lease_ms=10_000)
        outputs = [c.communicate(timeout=600) for c in children]
        assert all(c.returncode == 0 for c in children), [o[1] for o in outputs]
        data.assert_restored(store)
    pages = [(e["body"], tuple(sorted(map(tuple, e["query"]))))
             for e in map(json.loads, data.world.api.log.read_text().splitlines()[logged:])
             if e["path"] == "/inApps/v1/notifications/history" and e["claims"].get("bid") == data.world.bundle]
    assert pages and len(pages) == len(set(pages)), "a page of the history was fetched twice"
    busy = sum(line.startswith("BUSY") for out, _ in outputs for line in out.splitlines())
    print(f"{len(pages)} pages fetched once each; {busy} syncs found the other process syncing")


def test_apple_errors_mid_sync_lose_nothing_and_an_expired_token_restarts_its_window(open_store, data: Data) -> None:
    # The 4th request fails with Apple's (not retryable) error; the 2nd page token is refused
    # as expired: its window is read again from the start.
    data.put(page_size=3, faults=[{"request": 2, "errorCode": 4000017}, {"request": 4, "errorCode": 5000000}])
    with open_store("errors") as store, data.world.client() as client:
        data.deliver(store, data.delivered())
        data.world.clock(data.steps[0])
        with pytest.raises(gatekit.GateKitError) as failed:
            store.ledger.sync_notifications(client, data.verifier, since=utc(ms=data.since), until=utc(ms=data.steps[0]), verify_time=NOW)
        assert failed.value.code == -402 and "5000000" in str(failed.value)
        state = store.ledger.sync_state("Sandbox")
        assert state["syncedUntil"] is None and state["window"]["pages"] >= 1 and "leaseUntil" not in state, state
        report = store.ledger.sync_notifications(client, data.verifier, since=utc(ms=data.since), until=utc(ms=data.steps[0]), verify_time=NOW)
        assert report.outcome == SyncOutcome.DONE
        counters = data.world.counters()
        assert counters["notificationHistory"] >= 5
        data.sync_as_time_passes(store, client)
        data.assert_restored(store)


def test_the_first_window_restarts_when_apple_refuses_its_page_token(open_store, data: Data) -> None:
    data.put(page_size=3, faults=[{"request": 2, "errorCode": 4000017}])
    with open_store("expired") as store, data.world.client() as client:
        data.deliver(store, data.delivered())
        data.world.clock(data.steps[0])
        report = store.ledger.sync_notifications(client, data.verifier, since=utc(ms=data.since), until=utc(ms=data.steps[0]), verify_time=NOW)
        assert report.outcome == SyncOutcome.DONE and report.raw["restartedWindows"] == 1, report.raw


def test_a_busy_sync_is_taken_over_once_its_holder_is_killed(open_store, data: Data, pki: PKI) -> None:
    data.put(page_size=2, delay_ms=300)
    with open_store("takeover") as store, data.world.client() as client:
        data.deliver(store, data.delivered())
        (child,) = run_workers(data, store, pki, 1, lease_ms=1500)
        deadline = time.monotonic() + 60
        while "leaseUntil" not in store.ledger.sync_state("Sandbox"):
            assert time.monotonic() < deadline and child.poll() is None, "the child never took the lease"
            time.sleep(0.05)
        busy = store.ledger.sync_notifications(client, data.verifier, since=utc(ms=data.since), until=utc(ms=data.steps[0]), verify_time=NOW)
        assert busy.outcome == SyncOutcome.BUSY and busy.pages == 0 and busy.raw["leaseUntil"] > 0, busy.raw
        child.send_signal(signal.SIGKILL)
        child.wait()
        data.put(page_size=20)  # fast again (and its clock back at the start)
        data.world.clock(data.steps[0])
        taken = None
        while taken is None or taken.outcome == SyncOutcome.BUSY:
            assert time.monotonic() < deadline, "the lease of a killed sync was never taken over"
            time.sleep(0.1)
            taken = store.ledger.sync_notifications(client, data.verifier, since=utc(ms=data.since), until=utc(ms=data.steps[0]),
                                                    verify_time=NOW)
        assert taken.outcome == SyncOutcome.DONE
        data.sync_as_time_passes(store, client)
        data.assert_restored(store)


# ---- one customer refreshed; questions that ask Apple before saying no ----------------------

class Renewal:
    """A monthly subscription whose renewal Apple made a day ago, announced by a notification
    the app never received: the ledger holds the first period, ended with auto-renew on."""

    def __init__(self, pki: PKI) -> None:
        self.world = World()
        self.verifier = SignedDataVerifier(self.world.bundle, "Sandbox", test_anchor=pki.der("root"))
        self.anchor = pki.folder / "root.der"
        now = int(time.time() * 1000)
        life = Life(pki, "renewal", original="777000", token="5a0e8c8b-2f0a-4b7e-9d8e-77700077700a", bundle=self.world.bundle)
        first = now - 31 * DAY
        tx = life.tx("777001", "pro.monthly", first, now - DAY)
        life.notify("SUBSCRIBED", "INITIAL_BUY", first + 1000, tx=tx, renewal=life.renewal(first + 1000, "pro.monthly"))
        renewed = life.tx("777002", "pro.monthly", now - DAY, now + 29 * DAY)
        life.notify("DID_RENEW", None, now - DAY + 1000, tx=renewed, renewal=life.renewal(now - DAY + 1000, "pro.monthly"))
        lifetime = life.tx("777100", "lifetime", first, type="Non-Consumable", originalTransactionId="777100")
        life.transaction(lifetime)
        self.received = [life.items[0][1], life.items[2][1]]
        self.all = [jws for kind, jws in life.items if kind == "notification"]
        self.lifetime = life.items[2][1]
        self.token = life.token or ""

    def store_with_first_period(self, store: gatekit.Store) -> None:
        store.ledger.ingest_notification(self.received[0], self.verifier, verify_time=NOW)
        store.ledger.ingest_transaction(self.lifetime, self.verifier, verify_time=NOW)

    def ask(self, store: gatekit.Store, within: Optional[timedelta]) -> gatekit.Entitlement:
        return store.ledger.entitled("777000", "pro.monthly", environment="Sandbox", test_signed=True, refresh_within=within)


@pytest.fixture
def renewal(pki: PKI) -> Renewal:
    return Renewal(pki)


def test_a_question_asks_apple_before_saying_no_and_only_then(open_store, renewal: Renewal) -> None:
    renewal.world.put(renewal.all, transactions=[renewal.lifetime])
    with open_store() as store, renewal.world.client() as client:
        renewal.store_with_first_period(store)
        plain = renewal.ask(store, None)
        assert plain.reason == Reason.EXPIRED and not plain.stale
        # Asked to refresh, with nobody to ask: the stored answer, marked stale.
        nobody = renewal.ask(store, timedelta(seconds=2))
        assert nobody.reason == Reason.EXPIRED and nobody.stale
        store.ledger.set_refresher(client, renewal.verifier, verify_time=NOW)
        # Certain answers never ask: an entitled product, a product never bought, the past.
        assert store.ledger.is_entitled("777100", "lifetime", environment="Sandbox", test_signed=True, refresh_within=timedelta(seconds=2))
        assert not store.ledger.is_entitled("777000", "other", environment="Sandbox", test_signed=True, refresh_within=timedelta(seconds=2))
        assert renewal.world.counters()["subscriptionStatuses"] == 0
        refreshed = renewal.ask(store, timedelta(seconds=5))
        assert refreshed.entitled and refreshed.reason == Reason.SUBSCRIPTION and not refreshed.stale
        assert refreshed.transaction_id == "777002"
        assert renewal.world.counters()["subscriptionStatuses"] == 1
        # Known now: the next question does not ask.
        assert store.ledger.is_entitled("777000", "pro.monthly", environment="Sandbox", test_signed=True, refresh_within=timedelta(seconds=5))
        assert renewal.world.counters()["subscriptionStatuses"] == 1
        store.ledger.set_refresher(None)


def test_without_apples_answer_in_time_the_stored_answer_comes_back_stale(open_store, renewal: Renewal) -> None:
    renewal.world.put(renewal.all, faults=[{"request": 1, "errorCode": 5000000}])
    with open_store() as store, renewal.world.client() as client:
        renewal.store_with_first_period(store)
        store.ledger.set_refresher(client, renewal.verifier, verify_time=NOW)
        failed = renewal.ask(store, timedelta(seconds=5))
        assert failed.reason == Reason.EXPIRED and failed.stale and failed.to_dict()["stale"] is True
    renewal.world.put(renewal.all, delay_ms=1500)
    with open_store("slow") as store, renewal.world.client() as client:
        renewal.store_with_first_period(store)
        store.ledger.set_refresher(client, renewal.verifier, verify_time=NOW)
        started = time.monotonic()
        slow = renewal.ask(store, timedelta(milliseconds=300))
        waited = time.monotonic() - started
        assert slow.reason == Reason.EXPIRED and slow.stale
        assert waited < 1.4, f"the question waited {waited:.2f} s on a 0.3 s budget"


def test_a_customer_is_refreshed_by_token_then_only_what_changed_is_asked(open_store, renewal: Renewal) -> None:
    renewal.world.put(renewal.all, transactions=[renewal.lifetime])
    with open_store() as store, renewal.world.client() as client:
        renewal.store_with_first_period(store)
        # The token stands for both of the customer's purchases: each is asked about.
        report = store.ledger.refresh(client, renewal.token, renewal.verifier, verify_time=NOW)
        assert sorted(report.raw["originalTransactionIds"]) == ["777000", "777100"] and report.rejected == 0
        assert report.new >= 1 and report.raw["requests"] == 4
        assert store.ledger.is_entitled(renewal.token, "pro.monthly", environment="Sandbox", test_signed=True)
        again = store.ledger.refresh(client, "777000", renewal.verifier, verify_time=NOW)
        assert again.new == 0
        asked = [json.loads(line) for line in renewal.world.api.log.read_text().splitlines()]
        history = [e for e in asked if e["path"] == "/inApps/v2/history/777000" and e["claims"].get("bid") == renewal.world.bundle]
        assert [dict(e["query"]).get("revision") is None for e in history] == [True, False], "the second refresh did not send the revision"
        with pytest.raises(gatekit.GateKitError) as unknown:
            store.ledger.refresh(client, "00000000-0000-4000-8000-00000000dead", renewal.verifier, verify_time=NOW)
        assert unknown.value.code == -2


def test_the_tool_syncs_refreshes_and_shows_where_the_sync_stands(tmp_path: Path, renewal: Renewal) -> None:
    renewal.world.put(renewal.all)
    api = renewal.world.api
    store = tmp_path / "tool.sqlite"
    with gatekit.Store(str(store)) as s:
        renewal.store_with_first_period(s)
    common = ["--store", str(store), "--key", os.environ["GATEKIT_TEST_APPSTORE_KEY"], "--key-id", api.key_id,
              "--issuer-id", api.issuer, "--bundle-id", renewal.world.bundle, "--environment", "Sandbox", "--base-url", api.url,
              "--ca-file", api.ca, "--test-anchor", str(renewal.anchor), "--at", str(NOW_MS // 1000)]

    def tool(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([TOOL, "ledger", *args], capture_output=True, text=True, env=child_env())

    sync = tool("sync", *common, "--since", str((int(time.time()) - 40 * 86400)))
    assert sync.returncode == 0, sync.stderr
    report = json.loads(sync.stdout)
    # The lost renewal is back; the first purchase, 31 days old, is past what Sandbox history
    # keeps (30 days): the report names the gap.
    assert report["outcome"] == "done" and report["items"] == 1 and report["new"] == 1, report
    assert report["gap"]["to"] - report["gap"]["from"] > 9 * 86_400_000, report
    state = tool("sync-state", "--store", str(store), "--environment", "Sandbox")
    assert state.returncode == 0 and json.loads(state.stdout)["syncedUntil"] is not None, state.stderr
    refresh = tool("refresh", *common, "777000")
    assert refresh.returncode == 0, refresh.stderr
    assert json.loads(refresh.stdout)["originalTransactionIds"] == ["777000"]
    entitled = tool("entitled", "--store", str(store), "--environment", "Sandbox", "--test-signed", "777000", "pro.monthly")
    assert entitled.returncode == 0, entitled.stdout + entitled.stderr
    # Apple's error: exit 1 with the reason; a missing option: usage (2).
    missing = tool("refresh", *common, "999999")
    assert missing.returncode == 1 and "4040010" in missing.stderr, missing.stderr
    usage = tool("sync", "--store", str(store), "--environment", "Sandbox")
    assert usage.returncode == 2 and "missing --key" in usage.stderr, usage.stderr


def test_the_documented_systemd_unit_syncs_and_every_host_may_run_it(tmp_path: Path, renewal: Renewal) -> None:
    renewal.world.put(renewal.all, delay_ms=200)
    documented = systemd_environment("gatekit-ledger-sync.env")
    api = renewal.world.api
    ours = {"GATEKIT_STORE": str(tmp_path / "fleet.sqlite"), "KEY_FILE": os.environ["GATEKIT_TEST_APPSTORE_KEY"],
            "KEY_ID": api.key_id, "ISSUER_ID": api.issuer, "BUNDLE_ID": renewal.world.bundle, "ENVIRONMENT": "Sandbox",
            "APP_APPLE_ID": "41234",
            "EXTRA_OPTIONS": f"--base-url {api.url} --ca-file {api.ca} --test-anchor {renewal.anchor} --at {NOW_MS // 1000}"}
    assert ours.keys() == documented.keys(), "the unit's environment file names other variables than the test sets"
    command = systemd_exec_start("gatekit-ledger-sync.service", ours)
    assert command[0] == "/usr/bin/gatekit"  # where the Debian package puts the tool; here, the build's
    command[0] = TOOL
    hosts = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env()) for _ in range(2)]
    results = [h.communicate(timeout=120) for h in hosts]
    assert all(h.returncode == 0 for h in hosts), [r[1] for r in results]
    outcomes = sorted(json.loads(out)["outcome"] for out, _ in results)
    assert outcomes in (["busy", "done"], ["done", "done"]), outcomes
    # A first sync reaches back as far as Sandbox history does (30 days): the renewal a day ago,
    # once; the purchase 31 days ago is older.
    assert sum(json.loads(out)["new"] for out, _ in results) == 1
    with gatekit.Store(ours["GATEKIT_STORE"]) as store:
        assert store.ledger.is_entitled("777000", "pro.monthly", environment="Sandbox", test_signed=True)
