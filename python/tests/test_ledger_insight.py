"""Subscription metrics and the report through the Python package, on SQLite and PostgreSQL:
the five lives of metrics_lives.py (refunds, an upgrade, Family Sharing, two currencies, grace
and billing retry, a trial converting) ingested shuffled, and every figure compared with the one
worked out by hand; as-of instants; the splits; the report's pages (parsed: the number of chart
marks, the customer's events and their links); the tool's commands."""
from __future__ import annotations

import json
import os
import random
import stat
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

import gatekit
from gatekit.jws import SignedDataVerifier
from gatekit.ledger_insight import METRICS, CustomerReport
from conftest import REPO_ROOT, child_env, utc
from ledger_lives import BUNDLE, MODELS
import metrics_lives as lives_module
from metrics_lives import (COHORTS, END_OF_JUNE, MONTHLY, MONTHLY_SERIES, MRR, NET_REVENUE, REFUNDS, REVENUE, SHARED_TOKEN,
                           YEARLY, at)
from signing import PKI, pki  # noqa: F401  (pki is a fixture)

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"App Store API models not found at {MODELS} (set GATEKIT_FIXTURES)")

TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
JAN, JUL = utc(ms=at(1, 1)), utc(ms=at(7, 1))


def ingest_lives(store: gatekit.Store, pki: PKI, seed: int = 5) -> None:
    """The lives' items, shuffled (order never matters), verified under the test PKI."""
    verifier = SignedDataVerifier(BUNDLE, "Sandbox", test_anchor=pki.der("root"))
    items = lives_module.items(lives_module.build(pki))
    random.Random(seed).shuffle(items)
    now = utc(int(time.time()) + 120)
    for kind, jws in items:
        getattr(store.ledger, f"ingest_{kind}")(jws, verifier, verify_time=now)


@pytest.fixture
def ledger_store(store, pki):
    ingest_lives(store, pki)
    return store


def metrics(store: gatekit.Store, **options):
    options.setdefault("at", utc(ms=END_OF_JUNE))
    return store.ledger.metrics(environment="Sandbox", start=options.pop("start", JAN), end=options.pop("end", JUL),
                                test_signed=True, **options)


def test_every_monthly_figure_is_the_one_worked_out_by_hand(ledger_store):
    m = metrics(ledger_store)
    assert [b.month for b in m.buckets] == [1, 2, 3, 4, 5, 6] and m.end == JUL
    assert m.granularity == "month" and m.dimension == "all" and m.as_of == utc(ms=END_OF_JUNE)
    assert [s.key for s in m.series] == [None]
    whole = m[None]
    assert {name: whole[name] for name in METRICS} == MONTHLY_SERIES
    assert whole.revenue == REVENUE and whole.refunds == REFUNDS and whole.net_revenue == NET_REVENUE and whole.mrr == MRR
    assert [(c.product, c.month, c.subscribers, c.retained) for c in m.cohorts] == [(p, utc(ms=ms), n, r) for p, ms, n, r in COHORTS]


def test_days_show_the_grace_period_the_retry_and_the_recovery(ledger_store):
    m = metrics(ledger_store, start=utc(ms=at(3, 1)), end=utc(ms=at(4, 1)), granularity="day")
    whole = m[None]
    assert len(m.buckets) == 31
    # Mar 1-16 anna and cleo (in grace); Mar 17-19 anna (cleo in billing retry); from Mar 20 both.
    assert whole["activeSubscriptions"] == [2] * 16 + [1] * 3 + [2] * 12
    assert whole["inGracePeriod"] == [1] * 16 + [0] * 15
    assert whole["inBillingRetry"] == [0] * 16 + [1] * 3 + [0] * 12
    assert [i + 1 for i, n in enumerate(whole["expiredBilling"]) if n] == [17]
    assert [i + 1 for i, n in enumerate(whole["recoveries"]) if n] == [20]
    assert [i + 1 for i, n in enumerate(whole["refunded"]) if n] == [1]


