"""The sync and the refresh against a hostile App Store API server and a wrong clock (issue 43,
findings 1-6): nothing a server sends is kept unless it can be sent back, page-token cycles
end, every sync and refresh has a budget that bounds each request too, a page holds at most
100 items, an empty status list is not Apple's final word, and the checkpoint never passes the
server's clock — a host whose clock runs six hours fast (an LD_PRELOAD shim,
Tests/c/preload/clock_offset.c) makes no other host skip history, and a checkpoint already in
the future is healed."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, Dict, List

import pytest

import gatekit
from gatekit.api_client import EAPPSTORE_RESPONSE
from gatekit.jws import SignedDataVerifier
from gatekit.ledger import Reason, SyncOutcome

from conftest import REPO_ROOT, child_env, utc
from ledger_lives import DAY, MODELS, Life
from signing import PKI, pki  # noqa: F401  (pki is a fixture)
from standin_world import World

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"App Store API models not found at {MODELS} (set GATEKIT_FIXTURES)")

TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
HOUR = 3_600_000
SIX_HOURS = 6 * HOUR


def now_ms() -> int:
    return int(time.time() * 1000)


class History:
    """A customer's notifications in a world of its own, attempted over the last two days."""

    def __init__(self, pki: PKI, name: str) -> None:
        self.pki = pki
        self.world = World()
        self.verifier = SignedDataVerifier(self.world.bundle, "Sandbox", test_anchor=pki.der("root"))
        self.life = Life(pki, name, original="880000", bundle=self.world.bundle)
        start = now_ms() - 2 * DAY
        for i in range(5):
            at = start + i * HOUR
            tx = self.life.tx(str(880001 + i), "pro.monthly", at, at + 30 * DAY)
            self.life.notify("SUBSCRIBED" if i == 0 else "DID_RENEW", "INITIAL_BUY" if i == 0 else None, at + 1000, tx=tx,
                             renewal=self.life.renewal(at + 1000, "pro.monthly"))
        self.notifications = [jws for kind, jws in self.life.items if kind == "notification"]
        self.since = start - HOUR

    def late_notification(self, at: int) -> str:
        """One more notification, signed (and attempted) at ``at``."""
        tx = self.life.tx("880100", "pro.yearly", at, at + 365 * DAY)
        self.life.notify("DID_CHANGE_RENEWAL_PREF", None, at, tx=tx, renewal=self.life.renewal(at, "pro.yearly"))
        return self.life.items[-1][1]

    def sync(self, store: gatekit.Store, client: Any, **options: Any) -> gatekit.ledger.SyncReport:
        options.setdefault("since", utc(ms=self.since))
        return store.ledger.sync_notifications(client, self.verifier, verify_time=utc(ms=now_ms() + 120_000), **options)


@pytest.fixture
def history(pki: PKI) -> History:
    return History(pki, "hostile")


def page(token: str, items: int = 0) -> Dict[str, Any]:
    return {"answer": {"notificationHistory": [{"signedPayload": "a.b.c"}] * items, "hasMore": True, "paginationToken": token}}


# ---- 1. Nothing the server sends is stored unless it is valid to send back ---------------------

def test_an_unsendable_page_token_restarts_the_window_and_is_never_kept(open_store, history: History) -> None:
    history.world.put(history.notifications, faults=[dict(page("x" * 5000), request=1)])
    with open_store() as store, history.world.client() as client:
        report = history.sync(store, client)
        assert report.outcome == SyncOutcome.DONE and report.new == 5, report.raw
        assert report.raw["unsendableTokens"] == 1 and report.raw["restartedWindows"] == 1, report.raw
        assert "window" not in store.ledger.sync_state("Sandbox")
    # A server that never sends a usable token: the sync fails, and keeps nothing that would
    # stop the next one (before the fix, every later sync failed before sending a request).
    history.world.put(history.notifications, faults=[dict(page("y" * 5000), request=n) for n in range(1, 30)])
    with open_store("wedged") as store, history.world.client() as client:
        with pytest.raises(gatekit.GateKitError) as refused:
            history.sync(store, client)
        assert refused.value.code == EAPPSTORE_RESPONSE and "could not be sent back" in str(refused.value)
        assert history.world.counters()["requests"] == 4  # the first page, and 3 restarts
        history.world.put(history.notifications)
        honest = history.sync(store, client)
        assert honest.outcome == SyncOutcome.DONE and honest.new == 5, honest.raw


def test_an_unsendable_revision_reads_the_customers_history_again(open_store, history: History) -> None:
    history.world.put(history.notifications, faults=[{"request": 1, "answer": {"signedTransactions": [], "hasMore": True,
                                                                              "revision": "r" * 5000}}])
    with open_store() as store, history.world.client() as client:
        report = store.ledger.refresh(client, "880000", history.verifier, verify_time=utc(ms=now_ms() + 120_000))
        assert report.raw["restartedHistories"] == 1 and report.new == 6, report.raw
        history.world.put(history.notifications, faults=[{"request": 1, "answer": {"signedTransactions": [], "hasMore": False,
                                                                                  "revision": "r" * 5000}}])
        kept_none = store.ledger.refresh(client, "880000", history.verifier, verify_time=utc(ms=now_ms() + 120_000))
        assert kept_none.raw["restartedHistories"] == 1, kept_none.raw
        # The next refresh asks from the start (no revision kept), and works.
        again = store.ledger.refresh(client, "880000", history.verifier, verify_time=utc(ms=now_ms() + 120_000))
        assert "restartedHistories" not in again.raw and again.duplicate >= 5, again.raw


