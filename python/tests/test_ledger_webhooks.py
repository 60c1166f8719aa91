"""Webhooks to a team's backend, for real: endpoints in the store, the ledger's changes queued in
the transaction that records them, and the worker sending them over HTTPS to a receiver on
loopback that checks every request with GateKit's verifier and the spec's reference library
(standardwebhooks from PyPI), answers as it is told (2xx, 500, 429 with Retry-After, 302, a
hang) and records what it got, on every backend."""
from __future__ import annotations

import datetime
import json
import os
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest
import standardwebhooks

from gatekit import webhooks
from gatekit.errors import InvalidArgumentError, NotFoundError
from gatekit.ledger import FeedNotice, LinkOutcome
from gatekit.ledger_webhooks import EVENT_TYPES, DeliveryWorker
from gatekit.standin._https import tls_material

from conftest import REPO_ROOT, child_env, location_of

UTC = datetime.timezone.utc
DAY = 86_400
TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))


class Receiver:
    """A team's webhook receiver on 127.0.0.1. ``plan[path]``: how to answer the next requests
    there, each (status, headers) or ("hang", seconds); then 200. ``got``: every request, with
    whether each verifier accepted it under the secrets ``secrets[path]`` the team holds."""

    def __init__(self, folder: Path, *, tls: bool = True) -> None:
        self.scheme = "https" if tls else "http"
        self.ca_file = str(folder / "ca.pem")
        self.plan: Dict[str, List[Tuple[Any, ...]]] = {}
        self.secrets: Dict[str, List[str]] = {}
        self.got: List[Dict[str, Any]] = []
        self.delay = 0.0  # seconds every answer waits (a slow receiver)
        self.fail_first: Optional[Any] = None  # fail_first(webhook_id): answer 500 to that event's first attempt
        self.seen_ids: set = set()
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                started = time.monotonic()
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                secrets = receiver.secrets.get(self.path, [])
                ours = theirs = False
                try:
                    webhooks.verify(body, headers, secrets)
                    ours = True
                except webhooks.WebhookVerificationError:
                    pass
                for secret in secrets:
                    try:
                        standardwebhooks.Webhook(secret).verify(body, headers, json_parse=False)
                        theirs = True
                    except standardwebhooks.WebhookVerificationError:
                        pass
                with receiver.lock:
                    steps = receiver.plan.get(self.path, [])
                    step = steps.pop(0) if steps else (200, {})
                    first = headers.get("webhook-id", "") not in receiver.seen_ids
                    receiver.seen_ids.add(headers.get("webhook-id", ""))
                    if first and receiver.fail_first is not None and receiver.fail_first(headers.get("webhook-id", "")):
                        step = (500, {})
                    entry = {"path": self.path, "headers": headers, "body": body, "json": json.loads(body), "ours": ours,
                             "theirs": theirs, "answered": step[0], "start": started}
                    receiver.got.append(entry)
                time.sleep(receiver.delay)
                if step[0] == "hang":
                    time.sleep(step[1])
                    status, extra = 200, {}
                else:
                    status, extra = step
                self.send_response(status)
                for k, v in extra.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")
                entry["end"] = time.monotonic()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda *_: None  # type: ignore[method-assign]  # a client that gave up (the hang test)
        if tls:
            self.server.socket = tls_material(folder).wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"{self.scheme}://127.0.0.1:{self.server.server_address[1]}{path}"

    def at(self, path: str) -> List[Dict[str, Any]]:
        with self.lock:
            return [r for r in self.got if r["path"] == path]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(tmp_path: Path):
    r = Receiver(tmp_path)
    yield r
    r.close()


def subscription(sub_id: str, status: str, start: int, end: int, *, user: str, **members: Any) -> Dict[str, Any]:
    body: Dict[str, Any] = {
        "id": sub_id, "object": "subscription", "customer": f"cus_{sub_id}", "status": status, "livemode": True,
        "start_date": start, "cancel_at_period_end": False, "cancel_at": None, "canceled_at": None, "ended_at": None,
        "pause_collection": None, "trial_start": None, "trial_end": None, "metadata": {"app_user_id": user},
        "items": {"object": "list", "has_more": False, "data": [{
            "id": f"si_{sub_id}", "object": "subscription_item", "quantity": 1, "current_period_start": start, "current_period_end": end,
            "price": {"id": "price_m", "object": "price", "product": "prod_pro", "currency": "usd", "unit_amount": 999, "type": "recurring",
                      "recurring": {"interval": "month", "interval_count": 1}}}]}}
    body.update(members)
    return body


