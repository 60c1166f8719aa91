"""The change feed (docs/ledger.md, "The change feed") on SQLite and PostgreSQL: a subscription's
life played in real time, seconds long — bought, auto-renew turned off, expired, bought again,
billing failing into a grace period and out of it, refunded — gives exactly the changes its
answers went through: each one once, in order, none for an item that changed no answer, and
those time alone made dated at their instant. The as-of answers of the same ledger agree. A
reader following the feed from another handle sees the same changes; the tool prints them as
JSON lines; examples/webhook_forwarder.py delivers them at least once across a restart."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

import gatekit
from gatekit.jws import SignedDataVerifier
from gatekit.ledger import Change, Reason

from conftest import REPO_ROOT, child_env, example, example_env, location_of, utc
from ledger_lives import BUNDLE, MODELS, Life
from signing import CHAIN, PKI, pki  # noqa: F401  (pki is a fixture)

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"App Store API models not found at {MODELS} (set GATEKIT_FIXTURES)")
TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))


def now_ms() -> int:
    return int(time.time() * 1000)


def until(t: int) -> None:
    """Sleeps until the instant t (Unix ms)."""
    time.sleep(max(0.0, (t - now_ms()) / 1000))


class Play:
    """A subscription's life in real time from t0, each item ingested at its instant."""

    def __init__(self, pki: PKI, store: gatekit.Store, verifier: SignedDataVerifier) -> None:
        self.life = Life(pki, "feed", original="5100")
        self.store, self.verifier = store, verifier
        self.t0 = now_ms() + 300
        self.ingested: List[Tuple[int, int]] = []  # (instant, history item id)

    def at(self, offset: int, kind: str, subtype: Optional[str], tx: Optional[Dict[str, Any]] = None,
           renewal: Optional[Dict[str, Any]] = None) -> None:
        t = self.t0 + offset
        until(t)
        signed = now_ms()
        self.life.notify(kind, subtype, signed, tx=tx, renewal=renewal)
        result = self.store.ledger.ingest_notification(self.life.items[-1][1], self.verifier)
        history = self.store.ledger.history(environment="Sandbox", test_signed=True)["items"]
        self.ingested.append((signed, history[-1]["id"]))
        assert result.outcome.name == "NEW"


def play(pki: PKI, store: gatekit.Store, verifier: SignedDataVerifier) -> Play:
    p = Play(pki, store, verifier)
    life, t0 = p.life, p.t0
    first = life.tx("5101", "pro.monthly", t0, t0 + 1500)
    p.at(0, "SUBSCRIBED", "INITIAL_BUY", tx=first, renewal=life.renewal(t0, "pro.monthly"))
    p.at(300, "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", renewal=life.renewal(t0 + 300, "pro.monthly", autoRenewStatus=0))
    # t0+1500: the period ends, nothing ingested: a change made by time.
    second = life.tx("5102", "pro.monthly", t0 + 2000, t0 + 3500)
    p.at(2000, "SUBSCRIBED", "RESUBSCRIBE", tx=second, renewal=life.renewal(t0 + 2000, "pro.monthly"))
    p.at(2500, "DID_FAIL_TO_RENEW", "GRACE_PERIOD", renewal=life.renewal(
        t0 + 2500, "pro.monthly", isInBillingRetryPeriod=True, gracePeriodExpiresDate=t0 + 4500, expirationIntent=2))
    # t0+3500: the period ends in the grace period; t0+4500: the grace period ends.
    refunded = dict(second, signedDate=t0 + 5000, revocationDate=t0 + 5000, revocationReason=0)
    p.at(5000, "REFUND", None, tx=refunded)
    return p


def state(c: Change) -> Tuple[bool, Reason, Optional[int], Optional[int]]:
    return (c.entitled, c.reason, int(c.status) if c.status is not None else None,
            gatekit._time.milliseconds(c.until, "until") if c.until else None)