# ---- 22. History Apple indexes late ----------------------------------------------------------

def test_history_indexed_late_is_read_by_the_next_windows_overlap(open_store, history: History) -> None:
    """A notification first attempted before the checkpoint but listed only after the first sync
    (Apple indexes its history late) is read by the next sync's overlap; no test noticed the
    overlap gone before (Hardening IV, 22)."""
    history.world.put(history.notifications)
    with open_store() as store, open_store("narrow") as narrow, history.world.client() as client:
        first = history.sync(store, client)
        assert first.new == 5 and history.sync(narrow, client, overlap=timedelta(0)).new == 5, first.raw
        late = history.late_notification(first.raw["syncedUntil"] - 10 * 60_000)
        history.world.put(history.notifications + [late])  # now listed, dated before the checkpoint
        assert history.sync(store, client).new == 1
        # Without an overlap the same history is missed: the rule is what finds it.
        assert history.sync(narrow, client, overlap=timedelta(0)).new == 0


# ---- 2. Token cycles end --------------------------------------------------------------------------

def test_a_page_token_cycle_is_found_whatever_its_length(open_store, history: History) -> None:
    # A, B, A: the third answer repeats the first token; the window is read again (honestly).
    history.world.put(history.notifications, faults=[dict(page(t), request=n) for n, t in ((1, "A"), (2, "B"), (3, "A"))])
    with open_store() as store, history.world.client() as client:
        report = history.sync(store, client)
        assert report.outcome == SyncOutcome.DONE and report.new == 5, report.raw
        assert report.raw["repeatedTokens"] == 1 and report.raw["restartedWindows"] == 1, report.raw
    # A server that cycles A, B, C, A, B, C … for good: the sync ends with the reason.
    history.world.put(history.notifications, faults=[dict(page("ABC"[n % 3]), request=n) for n in range(1, 200)])
    with open_store("cycling") as store, history.world.client() as client:
        with pytest.raises(gatekit.GateKitError) as cycle:
            history.sync(store, client)
        assert cycle.value.code == EAPPSTORE_RESPONSE and "cycle" in str(cycle.value)
        assert history.world.counters()["requests"] < 20


def test_a_revision_cycle_ends_the_refresh(open_store, history: History) -> None:
    cycle = [{"request": n, "answer": {"signedTransactions": [], "hasMore": True, "revision": "AB"[n % 2]}} for n in range(1, 50)]
    history.world.put(history.notifications, faults=cycle)
    with open_store() as store, history.world.client() as client:
        with pytest.raises(gatekit.GateKitError) as refused:
            store.ledger.refresh(client, "880000", history.verifier, verify_time=utc(ms=now_ms() + 120_000))
        assert refused.value.code == EAPPSTORE_RESPONSE and "cycle" in str(refused.value)
        assert history.world.counters()["requests"] < 10


# ---- 4. The budget bounds each request; 5. a page has an item cap -------------------------------

def test_the_budget_bounds_a_trickled_answer(open_store, history: History) -> None:
    history.world.put(history.notifications, trickle_ms=8000)
    with open_store() as store, history.world.client(timeout=timedelta(seconds=60)) as client:
        started = time.monotonic()
        report = history.sync(store, client, budget=timedelta(seconds=1))
        elapsed = time.monotonic() - started
        assert report.outcome == SyncOutcome.PARTIAL and report.raw["stoppedBy"] == "budget", report.raw
        # The answer would take 8 s to arrive; the 1 s budget ended the request itself.
        assert elapsed < 6, f"a 1 s budget returned after {elapsed:.1f} s"


def test_every_sync_reports_how_it_stopped(open_store, history: History) -> None:
    history.world.put(history.notifications, page_size=2)
    with open_store() as store, history.world.client() as client:
        first = history.sync(store, client, max_pages=1)
        assert first.outcome == SyncOutcome.PARTIAL and first.raw["stoppedBy"] == "max-pages", first.raw
        rest = history.sync(store, client)
        assert rest.outcome == SyncOutcome.DONE and rest.raw["stoppedBy"] == "caught-up", rest.raw


def test_a_page_of_more_items_than_apple_sends_is_refused_before_any_is_verified(open_store, history: History) -> None:
    history.world.put(history.notifications, faults=[dict(page("next", items=101), request=1)])
    with open_store() as store, history.world.client() as client:
        with pytest.raises(gatekit.GateKitError) as refused:
            history.sync(store, client)
        assert refused.value.code == EAPPSTORE_RESPONSE and "more than 100 items" in str(refused.value)
        assert store.ledger.sync_state("Sandbox").get("window") is None
    # 100 junk items are within the cap: each is verified (and refused) like any other.
    history.world.put(history.notifications, faults=[dict(page("next", items=100), request=1)])
    with open_store("hundred") as store, history.world.client() as client:
        report = history.sync(store, client)
        assert report.rejected == 100 and report.new == 5, report.raw


