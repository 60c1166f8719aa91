"""The ledger report in a real browser: Debian's Chromium, headless, driven by Selenium through
Debian's chromedriver, on the pages the library writes for the lives of metrics_lives.py. The
pages load without a console message, every chart draws the expected number of marks (each
with a real size), the customer's timeline shows the known events and each links to its signed
item, text can be selected, and axe-core (its rules for WCAG 2 A and AA) finds no violation.
Screenshots of both views go to GATEKIT_SCREENSHOTS (make screenshots: docs/images)."""
from __future__ import annotations

import os
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterator, List

import pytest

import gatekit
from conftest import REPO_ROOT, utc
from ledger_lives import MODELS
from metrics_lives import END_OF_JUNE, SHARED_TOKEN, at
from signing import PKI, pki  # noqa: F401  (pki is a fixture)
from test_ledger_insight import APP_MARKS, ingest_lives

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"App Store API models not found at {MODELS} (set GATEKIT_FIXTURES)")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SCREENSHOTS = Path(os.environ.get("GATEKIT_SCREENSHOTS", REPO_ROOT / ".build" / "screenshots"))


def browser_missing() -> str:
    """Why the browser cannot run here ("" when it can)."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        return "Debian's chromium and chromium-driver are not installed (make test installs them as root)"
    try:
        import axe_core_python  # noqa: F401
        import selenium  # noqa: F401
    except ImportError as error:
        return f"{error.name} is not installed (python/requirements-test.txt)"
    return ""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = browser_missing()
    if missing:
        if os.environ.get("GATEKIT_REQUIRE_BROWSER") == "1":
            pytest.fail(f"GATEKIT_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,1200",
                     "--force-device-scale-factor=1", "--lang=en-US"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def pages(tmp_path_factory, pki: PKI) -> dict:
    folder = tmp_path_factory.mktemp("report")
    with gatekit.Store(folder / "lives.sqlite") as store:
        ingest_lives(store, pki)
        common = dict(environment="Sandbox", start=utc(ms=at(1, 1)), end=utc(ms=at(7, 1)), at=utc(ms=END_OF_JUNE), test_signed=True)
        app = folder / "app.html"
        app.write_text(store.ledger.report(**common), encoding="utf-8")
        customer = folder / "customer.html"
        customer.write_text(store.ledger.customer_report(SHARED_TOKEN, **common).html, encoding="utf-8")
        cleo = folder / "cleo.html"
        cleo.write_text(store.ledger.customer_report("7001", **common).html, encoding="utf-8")
        # Two years of months: the cohort table is as wide as 24 months.
        wide = folder / "wide.html"
        wide.write_text(store.ledger.report(**dict(common, end=utc(ms=at(1, 1)) + timedelta(days=730), at=None)), encoding="utf-8")
    return {"app": app, "customer": customer, "cleo": cleo, "wide": wide}


def load(browser: Any, path: Path) -> List[dict]:
    """Opens the page; returns what it logged to the console while loading."""
    browser.get_log("browser")
    browser.get(path.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    return [entry for entry in browser.get_log("browser")]


def marks(browser: Any) -> dict:
    return browser.execute_script("""
        const out = {};
        for (const svg of document.querySelectorAll('svg.chart')) {
            const drawn = [...svg.querySelectorAll('rect.mark')].filter(r => { const b = r.getBBox(); return b.width > 0 && b.height > 0; });
            out[svg.id] = drawn.length;
        }
        return out;""")


def axe_violations(browser: Any) -> List[dict]:
    from axe_core_python.selenium import Axe
    result = Axe().run(browser, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
    return [{"id": v["id"], "nodes": [n["target"] for n in v["nodes"]][:3]} for v in result["violations"]]


def selectable(browser: Any, selector: str) -> str:
    """Selects the element's text as a reader would (a range over it) and returns the selection."""
    return browser.execute_script("""
        const element = document.querySelector(arguments[0]);
        const range = document.createRange();
        range.selectNodeContents(element);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        return getComputedStyle(element).userSelect === 'none' ? '' : selection.toString();""", selector)


def screenshot(browser: Any, name: str) -> None:
    """The whole page, as wide as the report's column."""
    browser.execute_script("window.getSelection().removeAllRanges(); history.replaceState(null, '', ' '); window.scrollTo(0, 0)")
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(860, min(int(height) + 40, 6000))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SCREENSHOTS / name))
    browser.set_window_size(1000, 1200)