def test_a_life_gives_exactly_the_changes_its_answers_went_through(open_store, pki: PKI) -> None:
    verifier = SignedDataVerifier(BUNDLE, "Sandbox", test_anchor=pki.der("root"))
    with open_store() as store, open_store() as reader:
        followed: List[Change] = []
        stop = threading.Event()

        def follow() -> None:
            after = 0
            while not stop.is_set():
                page = reader.ledger.changes(after)
                followed.extend(page.changes)
                after = page.last
                if not page.changes:
                    reader.ledger.wait_changes(after, timedelta(milliseconds=200))

        follower = threading.Thread(target=follow)
        follower.start()
        try:
            p = play(pki, store, verifier)
            t0 = p.t0
            time.sleep(0.3)
            changes = store.ledger.changes().changes
        finally:
            stop.set()
            follower.join(30)
        items = [item for _, item in p.ingested]
        expected = [  # (cause, item or instant, entitled, reason, status, until)
            ("ingest", items[0], True, Reason.SUBSCRIPTION, 1, t0 + 1500),
            ("ingest", items[1], True, Reason.SUBSCRIPTION, 1, t0 + 1500),  # auto-renew turned off: willRenew false
            ("time", t0 + 1500, False, Reason.EXPIRED, 2, None),
            ("ingest", items[2], True, Reason.SUBSCRIPTION, 1, t0 + 3500),
            ("time", t0 + 3500, True, Reason.GRACE_PERIOD, 4, t0 + 4500),
            ("time", t0 + 4500, False, Reason.BILLING_RETRY, 3, None),
            ("ingest", items[4], False, Reason.REVOKED, 5, None),
        ]
        got = [(c.cause, c.item if c.cause == "ingest" else gatekit._time.milliseconds(c.at, "at"), *state(c)) for c in changes]
        assert got == expected
        assert [c.will_renew for c in changes] == [True, False, None, True, True, None, None]
        assert [c.seq for c in changes] == list(range(1, len(expected) + 1))
        assert all(c.original_transaction_id == "5100" and c.product_id == "pro.monthly" for c in changes)
        # An ingested change is dated when it was ingested.
        for c in changes:
            if c.cause == "ingest":
                signed = next(at for at, item in p.ingested if item == c.item)
                assert signed <= gatekit._time.milliseconds(c.at, "at") <= signed + 2000
        # The reader on its own handle, woken as the changes came, saw the same ones, once each.
        assert [c.seq for c in followed] == [c.seq for c in changes]

        # The as-of answers go through the same states at the same instants.
        seen = []
        for at in range(t0 - 100, t0 + 5300, 10):
            e = store.ledger.entitled("5100", "pro.monthly", environment="Sandbox", test_signed=True, at=utc(ms=at))
            s = (e.entitled, e.reason, int(e.status) if e.status is not None else None,
                 gatekit._time.milliseconds(e.until, "until") if e.until else None)
            if not seen or seen[-1] != s:
                seen.append(s)
        # A change of auto-renew alone leaves the access as it was: the feed's states, run
        # together where only willRenew changed, are the answers'.
        states = [state(c) for c in changes]
        access = [s for i, s in enumerate(states) if i == 0 or states[i - 1] != s]
        assert seen[1:] == access, "the feed's states are not the answers' (no purchase first)"