# ---- 6. An empty status list is not Apple's final word ------------------------------------------

def test_an_empty_status_answer_leaves_the_answer_stale(open_store, pki: PKI) -> None:
    world = World()
    verifier = SignedDataVerifier(world.bundle, "Sandbox", test_anchor=pki.der("root"))
    life = Life(pki, "empty-status", original="990000", bundle=world.bundle)
    now = now_ms()
    tx = life.tx("990001", "pro.monthly", now - 31 * DAY, now - DAY)
    life.notify("SUBSCRIBED", "INITIAL_BUY", now - 31 * DAY + 1000, tx=tx, renewal=life.renewal(now - 31 * DAY + 1000, "pro.monthly"))
    world.put([], faults=[{"request": 1, "answer": {"environment": "Sandbox", "bundleId": world.bundle, "data": []}}])
    with open_store() as store, world.client() as client:
        store.ledger.ingest_notification(life.items[0][1], verifier, verify_time=utc(ms=now + 120_000))
        store.ledger.set_refresher(client, verifier)
        answer = store.ledger.entitled("990000", "pro.monthly", environment="Sandbox", test_signed=True,
                                       refresh_within=timedelta(seconds=5))
        assert world.counters()["subscriptionStatuses"] == 1
        assert answer.reason == Reason.EXPIRED and answer.stale, answer


# ---- 3. A wrong clock ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def clock_shim(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("clock") / "clock_offset.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(out), str(REPO_ROOT / "Tests" / "c" / "preload" / "clock_offset.c"), "-ldl"],
                   check=True)
    return out


def tool_sync(store: Path, history: History, shim: Path, offset_ms: int) -> Dict[str, Any]:
    api = history.world.api
    env = dict(child_env(), LD_PRELOAD=str(shim), GATEKIT_TEST_CLOCK_OFFSET_MS=str(offset_ms))
    command = [TOOL, "ledger", "sync", "--store", str(store), "--key", os.environ["GATEKIT_TEST_APPSTORE_KEY"],
               "--key-id", api.key_id, "--issuer-id", api.issuer, "--bundle-id", history.world.bundle,
               "--environment", "Sandbox", "--base-url", api.url, "--ca-file", api.ca,
               "--test-anchor", str(history.pki.folder / "root.der"), "--at", str(now_ms() // 1000 + 120),
               "--since", str(history.since // 1000)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    report: Dict[str, Any] = json.loads(done.stdout)
    return report


def test_a_host_whose_clock_runs_fast_makes_no_host_skip_history(tmp_path: Path, history: History, clock_shim: Path) -> None:
    late_at = now_ms() + 3000
    late = history.late_notification(late_at)
    history.world.put(history.notifications + [late])
    store = tmp_path / "fleet.sqlite"
    fast = tool_sync(store, history, clock_shim, SIX_HOURS)
    assert fast["new"] == 5 and abs(fast["clockSkewMs"] - SIX_HOURS) < 60_000, fast
    # The checkpoint is the server's now, not six hours ahead.
    assert fast["syncedUntil"] <= now_ms() + 2000, fast
    while now_ms() < late_at + 1500:
        time.sleep(0.2)
    honest = tool_sync(store, history, clock_shim, 0)
    assert honest["new"] == 1 and "healed" not in honest, honest
    # A host whose clock runs six hours slow still syncs up to the server's now.
    slow = tool_sync(store, history, clock_shim, -SIX_HOURS)
    assert slow["outcome"] == "done" and abs(slow["clockSkewMs"] + SIX_HOURS) < 60_000, slow
    assert "healed" not in slow and slow["syncedUntil"] >= honest["syncedUntil"], slow


def test_a_checkpoint_in_the_future_is_seen_and_healed(tmp_path: Path, history: History, clock_shim: Path) -> None:
    history.world.put(history.notifications[:3])
    store = tmp_path / "healed.sqlite"
    first = tool_sync(store, history, clock_shim, 0)
    assert first["new"] == 3, first
    # What an older GateKit on a fast host left: a checkpoint six hours ahead.
    future = now_ms() + SIX_HOURS
    with sqlite3.connect(store) as db:
        db.execute("UPDATE ledger_sync SET synced_until_ms = ?", (future,))
    with gatekit.Store(str(store)) as s:
        ahead = s.ledger.sync_state("Sandbox")
    assert ahead["checkpointAheadMs"] > SIX_HOURS - 60_000, ahead
    history.world.put(history.notifications)  # two arrived meanwhile
    healed = tool_sync(store, history, clock_shim, 0)
    assert healed["healed"]["checkpoint"] == future and healed["new"] == 2, healed
    assert healed["syncedUntil"] <= now_ms() + 2000, healed
    with gatekit.Store(str(store)) as s:
        assert "checkpointAheadMs" not in s.ledger.sync_state("Sandbox")