def test_as_of_an_instant_only_what_apple_had_signed_counts(ledger_store):
    m = metrics(ledger_store, at=utc(ms=at(3, 10)))
    whole = m[None]
    assert len(m.buckets) == 3   # April on starts after the instant
    assert whole["activeSubscriptions"] == [2, 3, 2] and whole["inGracePeriod"] == [0, 0, 1]
    assert whole["recoveries"] == [0, 0, 0] and whole["expiredBilling"] == [0, 0, 0] and whole["refunded"] == [0, 0, 1]
    assert whole.revenue == {"EUR": [0, 8990, 0], "USD": [19980, 19980, 9990]}
    # The same question asked again later gives the same answer: nothing signed since counts.
    assert metrics(ledger_store, at=utc(ms=at(3, 10))).raw == m.raw


def test_splits_by_currency_product_storefront_and_entitlement(ledger_store):
    by_currency = metrics(ledger_store, by="currency")
    assert [s.key for s in by_currency.series] == ["EUR", "USD"]
    assert by_currency["EUR"]["activeSubscriptions"] == [0, 1, 1, 1, 0, 0] and by_currency["EUR"].revenue == {"EUR": REVENUE["EUR"]}
    assert by_currency["USD"]["familyShared"] == [1, 0, 0, 0, 0, 0]
    by_product = metrics(ledger_store, by="product")
    assert by_product[YEARLY]["activeSubscriptions"] == [0, 0, 0, 1, 1, 1] and by_product[YEARLY]["productChanges"][3] == 1
    assert by_product[MONTHLY]["activeSubscriptions"] == [2, 3, 2, 1, 0, 0]
    by_storefront = metrics(ledger_store, by="storefront")
    assert by_storefront["DEU"]["renewals"] == [0, 0, 0, 1, 0, 0]
    ledger_store.ledger.declare_catalog({"products": {MONTHLY: {"type": "auto-renewable", "entitlements": ["pro"]},
                                                      YEARLY: {"type": "auto-renewable", "entitlements": ["pro", "cloud"]}}},
                                        effective=JAN, correction="the lives of 2025 predate this store")
    by_name = metrics(ledger_store, by="entitlement")
    assert [s.key for s in by_name.series] == ["cloud", "pro"]
    assert by_name["pro"]["activeSubscriptions"] == MONTHLY_SERIES["activeSubscriptions"]
    assert by_name["cloud"]["activeSubscriptions"] == [0, 0, 0, 1, 1, 1]


def test_bad_requests_are_refused_with_the_reason(ledger_store):
    with pytest.raises(ValueError, match="granularity"):
        metrics(ledger_store, granularity="fortnight")
    with pytest.raises(ValueError, match="by must be"):
        metrics(ledger_store, by="planet")
    with pytest.raises(gatekit.InvalidArgumentError, match="from < to"):
        metrics(ledger_store, start=JUL, end=JAN)
    with pytest.raises(gatekit.InvalidArgumentError, match="10000 buckets"):
        metrics(ledger_store, start=utc(0), end=JUL, granularity="day")
    with pytest.raises(TypeError):
        ledger_store.ledger.metrics(environment="Sandbox", start=at(1, 1), end=at(7, 1))