def test_the_tool_prints_the_feed_and_follows_it(tmp_path: Path, pki: PKI) -> None:
    verifier = SignedDataVerifier(BUNDLE, "Sandbox", test_anchor=pki.der("root"))
    path = tmp_path / "tool.sqlite"
    life = Life(pki, "tool-feed", original="5200")
    t = now_ms()
    with gatekit.Store(str(path)) as store:
        store.ledger.link("erin", "5200", environment="Sandbox")
        store.ledger.ingest_transaction(pki.sign(life.tx("5201", "pro.monthly", t - 1000, t + 86_400_000, signed=t), CHAIN), verifier)
    whole = subprocess.run([TOOL, "--store", str(path), "ledger", "changes"], capture_output=True, text=True, env=child_env())
    assert whole.returncode == 0, whole.stderr
    document = json.loads(whole.stdout)
    assert document["last"] == 1 and document["changes"][0]["appUserIds"] == ["erin"]
    follow = subprocess.Popen([TOOL, "--store", str(path), "ledger", "changes", "--follow", "--after", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env())
    try:
        first = json.loads(follow.stdout.readline() if follow.stdout else "")
        assert first["seq"] == 1 and first["reason"] == "subscription"
        with gatekit.Store(str(path)) as store:  # another process: the follower wakes on its commit
            refund = dict(life.tx("5201", "pro.monthly", t - 1000, t + 86_400_000, signed=t), signedDate=now_ms(), revocationDate=now_ms(),
                          revocationReason=0)
            store.ledger.ingest_transaction(pki.sign(refund, CHAIN), verifier)
        second = json.loads(follow.stdout.readline() if follow.stdout else "")
        assert second["seq"] == 2 and second["reason"] == "revoked" and second["cause"] == "ingest"
    finally:
        follow.terminate()
        follow.wait(timeout=30)
    usage = subprocess.run([TOOL, "--store", str(path), "ledger", "changes", "--limit", "0"], capture_output=True, text=True, env=child_env())
    assert usage.returncode == 2


@pytest.mark.example
def test_the_webhook_forwarder_delivers_each_change_at_least_once_across_a_restart(tmp_path: Path, pki: PKI) -> None:
    """examples/webhook_forwarder.py against a local webhook that fails its first POST: every
    change arrives, the failed one again after the retry; a second run sends only what is new."""
    received: List[Dict[str, Any]] = []
    failures = [1]

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server API)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if failures[0]:
                failures[0] -= 1
                self.send_response(503)
            else:
                received.append(body)
                self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    hook = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    verifier = SignedDataVerifier(BUNDLE, "Sandbox", test_anchor=pki.der("root"))
    path, cursor = tmp_path / "hook.sqlite", tmp_path / "feed.cursor"
    life = Life(pki, "hook", original="5300")
    t = now_ms()

    def ingest(tid: str) -> None:
        with gatekit.Store(str(path)) as store:
            store.ledger.ingest_transaction(pki.sign(life.tx(tid, "product." + tid, t - 1000, signed=t, type="Non-Consumable"), CHAIN), verifier)

    def run() -> str:
        forwarder = subprocess.run(example("webhook_forwarder.py") + ["--app-id", "com.example.app", "--store", str(path), "--url",
                                                                      f"http://127.0.0.1:{hook.server_address[1]}/hook", "--cursor",
                                                                      str(cursor), "--until-idle", "0.5"],
                                   capture_output=True, text=True, env=example_env(), timeout=120)
        assert forwarder.returncode == 0, forwarder.stderr
        return forwarder.stdout.strip()

    try:
        ingest("5301")
        ingest("5302")
        assert run() == "delivered 2 changes"
        assert [(e["id"], e["productId"]) for e in received] == [("1", "product.5301"), ("2", "product.5302")]
        assert cursor.read_text() == "2\n" and (cursor.stat().st_mode & 0o777) == 0o600
        ingest("5303")
        # A stale temporary file another user could read (0666) leaves no such cursor behind.
        stale = cursor.with_name(cursor.name + ".tmp")
        stale.write_text("0\n")
        stale.chmod(0o666)
        assert run() == "delivered 1 changes"
        assert [e["id"] for e in received] == ["1", "2", "3"]
        assert (cursor.stat().st_mode & 0o777) == 0o600 and not stale.exists()
        # A cursor file that is not a cursor: the reason, exit 1, no traceback and no delivery.
        for hostile in ("-1\n", "abc\n", f"{2**64 + 1}\n", "9" * 5000):
            cursor.write_text(hostile)
            refused = subprocess.run(example("webhook_forwarder.py") + ["--app-id", "com.example.app", "--store", str(path), "--url",
                                                                        "http://127.0.0.1:9/unused", "--cursor", str(cursor)],
                                     capture_output=True, text=True, env=example_env(), timeout=60)
            assert refused.returncode == 1 and "not a cursor" in refused.stderr and "Traceback" not in refused.stderr, refused.stderr
    finally:
        hook.shutdown()