def test_the_app_view_draws_every_chart_and_passes_axe(browser, pages):
    assert load(browser, pages["app"]) == []
    assert marks(browser) == APP_MARKS
    assert browser.title == "Subscriptions · Sandbox (test-signed data)"
    # The cohort heat map: one row per cohort, the January one kept 2, 2, then 1 of 2.
    rows = browser.execute_script("return [...document.querySelectorAll('#cohort-table tbody tr')].map(r => r.innerText)")
    assert len(rows) == 3 and "2 · 100%\t2 · 100%\t1 · 50%" in rows[0]
    assert "MRR, USD" in selectable(browser, "section[aria-labelledby=now]")
    assert axe_violations(browser) == []
    screenshot(browser, "report-app.png")
    assert browser.get_log("browser") == []


def test_a_wide_cohort_table_scrolls_within_the_page(browser, pages):
    """Issue 44, item 13: at a 1000-px window the cohort table of two years ran off the right
    edge, months 7 and on cut off. It scrolls within the page now: the page itself is no wider
    than the window, and the table's last month can be scrolled to (by keyboard too)."""
    browser.set_window_size(1000, 1200)
    assert load(browser, pages["wide"]) == []
    months = browser.execute_script("return document.querySelectorAll('#cohort-table thead th').length") - 3
    assert months >= 12, months
    widths = browser.execute_script("""
        const box = document.querySelector('#cohort-table').parentElement;
        return {page: document.documentElement.scrollWidth, window: window.innerWidth, box: box.clientWidth,
                table: box.scrollWidth, focusable: box.tabIndex, right: box.getBoundingClientRect().right};""")
    assert widths["page"] <= widths["window"], widths
    assert widths["right"] <= widths["window"] and widths["table"] > widths["box"] and widths["focusable"] == 0, widths
    last = browser.execute_script("""
        const box = document.querySelector('#cohort-table').parentElement;
        box.scrollLeft = box.scrollWidth;
        const cell = document.querySelector('#cohort-table thead th:last-child').getBoundingClientRect();
        return cell.right <= window.innerWidth && cell.left >= 0;""")
    assert last
    assert axe_violations(browser) == []


def test_the_customer_view_shows_the_known_events_linked_to_their_items(browser, pages):
    assert load(browser, pages["customer"]) == []
    events = browser.execute_script("""
        return [...document.querySelectorAll('table.events tbody tr')].map(r => [...r.cells].map(c => c.innerText));""")
    whats = [e[1] for e in events]
    assert whats == ["Subscribed", "Renewed", "Renewed", "Expired: the customer cancelled",
                     "Free trial started", "Converted to paid", "Renewed", "Refunded"]
    assert [e[0] for e in events][:4] == ["2025-01-01", "2025-02-01", "2025-03-01", "2025-04-01"]
    # Every event on a timeline is a link to a signed item on the page; following one shows it.
    circles = browser.execute_script("return document.querySelectorAll('svg.timeline a circle.event').length")
    assert circles == len(events)
    targets = browser.execute_script("""
        return [...document.querySelectorAll('svg.timeline a')].map(a => a.getAttribute('href'))
            .filter(h => !document.getElementById(h.slice(1)));""")
    assert targets == []
    link = browser.find_element("css selector", "table.events a")
    item = link.get_attribute("href").split("#")[1]
    link.click()
    assert browser.execute_script("return location.hash") == "#" + item
    assert browser.execute_script("const r = document.getElementById(arguments[0]).getBoundingClientRect(); "
                                  "return r.top >= 0 && r.top < window.innerHeight", item)
    spans = browser.execute_script("return [...document.querySelectorAll('svg.timeline rect.span')].map(r => r.classList[1])")
    assert spans.count("trial") == 1 and spans.count("paid") == 5
    assert "Subscription 5001" in selectable(browser, "main")
    assert axe_violations(browser) == []
    screenshot(browser, "report-customer.png")


def test_grace_and_retry_are_drawn_on_the_timeline(browser, pages):
    assert load(browser, pages["cleo"]) == []
    spans = browser.execute_script("return [...document.querySelectorAll('svg.timeline rect.span')].map(r => r.classList[1])")
    assert sorted(spans) == ["grace", "paid", "paid", "paid", "retry", "retry"]
    assert axe_violations(browser) == []
