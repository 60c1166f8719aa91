"""Webhooks to a team's backend, for real: endpoints in the store, the ledger's changes queued in
the transaction that records them, and the worker sending them over HTTPS to a receiver on
loopback that checks every request with GateKit's verifier and the spec's reference library
(standardwebhooks from PyPI), answers as it is told (2xx, 500, 429 with Retry-After, 302, a
hang) and records what it got, on every backend."""
from __future__ import annotations

import datetime
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest
import standardwebhooks

from gatekit import webhooks
from gatekit.errors import InvalidArgumentError, NotFoundError
from gatekit.ledger_webhooks import EVENT_TYPES, DeliveryWorker
from gatekit.standin._https import tls_material

UTC = datetime.timezone.utc
DAY = 86_400


class Receiver:
    """A team's webhook receiver on 127.0.0.1. ``plan[path]``: how to answer the next requests
    there, each (status, headers) or ("hang", seconds); then 200. ``got``: every request, with
    whether each verifier accepted it under the secrets ``secrets[path]`` the team holds."""

    def __init__(self, folder: Path) -> None:
        context = tls_material(folder)
        self.ca_file = str(folder / "ca.pem")
        self.plan: Dict[str, List[Tuple[Any, ...]]] = {}
        self.secrets: Dict[str, List[str]] = {}
        self.got: List[Dict[str, Any]] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
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
                    receiver.got.append({"path": self.path, "headers": headers, "body": body, "json": json.loads(body),
                                         "ours": ours, "theirs": theirs, "answered": step[0]})
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

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda *_: None  # type: ignore[method-assign]  # a client that gave up (the hang test)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.server.server_address[1]}{path}"

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
    """The first delivery to /flaky answers 500: the same customer's next event waits behind it
    while another customer's flows; 5 s later both go, in order. A 429's Retry-After is honoured."""
    register(store, receiver, "/flaky")
    receiver.plan["/flaky"] = [(500, {})]
    now = int(time.time())
    store.ledger.ingest_stripe(subscription("sub_c", "active", now - DAY, now + 29 * DAY, user="carol"), at(now - DAY))
    store.ledger.ingest_stripe(subscription("sub_c", "active", now - 60, now + 30 * DAY, user="carol"), at(now - 60))
    store.ledger.ingest_stripe(subscription("sub_d", "active", now - DAY, now + 29 * DAY, user="dave"), at(now - DAY))
    first = deliver(store, receiver)
    assert first.failed == 1 and first.delivered == 1
    assert [(r["json"]["data"]["originalTransactionId"], r["answered"]) for r in receiver.at("/flaky")] == [("sub_c", 500), ("sub_d", 200)]
    endpoint = store.ledger.webhook_report()[0]
    pending = store.ledger.webhook_deliveries(endpoint.id, state="pending")
    assert [d.seq for d in pending] == [1, 2] and pending[0].attempts[0]["status"] == 500
    assert pending[0].next_attempt is not None
    wait = (pending[0].next_attempt - datetime.datetime.now(UTC)).total_seconds()
    assert 2.5 < wait < 6.5, "the first retry waits 5 s ±20 %"
    assert deliver(store, receiver).attempted == 0, "not due yet"
    time.sleep(max(wait, 0) + 0.2)
    receiver.plan["/flaky"] = [(429, {"Retry-After": "2"})]
    again = deliver(store, receiver)
    assert again.failed == 1
    retry = store.ledger.webhook_deliveries(endpoint.id, state="pending")[0]
    assert retry.next_attempt is not None and (retry.next_attempt - datetime.datetime.now(UTC)).total_seconds() > 4.5
    time.sleep((retry.next_attempt - datetime.datetime.now(UTC)).total_seconds() + 0.2)
    assert deliver(store, receiver).delivered == 2
    got = receiver.at("/flaky")
    assert [r["json"]["type"] for r in got if r["answered"] == 200] == ["initial_purchase", "initial_purchase", "renewal"]
    # The retries of one event carry its id; each attempt its own timestamp and signature.
    carol = [r for r in got if r["json"]["data"]["originalTransactionId"] == "sub_c"]
    assert len({r["headers"]["webhook-id"] for r in carol[:3]}) == 1 and all(r["ours"] and r["theirs"] for r in got)
    attempts = store.ledger.webhook_deliveries(endpoint.id, state="delivered")[0].attempts
    assert [a["status"] for a in attempts] == [500, 429, 200]


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