def at(seconds: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(seconds, UTC)


def register(store, receiver: Receiver, path: str, **options: Any):
    endpoint = store.ledger.add_webhook_endpoint(receiver.url(path), allow_private=True, **options)
    receiver.secrets[path] = [endpoint.secret]
    return endpoint


def deliver(store, receiver: Receiver, **options: Any):
    return store.ledger.deliver_webhooks(ca_file=receiver.ca_file, allow_private=True, **options)


def life(store, sub_id: str, user: str, now: int) -> None:
    """A subscription bought yesterday, renewed early into a later period, then canceled at once:
    three changes of its answer now (the feed judges each answer when it is recorded)."""
    store.ledger.ingest_stripe(subscription(sub_id, "active", now - DAY, now + 29 * DAY, user=user), at(now - DAY))
    store.ledger.ingest_stripe(subscription(sub_id, "active", now - 60, now + 30 * DAY, user=user), at(now - 60))
    store.ledger.ingest_stripe(subscription(sub_id, "canceled", now - 60, now + 30 * DAY, user=user, canceled_at=now - 30,
                                            ended_at=now - 30), at(now - 30))


def test_every_change_is_delivered_once_signed_in_order_and_named(store, receiver):
    endpoint = register(store, receiver, "/hooks", description="billing backend")
    assert endpoint.id.startswith("ep_") and endpoint.secret.startswith("whsec_") and endpoint.enabled and endpoint.event_types == []
    now = int(time.time())
    life(store, "sub_a", "alice", now)
    sent = deliver(store, receiver)
    assert (sent.attempted, sent.delivered, sent.failed) == (3, 3, 0)
    got = receiver.at("/hooks")
    assert all(r["ours"] and r["theirs"] for r in got), "every delivery verifies with both verifiers"
    assert [r["json"]["type"] for r in got] == ["initial_purchase", "renewal", "expiration"]
    first = got[0]["json"]["data"]
    assert first["store"] == "stripe" and first["appUserIds"] == ["alice"] and first["productId"] == "prod_pro:price_m"
    assert first["entitled"] is True and first["price"] == {"milliunits": 9990, "currency": "USD"}
    assert got[1]["json"]["data"]["previous"]["entitled"] is True and got[2]["json"]["data"]["entitled"] is False
    assert [r["headers"]["webhook-id"] for r in got] == [r["json"]["data"]["id"] for r in got]
    assert len({r["headers"]["webhook-id"] for r in got}) == 3
    # Nothing is sent twice: a second pass finds nothing due.
    assert deliver(store, receiver).attempted == 0 and len(receiver.at("/hooks")) == 3
    report = store.ledger.webhook_report()[0]
    assert report.deliveries["delivered"] == 3 and report.deliveries["pending"] == 0 and report.deliveries["attempts"] == 3
    metrics = store.ledger.webhook_metrics()
    assert f'gatekit_webhook_delivered_total{{endpoint="{endpoint.id}"}} 3' in metrics
    assert f'gatekit_webhook_pending{{endpoint="{endpoint.id}"}} 0' in metrics


def test_an_endpoint_gets_only_the_types_it_asked_for_and_others_are_marked_not_wanted(store, receiver):
    register(store, receiver, "/ends", event_types=["expiration", "refund"])
    register(store, receiver, "/all")
    life(store, "sub_b", "bob", int(time.time()))
    sent = deliver(store, receiver)
    assert sent.delivered == 4 and sent.not_wanted == 2
    assert [r["json"]["type"] for r in receiver.at("/ends")] == ["expiration"]
    assert [r["json"]["type"] for r in receiver.at("/all")] == ["initial_purchase", "renewal", "expiration"]
    with pytest.raises(InvalidArgumentError, match="did you mean \"renewal\""):
        store.ledger.add_webhook_endpoint(receiver.url("/x"), event_types=["renewl"], allow_private=True)
    assert set(EVENT_TYPES) >= {"initial_purchase", "renewal", "expiration", "refund", "billing_issue"}


def test_a_failing_receiver_is_retried_later_and_holds_back_only_its_own_customers_later_events(store, receiver):
    """The first delivery to /flaky answers 429 with Retry-After: 8: the same customer's next
    event waits behind it while another customer's flows; the retry comes no sooner than the
    receiver asked (later than the first wait of 5 s ±20 %), and then both go, in order."""
    register(store, receiver, "/flaky")
    receiver.plan["/flaky"] = [(429, {"Retry-After": "8"})]
    now = int(time.time())
    store.ledger.ingest_stripe(subscription("sub_c", "active", now - DAY, now + 29 * DAY, user="carol"), at(now - DAY))
    store.ledger.ingest_stripe(subscription("sub_c", "active", now - 60, now + 30 * DAY, user="carol"), at(now - 60))
    store.ledger.ingest_stripe(subscription("sub_d", "active", now - DAY, now + 29 * DAY, user="dave"), at(now - DAY))
    first = deliver(store, receiver)
    assert first.failed == 1 and first.delivered == 1
    assert [(r["json"]["data"]["originalTransactionId"], r["answered"]) for r in receiver.at("/flaky")] == [("sub_c", 429), ("sub_d", 200)]
    endpoint = store.ledger.webhook_report()[0]
    pending = store.ledger.webhook_deliveries(endpoint.id, state="pending")
    assert [d.seq for d in pending] == [1, 2] and pending[0].attempts[0]["status"] == 429
    assert pending[0].next_attempt is not None
    wait = (pending[0].next_attempt - datetime.datetime.now(UTC)).total_seconds()
    assert 6.5 < wait <= 8.1, f"Retry-After: 8 is honoured over the first wait of 5 s ±20 % (waits {wait:.1f} s)"
    assert deliver(store, receiver).attempted == 0, "not due yet, and carol's second event waits behind her first"
    time.sleep(max(wait, 0) + 0.2)
    assert deliver(store, receiver).delivered == 2
    got = receiver.at("/flaky")
    assert [r["json"]["type"] for r in got if r["answered"] == 200] == ["initial_purchase", "initial_purchase", "renewal"]
    # The retry of an event carries its id; each attempt its own timestamp and signature.
    carol = [r for r in got if r["json"]["data"]["originalTransactionId"] == "sub_c"]
    assert carol[0]["headers"]["webhook-id"] == carol[1]["headers"]["webhook-id"] and all(r["ours"] and r["theirs"] for r in got)
    attempts = store.ledger.webhook_deliveries(endpoint.id, state="delivered")[0].attempts
    assert [a["status"] for a in attempts] == [429, 200]


def test_a_redirect_a_hang_and_a_private_address_are_failures_that_block_no_one_else(store, receiver):
    with pytest.raises(InvalidArgumentError, match="not a public address"):
        store.ledger.add_webhook_endpoint(receiver.url("/hook"))
    with pytest.raises(InvalidArgumentError, match="user information"):
        store.ledger.add_webhook_endpoint("https://user:pw@hooks.example.com/x")
    with pytest.raises(InvalidArgumentError, match="https://"):
        store.ledger.add_webhook_endpoint("http://hooks.example.com/x")
    register(store, receiver, "/moved")
    register(store, receiver, "/slow")
    register(store, receiver, "/fine")
    receiver.plan["/moved"] = [(302, {"Location": receiver.url("/fine")})]
    receiver.plan["/slow"] = [("hang", 3)]
    now = int(time.time())
    store.ledger.ingest_stripe(subscription("sub_e", "active", now - DAY, now + 29 * DAY, user="erin"), at(now - DAY))
    started = time.monotonic()
    sent = deliver(store, receiver, attempt_timeout=datetime.timedelta(seconds=1))
    took = time.monotonic() - started
    assert (sent.delivered, sent.failed) == (1, 2)
    assert took < 2.8, f"the hanging receiver held the pass for its timeout, not its 3 s ({took:.1f} s)"
    report = {e.url: e for e in store.ledger.webhook_report()}
    moved = store.ledger.webhook_deliveries(report[receiver.url("/moved")].id)[0].attempts[0]
    assert moved["status"] == 302, "a redirect is not followed: it is a failure"
    slow = store.ledger.webhook_deliveries(report[receiver.url("/slow")].id)[0].attempts[0]
    assert slow["status"] == 0 and "timed out" in slow["error"].lower()
    assert len(receiver.at("/fine")) == 1
    # Without allow_private the worker refuses the loopback address at connect time too.
    quiet = store.ledger.deliver_webhooks(ca_file=receiver.ca_file)
    assert quiet.attempted == 0, "nothing is due yet"


def test_a_plain_http_receiver_on_loopback_only_where_the_host_says_so_at_both_ends(store, tmp_path):
    plain = Receiver(tmp_path, tls=False)
    try:
        url = plain.url("/plain")
        with pytest.raises(InvalidArgumentError, match="GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP"):
            store.ledger.add_webhook_endpoint(url, allow_private=True)
        for elsewhere in ("http://10.0.0.1/x", "http://hooks.example.com/x", "http://[fe80::1]/x"):
            with pytest.raises(InvalidArgumentError, match="not a loopback address"):
                store.ledger.add_webhook_endpoint(elsewhere, allow_loopback_http=True)
        endpoint = store.ledger.add_webhook_endpoint(url, allow_loopback_http=True)
        assert endpoint.url == url
        plain.secrets["/plain"] = [endpoint.secret]
        now = int(time.time())
        store.ledger.ingest_stripe(subscription("sub_h", "active", now - DAY, now + 29 * DAY, user="hal"), at(now - DAY))
        sent = store.ledger.deliver_webhooks(allow_loopback_http=True)
        assert (sent.attempted, sent.delivered) == (1, 1)
        (got,) = plain.at("/plain")
        assert got["ours"] and got["theirs"] and got["json"]["data"]["appUserIds"] == ["hal"]
        # A worker the host did not allow plain HTTP fails the attempt and says why; nothing is sent.
        store.ledger.ingest_stripe(subscription("sub_i", "active", now - DAY, now + 29 * DAY, user="ivy"), at(now - DAY))
        refused = store.ledger.deliver_webhooks(allow_private=True)
        assert (refused.attempted, refused.failed) == (1, 1)
        attempt = store.ledger.webhook_deliveries(endpoint.id, state="pending")[0].attempts[0]
        assert attempt["status"] == 0 and "GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP" in attempt["error"]
        assert len(plain.got) == 1
        # An https:// endpoint moved to http:// needs the same permission.
        https = store.ledger.add_webhook_endpoint("https://hooks.example.com/x")
        with pytest.raises(InvalidArgumentError, match="GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP"):
            store.ledger.update_webhook_endpoint(https.id, url=url)
        assert store.ledger.update_webhook_endpoint(https.id, url=url, allow_loopback_http=True).url == url
    finally:
        plain.close()


def test_the_tool_registers_delivers_reports_replays_rolls_and_disables_an_endpoint(store, tmp_path):
    """`gatekit ledger webhook-*` and `deliver`, as docs/webhooks.md and the tool's help name
    them, on each backend, to a plain-HTTP receiver on loopback."""
    where, app_id = location_of(store)
    base = [TOOL, "--store", where] + (["--app-id", app_id] if app_id else [])

    def tool(*args: str) -> Any:
        done = subprocess.run(base + ["ledger", *args], capture_output=True, text=True, env=child_env())
        return done.returncode, done.stdout, done.stderr

    plain = Receiver(tmp_path, tls=False)
    try:
        url = plain.url("/tool")
        rc, _, err = tool("webhook-add", "--allow-private", url)
        assert rc != 0 and "GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP" in err
        rc, out, err = tool("webhook-add", "--events", "initial_purchase,renewal", "--description", "tool", "--allow-loopback-http", url)
        assert rc == 0, err
        endpoint = json.loads(out)
        assert endpoint["eventTypes"] == ["initial_purchase", "renewal"] and endpoint["secret"].startswith("whsec_")
        plain.secrets["/tool"] = [endpoint["secret"]]
        now = int(time.time())
        store.ledger.ingest_stripe(subscription("sub_t", "active", now - DAY, now + 29 * DAY, user="tom"), at(now - DAY))
        rc, out, err = tool("deliver", "--budget-ms", "2000")
        assert rc == 0 and json.loads(out)["failed"] == 1, err  # this worker was not allowed plain HTTP
        assert tool("webhook-replay", endpoint["id"])[1].strip() == '{"queued":1}'  # due again now
        rc, out, err = tool("deliver", "--allow-loopback-http", "--budget-ms", "2000")
        assert rc == 0 and json.loads(out)["delivered"] == 1, err
        (got,) = plain.at("/tool")
        assert got["ours"] and got["theirs"] and got["json"]["type"] == "initial_purchase"
        (report,) = json.loads(tool("webhooks")[1])["endpoints"]
        assert report["deliveries"]["delivered"] == 1 and report["deliveries"]["attempts"] == 2 and report["deliveries"]["pending"] == 0
        metrics = tool("webhooks", "--prometheus")[1]
        assert f'gatekit_webhook_delivered_total{{endpoint="{endpoint["id"]}"}} 1' in metrics, metrics
        (delivery,) = json.loads(tool("webhook-deliveries", "--state", "delivered", endpoint["id"])[1])["deliveries"]
        assert [a["status"] for a in delivery["attempts"]] == [0, 200]
        rc, out, err = tool("webhook-roll", "--overlap-ms", "60000", endpoint["id"])
        assert rc == 0 and json.loads(out)["secret"] not in (endpoint["secret"], None), err
        rc, out, err = tool("webhook-update", "--disable", "--description", 'a "quoted" one', endpoint["id"])
        assert rc == 0 and json.loads(out)["enabled"] is False and json.loads(out)["description"] == 'a "quoted" one', err
    finally:
        plain.close()


def test_a_rolled_secret_signs_beside_the_old_one_and_a_replay_sends_the_same_event(store, receiver):
    endpoint = register(store, receiver, "/roll")
    now = int(time.time())
    store.ledger.ingest_stripe(subscription("sub_f", "active", now - DAY, now + 29 * DAY, user="fay"), at(now - DAY))
    assert deliver(store, receiver).delivered == 1
    old = endpoint.secret
    rolled = store.ledger.roll_webhook_secret(endpoint.id, overlap=datetime.timedelta(hours=1))
    assert rolled.secret and rolled.secret != old
    receiver.secrets["/roll"] = [old]  # the receiver has not switched yet
    assert store.ledger.replay_webhooks(endpoint.id) == 1
    assert deliver(store, receiver).delivered == 1
    first, replayed = receiver.at("/roll")
    assert replayed["ours"] and replayed["theirs"] and len(replayed["headers"]["webhook-signature"].split()) == 2
    assert replayed["headers"]["webhook-id"] == first["headers"]["webhook-id"] and replayed["body"] == first["body"]
    receiver.secrets["/roll"] = [rolled.secret]  # switched
    store.ledger.replay_webhooks(endpoint.id, from_seq=1, to_seq=1)
    deliver(store, receiver)
    assert receiver.at("/roll")[-1]["ours"]
    # Without overlap the old secret stops at once.
    bare = store.ledger.roll_webhook_secret(endpoint.id, overlap=datetime.timedelta(0))
    receiver.secrets["/roll"] = [rolled.secret]
    store.ledger.replay_webhooks(endpoint.id)
    deliver(store, receiver)
    last = receiver.at("/roll")[-1]
    assert not last["ours"] and not last["theirs"] and len(last["headers"]["webhook-signature"].split()) == 1
    receiver.secrets["/roll"] = [bare.secret]
    with pytest.raises(NotFoundError):
        store.ledger.replay_webhooks("ep_nothing")


def test_a_disabled_endpoint_gets_nothing_until_enabled_and_replayed(store, receiver):
    endpoint = register(store, receiver, "/off")
    off = store.ledger.update_webhook_endpoint(endpoint.id, enabled=False)
    assert not off.enabled and off.disabled_reason == "disabled by the host" and off.secret is None
    now = int(time.time())
    store.ledger.ingest_stripe(subscription("sub_g", "active", now - DAY, now + 29 * DAY, user="gil"), at(now - DAY))
    assert deliver(store, receiver).attempted == 0 and receiver.at("/off") == []
    on = store.ledger.update_webhook_endpoint(endpoint.id, enabled=True, description="back")
    assert on.enabled and on.disabled_reason is None and on.description == "back"
    assert deliver(store, receiver).attempted == 0, "a change made while disabled was not queued for it"
    assert store.ledger.replay_webhooks(endpoint.id, since=at(now - 3600)) == 1
    assert deliver(store, receiver).delivered == 1 and receiver.at("/off")[0]["json"]["type"] == "initial_purchase"


def test_a_delivery_thread_sends_changes_as_they_are_recorded(store, receiver):
    register(store, receiver, "/live")
    now = int(time.time())
    with DeliveryWorker(store, ca_file=receiver.ca_file, allow_private=True):
        store.ledger.ingest_stripe(subscription("sub_h", "active", now - DAY, now + 29 * DAY, user="hal"), at(now - DAY))
        deadline = time.monotonic() + 10
        while not receiver.at("/live") and time.monotonic() < deadline:
            time.sleep(0.02)
    assert [r["json"]["type"] for r in receiver.at("/live")] == ["initial_purchase"]
    assert receiver.at("/live")[0]["ours"]


def test_a_delivery_failing_past_its_window_is_dead_and_its_endpoint_disabled(store, receiver):
    """give_up_after 2 s and disable_after 4 s: the second failure, 5 s after the first, makes
    the delivery dead and the endpoint disabled, with every attempt kept; re-enabled and
    replayed, it arrives."""
    endpoint = register(store, receiver, "/down")
    receiver.plan["/down"] = [(500, {}), (503, {})]
    now = int(time.time())
    store.ledger.ingest_stripe(subscription("sub_i", "active", now - DAY, now + 29 * DAY, user="ivy"), at(now - DAY))
    windows = dict(give_up_after=datetime.timedelta(seconds=2), disable_after=datetime.timedelta(seconds=4))
    assert deliver(store, receiver, **windows).failed == 1
    pending = store.ledger.webhook_deliveries(endpoint.id)[0]
    assert pending.next_attempt is not None
    time.sleep(max((pending.next_attempt - datetime.datetime.now(UTC)).total_seconds(), 0) + 0.2)
    second = deliver(store, receiver, **windows)
    assert second.attempted == 1 and second.disabled == [endpoint.id]
    dead = store.ledger.webhook_deliveries(endpoint.id, state="dead")
    assert len(dead) == 1 and [a["status"] for a in dead[0].attempts] == [500, 503]
    report = store.ledger.webhook_report()[0]
    assert not report.enabled and report.disabled_reason is not None and "every delivery failed for 4 s" in report.disabled_reason
    assert report.deliveries["dead"] == 1 and report.deliveries["pending"] == 0
    assert f'gatekit_webhook_endpoint_enabled{{endpoint="{endpoint.id}"}} 0' in store.ledger.webhook_metrics()
    page = store.ledger.changes()
    assert [(n.kind, n.endpoint_id, n.url, n.detail) for n in page.notices] == [
        ("webhook_endpoint_disabled", endpoint.id, endpoint.url, report.disabled_reason)], "the feed says the endpoint was disabled"
    assert [c.seq for c in page.changes] == [1] and page.notices[0].seq == 2 and page.last == 2
    assert not store.ledger.wait_changes(page.last, datetime.timedelta(0))
    store.ledger.update_webhook_endpoint(endpoint.id, enabled=True)
    assert store.ledger.replay_webhooks(endpoint.id) == 1
    assert deliver(store, receiver, **windows).delivered == 1
    assert [r["answered"] for r in receiver.at("/down")] == [500, 503, 200]


def test_a_receiver_answering_410_gone_has_its_endpoint_disabled_at_once_and_the_feed_says_so(store, receiver):
    """410 Gone: the receiver asks for no more (Standard Webhooks). The endpoint is disabled at
    the first such answer, the other endpoint goes on, and the feed's notice names it: from
    Python, and from the tool's ``ledger changes --follow`` as a JSON line after the change."""
    gone, kept = register(store, receiver, "/gone"), register(store, receiver, "/kept")
    receiver.plan["/gone"] = [(410, {})]
    now = int(time.time())
    store.ledger.ingest_stripe(subscription("sub_g", "active", now - DAY, now + 29 * DAY, user="gil"), at(now - DAY))
    passed = deliver(store, receiver)
    assert passed.disabled == [gone.id] and passed.delivered == 1
    standing = {r.id: r for r in store.ledger.webhook_report()}
    assert not standing[gone.id].enabled and standing[gone.id].disabled_reason == "the receiver answered 410 Gone"
    assert standing[kept.id].enabled and standing[kept.id].deliveries["delivered"] == 1
    page = store.ledger.changes()
    assert [(n.kind, n.endpoint_id, n.detail) for n in page.notices] == [("webhook_endpoint_disabled", gone.id, "the receiver answered 410 Gone")]
    assert page.notices[0].to_dict() == FeedNotice.from_json(page.notices[0].to_json()).to_dict()
    pending = store.ledger.webhook_deliveries(gone.id)
    assert [d.state for d in pending] == ["pending"], "its delivery waits for the endpoint to be enabled again"
    assert deliver(store, receiver).attempted == 0
    where, app_id = location_of(store)
    with subprocess.Popen([TOOL, "--store", where] + (["--app-id", app_id] if app_id else []) + ["ledger", "changes", "--follow"],
                          stdout=subprocess.PIPE, text=True, env=child_env()) as follow:
        try:
            lines = [json.loads(follow.stdout.readline()) for _ in range(2)]
        finally:
            follow.terminate()
    assert [line["seq"] for line in lines] == [1, 2] and lines[1]["kind"] == "webhook_endpoint_disabled" and lines[1]["endpointId"] == gone.id


WORKER = """
import datetime, sys, gatekit
where, app_id, ca = sys.argv[1], (sys.argv[2] or None), sys.argv[3]
with gatekit.Store(where, app_id=app_id) as store:
    print("started", flush=True)
    store.ledger.deliver_webhooks(ca_file=ca, allow_private=True, attempt_timeout=datetime.timedelta(seconds=1),
                                  connect_timeout=datetime.timedelta(seconds=1), budget=datetime.timedelta(seconds=60))
"""


def test_a_worker_killed_mid_send_is_replaced_once_its_lease_ends(store, receiver):
    """A worker process killed while its receiver is still answering: the delivery is not lost,
    and no other worker sends it while the dead one's lease holds; once it ends, it arrives
    (at least once: the receiver sees the event's id twice)."""
    import signal
    import subprocess
    import sys
    from conftest import location_of
    register(store, receiver, "/killed")
    receiver.plan["/killed"] = [("hang", 20)]
    now = int(time.time())
    store.ledger.ingest_stripe(subscription("sub_k", "active", now - DAY, now + 29 * DAY, user="kim"), at(now - DAY))
    where, app_id = location_of(store)
    worker = subprocess.Popen([sys.executable, "-c", WORKER, str(where), app_id or "", receiver.ca_file], stdout=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not receiver.at("/killed") and time.monotonic() < deadline:
            time.sleep(0.02)
        assert receiver.at("/killed"), "the worker sent the delivery"
        worker.send_signal(signal.SIGKILL)
    finally:
        worker.wait(timeout=30)
    killed_at = time.monotonic()
    # Its lease (1 s attempt + 1 s connect + 5 s margin) holds: nothing is sent meanwhile.
    assert deliver(store, receiver).attempted == 0
    while time.monotonic() - killed_at < 8:
        time.sleep(0.25)
    sent = deliver(store, receiver)
    assert sent.delivered == 1
    got = receiver.at("/killed")
    assert len(got) == 2 and got[0]["headers"]["webhook-id"] == got[1]["headers"]["webhook-id"] and got[1]["ours"]


@pytest.mark.parametrize("backend", ["sqlite", "pgbouncer"])  # PostgreSQL through the pooler, as a fleet runs it
def test_two_workers_share_the_work_keep_each_purchases_order_and_never_send_one_event_twice_at_once(open_store, receiver):
    """Two workers, each with its own store handle (two connections; on PostgreSQL also
    through PgBouncer), deliver 40 purchases' 120 changes to a receiver that answers slowly
    and fails the first attempt of 12 purchases' first events: everything arrives, each
    purchase's events in order, no event is in flight twice at once."""
    import random
    first, second = open_store(), open_store()
    register(first, receiver, "/shared")
    # A purchase's first event (seq 1, 4, 7, …) fails its first attempt for 12 of the 40: each of
    # those purchases waits one retry (5 s) with its later events held behind it.
    failing = set(random.Random(63).sample(range(1, 121, 3), 12))
    receiver.fail_first = lambda event_id: int(event_id.removeprefix("evt_")) in failing
    receiver.delay = 0.01
    now = int(time.time())
    for i in range(40):
        life(first, f"sub_w{i:02d}", f"w{i}", now)
    stop = threading.Event()
    errors: List[BaseException] = []

    def work(s) -> None:
        try:
            while not stop.is_set():
                s.ledger.deliver_webhooks(ca_file=receiver.ca_file, allow_private=True, budget=datetime.timedelta(seconds=1))
                time.sleep(0.05)
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in (first, second)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        done = first.ledger.webhook_report()[0].deliveries
        if done.get("delivered") == 120:
            break
        time.sleep(0.2)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    second.close()
    assert not errors, errors
    assert first.ledger.webhook_report()[0].deliveries["delivered"] == 120
    delivered = [r for r in receiver.at("/shared") if r["answered"] == 200]
    ids = [r["headers"]["webhook-id"] for r in delivered]
    assert len(set(ids)) == 120 and all(r["ours"] and r["theirs"] for r in receiver.at("/shared"))
    by_id: Dict[str, List[Tuple[float, float]]] = {}
    for r in receiver.at("/shared"):
        by_id.setdefault(r["headers"]["webhook-id"], []).append((r["start"], r.get("end", r["start"])))
    for spans in by_id.values():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), "an event was in flight twice at once"
    for i in range(40):
        mine = [r["json"]["type"] for r in delivered if r["json"]["data"]["originalTransactionId"] == f"sub_w{i:02d}"]
        assert mine == ["initial_purchase", "renewal", "expiration"], (i, mine)


def test_auto_renew_turned_off_and_on_is_a_cancellation_and_an_uncancellation(store, receiver):
    """Stripe's cancel_at_period_end changes no access until the period ends, yet the team hears
    of it: the feed records willRenew false, delivered as "cancellation", then "uncancellation";
    the app report shows the endpoint's standing."""
    register(store, receiver, "/intent")
    now = int(time.time())
    store.ledger.ingest_stripe(subscription("sub_n", "active", now - DAY, now + 29 * DAY, user="nia"), at(now - 90))
    store.ledger.ingest_stripe(subscription("sub_n", "active", now - DAY, now + 29 * DAY, user="nia", cancel_at_period_end=True), at(now - 60))
    store.ledger.ingest_stripe(subscription("sub_n", "active", now - DAY, now + 29 * DAY, user="nia", latest_invoice="in_n2"), at(now - 30))
    changes = store.ledger.changes().changes
    assert [(c.entitled, c.will_renew) for c in changes] == [(True, True), (True, False), (True, True)]
    assert deliver(store, receiver).delivered == 3
    got = receiver.at("/intent")
    assert [r["json"]["type"] for r in got] == ["initial_purchase", "cancellation", "uncancellation"]
    cancelled = got[1]["json"]["data"]
    assert cancelled["willRenew"] is False and cancelled["previous"]["willRenew"] is True and cancelled["entitled"] is True
    page = store.ledger.report(environment="Production", start=datetime.datetime(2026, 1, 1, tzinfo=UTC),
                               end=datetime.datetime.now(UTC) + datetime.timedelta(days=1))
    assert "Webhook delivery (now)" in page and receiver.url("/intent") in page


def test_a_grant_given_and_revoked_by_support_are_named_so(store, receiver):
    register(store, receiver, "/grants")
    given = store.ledger.grant("pro", environment="Production", app_user_id="gus", granted_by="support:jane",
                               until=datetime.timedelta(days=30), note="goodwill")
    store.ledger.revoke_grant(given.grant_id, environment="Production", granted_by="support:jane")
    assert deliver(store, receiver).delivered == 2
    got = [r["json"] for r in receiver.at("/grants")]
    assert [g["type"] for g in got] == ["grant_given", "grant_revoked"]
    assert got[0]["data"]["store"] == "grant" and got[0]["data"]["appUserIds"] == ["gus"] and got[1]["data"]["entitled"] is False


def test_a_purchase_linked_to_another_app_account_is_a_transfer(store, receiver):
    """The host moves a Stripe subscription from ana to ben (ledger.link answering transferred):
    the feed records a change caused by the transfer, with the answer unchanged, and the endpoint
    hears "transfer" naming both accounts; linking it to ben again changes nothing."""
    register(store, receiver, "/moves")
    now = int(time.time())
    store.ledger.ingest_stripe(subscription("sub_t", "active", now - DAY, now + 29 * DAY, user="ana"), at(now - 60))
    assert store.ledger.link("ben", "sub_t", environment="Production") == LinkOutcome.TRANSFERRED
    assert store.ledger.link("ben", "sub_t", environment="Production") == LinkOutcome.UNCHANGED
    changes = store.ledger.changes().changes
    assert [(c.cause, c.app_user_ids, c.entitled, c.until) for c in changes] == [
        ("ingest", ("ana",), True, at(now + 29 * DAY)), ("transfer", ("ben",), True, at(now + 29 * DAY))]
    assert store.ledger.is_entitled("ben", "prod_pro", environment="Production", by_app_user=True)
    assert not store.ledger.is_entitled("ana", "prod_pro", environment="Production", by_app_user=True)
    assert deliver(store, receiver).delivered == 2
    got = [r["json"] for r in receiver.at("/moves")]
    assert [g["type"] for g in got] == ["initial_purchase", "transfer"]
    moved = got[1]["data"]
    assert moved["cause"] == "transfer" and moved["appUserIds"] == ["ben"] and moved["previous"]["appUserIds"] == ["ana"]
    assert moved["entitled"] is True and moved["previous"]["entitled"] is True


def test_the_documented_event_types_are_the_ones_an_endpoint_accepts():
    """docs/webhooks.md's table, gatekit.ledger_webhooks.EVENT_TYPES and what the library
    accepts when an endpoint names its types are one list."""
    table = (Path(__file__).resolve().parents[2] / "docs" / "webhooks.md").read_text()
    section = table.split("## Events", 1)[1].split("\n## ", 1)[0]
    documented = []
    for line in section.splitlines():
        if line.startswith("| `"):
            documented += [name.strip("` ") for name in line.split("|")[1].split(",")]
    assert sorted(documented) == sorted(EVENT_TYPES)