def test_a_waiter_wakes_at_the_instant_time_changes_an_answer_and_at_its_timeout(open_store, pki: PKI) -> None:
    """The header promises a wake at the instant: a wait of seconds for time alone to end a
    period woke 0.58 s late after 5 s (each turn subtracted its intended 2 ms, not the time that
    passed), and a plain 4 s timeout returned after about 5.6 s."""
    verifier = SignedDataVerifier(BUNDLE, "Sandbox", test_anchor=pki.der("root"))
    life = Life(pki, "waker", original="5400")
    with open_store() as store, open_store() as reader:
        t = now_ms()
        ends = t + 5000
        store.ledger.ingest_transaction(pki.sign(life.tx("5401", "pro.monthly", t - 1000, ends, signed=t), CHAIN), verifier)
        after = reader.ledger.changes().last
        assert reader.ledger.wait_changes(after, timedelta(seconds=20))
        late = now_ms() - ends
        change = reader.ledger.changes(after).changes[0]
        assert change.cause == "time" and change.reason == Reason.EXPIRED, change
        assert 0 <= late < 300, f"woke {late} ms after the period ended"
        started = time.monotonic()
        assert not reader.ledger.wait_changes(change.seq, timedelta(seconds=4))
        waited = time.monotonic() - started
        assert 4.0 <= waited < 4.3, f"a 4 s timeout returned after {waited:.2f} s"


def test_an_instant_past_year_9999_reaches_python_as_the_calendars_end(open_store, pki: PKI) -> None:
    """Signed data may say a subscription ends in year 33658: C answers, and Python's entitled(),
    active() and changes() gave OverflowError (a feed consumer stuck on that change for good)."""
    verifier = SignedDataVerifier(BUNDLE, "Sandbox", test_anchor=pki.der("root"))
    life = Life(pki, "far", original="5500")
    t = now_ms()
    with open_store() as store:
        store.ledger.ingest_transaction(pki.sign(life.tx("5501", "pro.monthly", t - 1000, 10**15, signed=t), CHAIN), verifier)
        ask = dict(environment="Sandbox", test_signed=True)
        entitled = store.ledger.entitled("5500", "pro.monthly", **ask)
        last = datetime.max.replace(tzinfo=timezone.utc, microsecond=999_000)  # the last millisecond
        assert entitled.entitled and entitled.until == last, entitled
        assert [e.until for e in store.ledger.active("5500", **ask)] == [last]
        assert [c.until for c in store.ledger.changes().changes] == [last]
    assert gatekit._time.from_milliseconds(-(10**18)) == datetime.min.replace(tzinfo=timezone.utc)
    assert gatekit._time.from_milliseconds(2**63 - 1) == last


def test_integers_python_passes_to_c_are_range_checked(open_store) -> None:
    """ctypes wraps an integer its C type cannot hold (2**64 + 1 became 1: the feed read from
    the wrong place); every integer argument and struct member is checked instead."""
    from gatekit import _bindings
    with open_store() as store:
        for cursor in (2**64 + 1, 2**63, -(2**63) - 1):
            with pytest.raises(ValueError, match="after_seq must be an integer from"):
                store.ledger.changes(cursor)
        with pytest.raises(ValueError, match="limit must be an integer from"):
            store.ledger.changes(0, 2**32 + 100)
        with pytest.raises(ValueError, match="after_seq"):
            store.ledger.wait_changes(2**64, timedelta(milliseconds=1))
        assert store.ledger.changes(2**63 - 1).changes == []
    options = _bindings.gatekit_ledger_sync_options()
    with pytest.raises(ValueError, match="gatekit_ledger_sync_options.max_pages"):
        options.max_pages = 2**31
    options.max_pages = 2**31 - 1
    assert options.max_pages == 2**31 - 1