def test_questions_while_four_processes_ingest_end_with_the_figures(tmp_path: Path, pki, store_location, open_store):
    """Four processes ingest the lives (each its own shuffled order, with repeats) while this
    one keeps asking — each question brings the store's roll-up up to date under their feet
    (on PostgreSQL their items commit out of id order): the last answer is every figure worked
    out by hand, as from a store filled before anyone asked."""
    stream = tmp_path / "stream.json"
    stream.write_text(json.dumps({"items": lives_module.items(lives_module.build(pki)), "anchor": pki.der("root").hex(),
                                  "now": int(time.time()) + 120}))
    where, app_id = store_location("busy")
    worker = Path(__file__).resolve().parent / "ledger_worker.py"
    with open_store("busy") as store:
        procs = [subprocess.Popen([sys.executable, str(worker), where, app_id or "", str(stream), str(seed)], env=child_env(),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for seed in range(4)]
        asked = 0
        while any(p.poll() is None for p in procs):
            metrics(store)
            asked += 1
        for p in procs:
            out, err = p.communicate(timeout=300)
            assert p.returncode == 0, err
        whole = metrics(store)[None]
        assert {name: whole[name] for name in METRICS} == MONTHLY_SERIES and whole.revenue == REVENUE and whole.mrr == MRR
        assert asked > 0


class Page(HTMLParser):
    """What the report's tests look at: chart marks per chart, ids, links, text, scripts."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.marks: Dict[str, int] = {}
        self.ids: List[str] = []
        self.links: List[str] = []
        self.scripts = 0
        self.text: List[str] = []
        self._chart: Optional[str] = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(a["id"] or "")
        if tag == "svg":
            self._chart = a.get("id")
        if tag == "rect" and "mark" in (a.get("class") or "").split() and self._chart:
            self.marks[self._chart] = self.marks.get(self._chart, 0) + 1
        if tag == "a":
            self.links.append(a.get("href") or "")
        if tag == "script" or any(name.startswith("on") for name in a):
            self.scripts += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._chart = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)


#: Chart marks of the lives' app view: one bar per non-zero value (MRR per currency; active
#: subscriptions; trials started and converted; churn: billing twice, voluntary once, a refund).
APP_MARKS = {"mrr-EUR": 3, "mrr-USD": 6, "revenue-EUR": 3, "revenue-USD": 5, "active": 7, "trials": 2, "growth": 7, "churn": 4}


def test_the_app_view_is_one_self_contained_page_with_the_figures(ledger_store):
    html = ledger_store.ledger.report(environment="Sandbox", start=JAN, end=JUL, at=utc(ms=END_OF_JUNE), test_signed=True)
    page = Page(html)
    assert html.startswith("<!DOCTYPE html>") and page.scripts == 0
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html
    assert page.marks == APP_MARKS
    assert len(page.ids) == len(set(page.ids))
    text = " ".join(page.text)
    assert "MRR, USD" in text and "8.338 USD" in text and "Cohorts" in text
    assert "2 · 100%" in text and "1 · 50%" in text   # January's cohort: both in February, one in March


def test_the_customer_view_links_every_event_to_its_signed_item(ledger_store, tmp_path: Path):
    report = ledger_store.ledger.customer_report(SHARED_TOKEN, environment="Sandbox", start=JAN, end=JUL,
                                                 at=utc(ms=END_OF_JUNE), test_signed=True)
    assert isinstance(report, CustomerReport) and report._repr_html_() == report.html
    saved = tmp_path / "customer.html"
    report.save(str(saved))
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600 and saved.read_text(encoding="utf-8") == report.html
    with pytest.raises(FileExistsError):
        report.save(str(saved))   # a new file only
    page = Page(report.html)
    text = " ".join(page.text)
    for event in ("Subscribed", "Renewed", "Expired: the customer cancelled", "Free trial started", "Converted to paid", "Refunded"):
        assert event in text, event
    assert "Subscription 5001" in text and "Subscription 6001" in text
    items = {i for i in page.ids if i.startswith("item-")}
    event_links = [link for link in page.links if link.startswith("#item-")]
    assert items and event_links and {link[1:] for link in event_links} <= items
    # Entitled now? As of the end of June: no (anna lapsed Apr 1; ben refunded).
    assert "no" in text and "The subscription ended (pro.monthly)." in text
    # cleo: grace, retry and the recovery.
    cleo = Page(ledger_store.ledger.customer_report("7001", environment="Sandbox", start=JAN, end=JUL,
                                                    at=utc(ms=END_OF_JUNE), test_signed=True).html)
    cleo_text = " ".join(cleo.text)
    assert "Billing failed: grace period until 2025-03-17" in cleo_text and "Recovered after a billing failure" in cleo_text
    assert "Expired: billing failed" in cleo_text


def tool(store: gatekit.Store, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, "--store", store.path, *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("backend", ["sqlite"])
def test_the_tool_prints_the_metrics_and_writes_the_report(ledger_store, tmp_path: Path):
    done = tool(ledger_store, "ledger", "metrics", "--environment", "Sandbox", "--test-signed", "--from", "2025-01-01",
                "--to", "2025-07-01", "--at-ms", str(END_OF_JUNE))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert {name: document["series"][0][name] for name in METRICS} == MONTHLY_SERIES
    # The Python result is the same document, and reads back from its JSON.
    python = metrics(ledger_store)
    assert python.to_dict() == document and type(python).from_json(python.to_json()) == python
    page = tmp_path / "report.html"
    done = tool(ledger_store, "ledger", "report", "--environment", "Sandbox", "--test-signed", "--from", "2025-01-01",
                "--to", "2025-07-01", "--at-ms", str(END_OF_JUNE), "--output", str(page))
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(page.stat().st_mode) == 0o600 and Page(page.read_text()).marks == APP_MARKS
    again = tool(ledger_store, "ledger", "report", "--environment", "Sandbox", "--from", "2025-01-01", "--to", "2025-07-01",
                 "--output", str(page))
    assert again.returncode == 1 and "cannot create" in again.stderr
    wrong = tool(ledger_store, "ledger", "metrics", "--environment", "Sandbox", "--from", "2025-01-01", "--to", "2025-07-01",
                 "--split", "planet")
    assert wrong.returncode == 2 and "--split is one of" in wrong.stderr


@pytest.mark.parametrize("backend", ["sqlite"])
def test_a_worker_keeps_the_rollup_current_so_no_question_counts(store, pki):
    """``gatekit ledger metrics-refresh --follow`` counts what is ingested while it runs: once
    it has caught up (its state, read from the file, names the newest item) nothing is left
    for a question or for ``refresh_metrics`` to count, and the figures are the hand-worked
    ones. Once, the tool says whether it counted; Python's ``refresh_metrics`` the same."""
    import sqlite3
    worker = subprocess.Popen([TOOL, "--store", store.path, "ledger", "metrics-refresh", "--environment", "Sandbox", "--test-signed",
                               "--follow"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ingest_lives(store, pki)
        file = sqlite3.connect(f"file:{store.path}?mode=ro", uri=True)

        def counted() -> bool:
            state = file.execute("SELECT last_item FROM ledger_metric_state WHERE environment = 'Sandbox' AND test_signed = 1").fetchone()
            newest = file.execute("SELECT max(id) FROM ledger_items").fetchone()[0]
            return state is not None and state[0] == newest

        deadline = time.monotonic() + 60
        while not counted() and time.monotonic() < deadline and worker.poll() is None:
            time.sleep(0.1)
        assert counted(), "the worker did not catch up within 60 s"
        file.close()
    finally:
        worker.terminate()
        out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    assert "until stopped" in err
    assert store.ledger.refresh_metrics(environment="Sandbox", test_signed=True) is False
    whole = metrics(store)[None]
    assert {name: whole[name] for name in METRICS} == MONTHLY_SERIES and whole.revenue == REVENUE
    ingest_lives(store, pki, seed=6)  # every item again: nothing new to count
    assert store.ledger.refresh_metrics(environment="Sandbox", test_signed=True) is False
    once = tool(store, "ledger", "metrics-refresh", "--environment", "Sandbox", "--test-signed")
    assert once.returncode == 0 and "already current" in once.stdout, once.stderr
    other = tool(store, "ledger", "metrics-refresh", "--environment", "Production")
    assert other.returncode == 0 and "counted" in other.stdout, other.stderr  # Production's first build (of no rows)
    wrong = tool(store, "ledger", "metrics-refresh", "--environment", "Sandbox", "--split", "store")
    assert wrong.returncode == 2 and "takes --environment, --test-signed and --follow only" in wrong.stderr
