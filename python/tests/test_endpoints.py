"""The endpoints a team deploys (gatekit.endpoints, docs/endpoints.md), under real servers: the
ASGI application run by uvicorn and the WSGI application by gunicorn, both from PyPI, each in
its own process configured only by environment variables, asked over real HTTP. An App Store
notification signed by a test PKI, a Stripe webhook signed by the stand-in (the subscription
then read back from it), the entitlement lookup, health, and the refusals."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Tuple

import pytest

import gatekit
from gatekit.testing import TestPKI

from conftest import location_of, systemd_environment, systemd_exec_start
from stripe_standin import StripeStandIn, stripe  # noqa: F401  (the fixture)

BUNDLE = "com.example.app"
SECRET = "whsec_endpoints_test_secret"
DAY = 86_400


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(base: str, method: str, path: str, body: Optional[bytes] = None,
         headers: Optional[Dict[str, str]] = None) -> Tuple[int, Dict[str, Any]]:
    request = urllib.request.Request(base + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return int(response.status), json.loads(raw) if raw else {}
    except urllib.error.HTTPError as error:
        raw = error.read()
        return int(error.code), json.loads(raw) if raw else {}


def serve(command: list, env: Dict[str, str], port: int) -> Iterator[str]:
    server = subprocess.Popen(command, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    output = server.stdout.read().decode() if server.stdout else ""
                    pytest.fail(f"the server did not start: {output}")
                time.sleep(0.05)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(params=["uvicorn", "gunicorn"])
def deployed(request, tmp_path: Path, store, stripe: StripeStandIn) -> Iterator[Tuple[str, TestPKI]]:
    """The application over the test's store, with App Store (a test PKI's, Sandbox) and
    Stripe (the stand-in) enabled."""
    pki = TestPKI.create(tmp_path / "pki")
    where, app_id = location_of(store)
    env = {"GATEKIT_STORE": str(where), "GATEKIT_APP_ID": app_id or "", "APPLE_BUNDLE_ID": BUNDLE, "APPLE_ENVIRONMENTS": "Sandbox",
           "APPLE_TEST_ANCHOR": str(pki.directory / "root.der"), "GATEKIT_TEST_DATA": "1", "GATEKIT_ENVIRONMENT": "Sandbox",
           "STRIPE_API_KEY_FILE": stripe.s.key_file, "STRIPE_BASE_URL": stripe.s.url, "STRIPE_CA_FILE": stripe.s.ca,
           "STRIPE_WEBHOOK_SECRETS": SECRET}
    port = free_port()
    if request.param == "uvicorn":
        command = [sys.executable, "-m", "uvicorn", "--factory", "gatekit.endpoints:from_environment", "--host", "127.0.0.1",
                   "--port", str(port), "--log-level", "warning"]
    else:
        command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "2", "--threads", "4",
                   "--log-level", "warning", "gatekit.endpoints:wsgi_app"]
    yield from ((base, pki) for base in serve(command, env, port))


def stripe_subscription(sub_id: str, user: str) -> Dict[str, Any]:
    now = int(time.time())
    return {"id": sub_id, "object": "subscription", "customer": f"cus_{sub_id}", "status": "active", "livemode": False,
            "created": now - DAY, "start_date": now - DAY, "cancel_at_period_end": False, "cancel_at": None, "canceled_at": None,
            "ended_at": None, "pause_collection": None, "trial_start": None, "trial_end": None, "metadata": {"app_user_id": user},
            "items": {"object": "list", "has_more": False, "data": [{
                "id": f"si_{sub_id}", "object": "subscription_item", "quantity": 1, "current_period_start": now - DAY,
                "current_period_end": now + 29 * DAY, "price": {"id": "price_m", "object": "price", "product": "prod_pro", "currency": "usd",
                                                                "unit_amount": 999, "type": "recurring",
                                                                "recurring": {"interval": "month", "interval_count": 1}}}]}}


def test_an_app_store_notification_and_a_stripe_webhook_are_recorded_and_answered(deployed, stripe: StripeStandIn) -> None:
    base, pki = deployed
    status, health = call(base, "GET", "/health")
    assert status == 200 and health == {"status": "ok", "webhooks": []}
    # App Store: a test-signed subscription, posted as Apple posts it.
    start = datetime.now(timezone.utc) - timedelta(days=1)
    life = pki.subscription(bundleId=BUNDLE, productId="pro.monthly", subscriptionGroupIdentifier="pro", originalTransactionId="2000",
                            start=start, period=timedelta(days=30), price=9990, currency="USD")
    status, answer = call(base, "POST", "/appstore/notifications", json.dumps({"signedPayload": life.subscribe()}).encode())
    assert (status, answer["outcome"], answer["customer"]) == (200, "new", "2000")
    assert call(base, "POST", "/appstore/notifications", json.dumps({"signedPayload": life.sent[0]}).encode())[1]["outcome"] == "duplicate"
    status, entitled = call(base, "GET", "/entitled/2000/pro.monthly?test_signed=1")
    assert status == 200 and entitled["entitled"] is True and entitled["reason"] == "subscription"
    # A forgery, another app's data and a malformed body: 400, nothing recorded.
    other = TestPKI.create(Path(pki.directory).parent / "other")
    forged = other.subscription(bundleId=BUNDLE, productId="pro.monthly", subscriptionGroupIdentifier="pro", originalTransactionId="2001",
                                start=start, period=timedelta(days=30), price=9990, currency="USD").subscribe()
    assert call(base, "POST", "/appstore/notifications", json.dumps({"signedPayload": forged}).encode())[0] == 400
    assert call(base, "POST", "/appstore/notifications", b"{not json")[0] == 400
    assert call(base, "GET", "/entitled/2001/pro.monthly?test_signed=1")[1]["entitled"] is False
    # Stripe: the delivery's signature checked, the subscription read back from Stripe.
    stripe.world([stripe_subscription("sub_e", "erin")])
    header, body = stripe.delivery("customer.subscription.created", "sub_e", SECRET)
    status, answer = call(base, "POST", "/stripe/webhooks", body, {"Stripe-Signature": header, "Content-Type": "application/json"})
    assert (status, answer["type"], answer["outcome"]) == (200, "customer.subscription.created", "new")
    status, entitled = call(base, "GET", "/entitled/erin/prod_pro?app_user=1")
    assert status == 200 and entitled["entitled"] is True and entitled["store"] == "stripe"
    forged_header, _ = stripe.delivery("customer.subscription.created", "sub_e", "whsec_someone_else")
    assert call(base, "POST", "/stripe/webhooks", body, {"Stripe-Signature": forged_header})[0] == 400
    # The routes' refusals.
    assert call(base, "GET", "/appstore/notifications")[0] == 405
    assert call(base, "POST", "/health", b"")[0] == 405
    assert call(base, "GET", "/nowhere")[0] == 404
    assert call(base, "POST", "/play/rtdn", b"{}")[0] == 404, "Play is not configured here"
    assert call(base, "GET", "/entitled/2000/pro.monthly?environment=Nowhere")[0] == 400
    assert call(base, "GET", "/entitled/2000/pro.monthly")[1]["reason"] == "only-test-signed", "the test part only when asked"
    assert call(base, "POST", "/appstore/notifications", b"x" * ((1 << 20) + 1))[0] == 413


def test_health_shows_the_webhook_backlog_and_a_half_configured_store_is_refused(tmp_path: Path) -> None:
    from gatekit.endpoints import Endpoints, from_environment
    with pytest.raises(ValueError, match="STRIPE_API_KEY_FILE set without STRIPE_WEBHOOK_SECRETS"):
        from_environment({"STRIPE_API_KEY_FILE": "/x"})
    app = Endpoints(store=str(tmp_path / "s.sqlite"))
    try:
        endpoint = app.opened().ledger.add_webhook_endpoint("https://hooks.example.com/in")
        response = app.handle("GET", "/health", "", {}, b"")
        assert response.status == 200 and response.document == {
            "status": "ok", "webhooks": [{"id": endpoint.id, "enabled": True, "pending": 0, "oldestPendingAgeMs": None, "dead": 0}]}
    finally:
        app.close()


def test_the_documented_units_serve_the_endpoints_and_deliver(tmp_path: Path, stripe: StripeStandIn) -> None:
    """examples/systemd/gatekit-endpoints.service and gatekit-deliver.service, each ExecStart run
    as systemd would with its environment file's variables (ours: a test store and PKI), the
    interpreter and the tool being this build's."""
    from test_ledger_webhooks import Receiver
    store_path = str(tmp_path / "units.sqlite")
    pki = TestPKI.create(tmp_path / "pki")
    port = free_port()
    ours = {"PORT": str(port), "WORKERS": "1", "GATEKIT_STORE": store_path, "GATEKIT_APP_ID": BUNDLE, "GATEKIT_ENVIRONMENT": "Sandbox",
            "APPLE_BUNDLE_ID": BUNDLE, "APPLE_ENVIRONMENTS": "Sandbox", "APPLE_APP_APPLE_ID": "1234567890",
            "STRIPE_API_KEY_FILE": stripe.s.key_file, "STRIPE_WEBHOOK_SECRETS": SECRET}
    assert ours.keys() == systemd_environment("gatekit-endpoints.env").keys(), "the unit's environment file names other variables"
    command = systemd_exec_start("gatekit-endpoints.service", ours)
    assert command[:3] == ["/usr/bin/python3", "-m", "uvicorn"]
    command[0] = sys.executable
    (tmp_path / "receiver").mkdir()
    receiver = Receiver(tmp_path / "receiver")
    tool = os.environ.get("GATEKIT_TOOL", str(Path(__file__).resolve().parents[2] / ".build" / "c" / "gatekit"))
    try:
        env = {**ours, "APPLE_TEST_ANCHOR": str(pki.directory / "root.der"), "GATEKIT_TEST_DATA": "1"}
        for base in serve(command, env, port):
            with gatekit.Store(store_path, app_id=BUNDLE) as s:
                endpoint = s.ledger.add_webhook_endpoint(receiver.url("/units"), allow_private=True)
            receiver.secrets["/units"] = [endpoint.secret]
            deliver_vars = {"GATEKIT_STORE": store_path, "EXTRA_OPTIONS": f"--ca-file {receiver.ca_file} --allow-private"}
            assert deliver_vars.keys() == systemd_environment("gatekit-deliver.env").keys()
            worker_command = systemd_exec_start("gatekit-deliver.service", deliver_vars)
            assert worker_command[0] == "/usr/bin/gatekit"
            worker_command[0] = tool
            worker = subprocess.Popen(worker_command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                assert call(base, "GET", "/health")[0] == 200
                start = datetime.now(timezone.utc) - timedelta(days=1)
                life = pki.subscription(bundleId=BUNDLE, productId="pro.monthly", subscriptionGroupIdentifier="pro",
                                        originalTransactionId="3000", start=start, period=timedelta(days=30), price=9990, currency="USD")
                assert call(base, "POST", "/appstore/notifications", json.dumps({"signedPayload": life.subscribe()}).encode())[0] == 200
                deadline = time.monotonic() + 30
                while not receiver.at("/units") and time.monotonic() < deadline:
                    time.sleep(0.05)
                got = receiver.at("/units")
                assert got and got[0]["json"]["type"] == "initial_purchase" and got[0]["ours"] and got[0]["theirs"]
            finally:
                worker.terminate()
                out, err = worker.communicate(timeout=30)
            assert worker.returncode == 0, err
    finally:
        receiver.close()