def test_a_catalog_term_taking_effect_is_a_change_dated_then(open_store, pki: PKI) -> None:
    """A non-renewing subscription bought two days ago, its term unknown (no end), then a catalog
    saying one day: the answer becomes expired, a change caused by time at the declaration."""
    verifier = SignedDataVerifier(BUNDLE, "Sandbox", test_anchor=pki.der("root"))
    life = Life(pki, "season", original="5400")
    t = now_ms()
    with open_store() as store:
        store.ledger.ingest_transaction(pki.sign(life.tx("5400", "season.pass", t - 2 * 86_400_000, signed=t, type="Non-Renewing Subscription"),
                                                 CHAIN), verifier)
        first = store.ledger.changes().changes
        assert [(c.entitled, c.reason, c.until) for c in first] == [(True, Reason.NON_RENEWING, None)]
        declared = now_ms()
        store.ledger.declare_catalog({"products": {"season.pass": {"type": "non-renewing", "term": "P1D"}}})
        page = store.ledger.changes(first[-1].seq)
        assert [(c.cause, c.entitled, c.reason) for c in page.changes] == [("time", False, Reason.EXPIRED)]
        assert declared <= gatekit._time.milliseconds(page.changes[0].at, "at") <= now_ms()
        assert store.ledger.changes(page.last).changes == []  # once


def test_the_tool_links_asks_by_app_account_and_reads_the_feed_on_either_backend(store_location, pki: PKI) -> None:
    """The same tool commands on SQLite and on PostgreSQL (--store a path or a postgresql:// URI):
    links, questions by app account and by an entitlement name the catalog declares, the feed."""
    where, app_id = store_location("tool")
    verifier = SignedDataVerifier(BUNDLE, "Sandbox", test_anchor=pki.der("root"))
    life = Life(pki, "tool-backends", original="5500")
    t = now_ms()
    with gatekit.Store(where, app_id=app_id) as store:
        store.ledger.ingest_transaction(pki.sign(life.tx("5501", "pro.monthly", t - 1000, t + 86_400_000, signed=t), CHAIN), verifier)
    base = [TOOL, "--store", where] + (["--app-id", app_id] if app_id else [])

    def tool(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(base + ["ledger", *args], capture_output=True, text=True, env=child_env())

    assert tool("link", "--environment", "Sandbox", "frank", "5500").stdout.strip() == "linked"
    entitled = tool("entitled", "--environment", "Sandbox", "--test-signed", "--app-user", "frank", "pro.monthly")
    assert entitled.returncode == 0 and json.loads(entitled.stdout)["transactionId"] == "5501", entitled.stderr
    # A named entitlement, from a catalog declared through the tool.
    assert tool("entitled", "--environment", "Sandbox", "--test-signed", "--app-user", "frank", "premium").returncode == 3
    declared = subprocess.run(base + ["ledger", "catalog", "declare", "-"], input=json.dumps(
        {"products": {"pro.monthly": {"type": "auto-renewable", "entitlements": ["premium"]}}}), capture_output=True, text=True, env=child_env())
    assert declared.returncode == 0 and json.loads(declared.stdout)["products"]["pro.monthly"]["entitlements"] == ["premium"], declared.stderr
    named = tool("entitled", "--environment", "Sandbox", "--test-signed", "--app-user", "frank", "premium")
    assert named.returncode == 0 and json.loads(named.stdout)["entitlements"] == ["premium"], named.stderr
    links = json.loads(tool("links", "--environment", "Sandbox", "frank").stdout)
    assert [l["customer"] for l in links["links"]] == ["5500"]
    feed = json.loads(tool("changes").stdout)
    assert [(c["seq"], c["reason"]) for c in feed["changes"]] == [(1, "subscription")]
    assert tool("unlink", "--environment", "Sandbox", "frank", "5500").returncode == 0
    assert tool("entitled", "--environment", "Sandbox", "--test-signed", "--app-user", "frank", "pro.monthly").returncode == 3
