"""Stripe's webhooks through the C ABI (docs/stripe.md): deliveries signed here with Python's own
hmac exactly as Stripe signs them (docs/stripe.md's vector first), random bodies and secrets,
a secret rolled, and every forgery refused with its code and reason."""
from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import random
import time

import pytest

from gatekit.errors import InvalidArgumentError
from gatekit.stripe import ESTRIPE_EVENT, ESTRIPE_SIGNATURE, ESTRIPE_SIGNATURE_HEADER, ESTRIPE_TIMESTAMP, WebhookRejected, verify_webhook

UTC = datetime.timezone.utc
SECRET = "whsec_python_test"


def sign(body: bytes, secret: str = SECRET, t: int | None = None) -> str:
    t = int(time.time()) if t is None else t
    mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"


def event(**members: object) -> bytes:
    document = {"id": "evt_1", "object": "event", "api_version": "2026-06-24.dahlia", "created": 1_700_000_000, "livemode": False,
                "type": "customer.subscription.updated", "data": {"object": {"id": "sub_1", "object": "subscription"}}}
    document.update(members)
    return json.dumps(document).encode()


def test_the_docs_vector_is_stripes_signature():
    assert sign(b'{"id":"evt_test","object":"event"}', "whsec_test_secret", 1_700_000_000) == \
        "t=1700000000,v1=8042376f6ca064adbe037642a718227dfd59047137eb49497a54c49eb0cfb724"
    with pytest.raises(WebhookRejected) as refused:  # signed right, but no event
        verify_webhook(b'{"id":"evt_test","object":"event"}', sign(b'{"id":"evt_test","object":"event"}', "whsec_test_secret"),
                       "whsec_test_secret")
    assert refused.value.code == ESTRIPE_EVENT


def test_random_deliveries_verify_and_say_their_event():
    rng = random.Random(20261202)
    for n in range(60):
        secret = "whsec_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789") for _ in range(rng.randint(1, 64)))
        body = event(id=f"evt_{n}", type=rng.choice(["invoice.paid", "customer.subscription.deleted", "charge.refunded"]),
                     livemode=bool(n % 2), note="x" * rng.randint(0, 5000), unicode="é✓")
        verified = verify_webhook(body, {"Content-Type": "application/json", "stripe-signature": sign(body, secret)}, secret)
        assert (verified.id, verified.livemode, verified.object_id, verified.secret_index) == (f"evt_{n}", bool(n % 2), "sub_1", 0)
        assert verified.to_dict()["object"] == {"id": "sub_1", "object": "subscription"}


def test_while_a_secret_rolls_either_signature_verifies():
    body = event()
    old, new = "whsec_old_secret", "whsec_new_secret"
    header = sign(body, new) + "," + sign(body, old).split(",")[1]
    assert verify_webhook(body, header, [old]).secret_index == 0
    assert verify_webhook(body, header, ["whsec_gone", new]).secret_index == 1


@pytest.mark.parametrize("forgery, code, reason", [
    ("another secret", ESTRIPE_SIGNATURE, "no v1 signature"),
    ("a changed body", ESTRIPE_SIGNATURE, "changed on the way"),
    ("re-serialized JSON", ESTRIPE_SIGNATURE, "as received"),
    ("replayed an hour later", ESTRIPE_TIMESTAMP, "s ago"),
    ("signed in the future", ESTRIPE_TIMESTAMP, "ahead of this host's clock"),
    ("v0 only", ESTRIPE_SIGNATURE_HEADER, "only v0"),
    ("no header", ESTRIPE_SIGNATURE_HEADER, "no Stripe-Signature"),
    ("a thin event", ESTRIPE_EVENT, "thin event"),
])
def test_each_forgery_is_refused_with_its_reason(forgery, code, reason):
    body, now = event(), int(time.time())
    if forgery == "another secret":
        args = (body, sign(body, "whsec_someone_else"))
    elif forgery == "a changed body":
        args = (body.replace(b"sub_1", b"sub_2"), sign(body))
    elif forgery == "re-serialized JSON":
        args = (json.dumps(json.loads(body), indent=1).encode(), sign(body))
    elif forgery == "replayed an hour later":
        args = (body, sign(body, t=now - 3600))
    elif forgery == "signed in the future":
        args = (body, sign(body, t=now + 3600))
    elif forgery == "v0 only":
        args = (body, sign(body).replace("v1=", "v0="))
    elif forgery == "no header":
        args = (body, {"Content-Type": "application/json"})
    else:
        thin = json.dumps({"id": "evt_1", "object": "v2.core.event", "type": "v1.billing.meter.no_meter_found"}).encode()
        args = (thin, sign(thin))
    with pytest.raises(WebhookRejected) as refused:
        verify_webhook(*args, SECRET)  # type: ignore[arg-type]
    assert refused.value.code == code and reason in refused.value.detail


def test_the_tolerance_holds_both_ways_to_the_second():
    body = event()
    header = sign(body, t=1_700_000_000)
    at = datetime.datetime.fromtimestamp(1_700_000_000, UTC)
    for seconds, accepted in [(300, True), (-300, True), (301, False), (-301, False)]:
        when = at + datetime.timedelta(seconds=seconds)
        if accepted:
            assert verify_webhook(body, header, SECRET, now=when).signed_at == at
        else:
            with pytest.raises(WebhookRejected):
                verify_webhook(body, header, SECRET, now=when)
    assert verify_webhook(body, header, SECRET, now=at + datetime.timedelta(seconds=301), tolerance=datetime.timedelta(seconds=600))


def test_an_api_key_is_no_webhook_secret_and_never_said():
    with pytest.raises(InvalidArgumentError) as refused:
        verify_webhook(event(), sign(event()), "sk_live_51VerySecretKey")
    assert "VerySecret" not in refused.value.detail and "whsec_" in refused.value.detail
    with pytest.raises(TypeError):
        verify_webhook(json.loads(event()), sign(event()), SECRET)  # type: ignore[arg-type]
