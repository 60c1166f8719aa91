"""Standard Webhooks from Python (gatekit.webhooks, <gatekit/webhooks.h>): the spec's own test
vector, every delivery checked both ways against the spec's reference library (standardwebhooks
from PyPI, an implementation independent of GateKit's), secrets rolled, and each forgery refused
with its reason — a changed body, another endpoint's secret, a stale or a future timestamp, a
header missing or malformed, a v1a entry alone."""
from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

import pytest
import standardwebhooks

from gatekit import webhooks
from gatekit.errors import InvalidArgumentError
from gatekit.webhooks import EWEBHOOK_HEADER, EWEBHOOK_SIGNATURE, EWEBHOOK_TIMESTAMP, WebhookVerificationError

# ../shared/docs/webhooks-out.md §1: the reference library's test vector.
VECTOR_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
VECTOR_AT = datetime.fromtimestamp(1614265330, timezone.utc)
VECTOR_BODY = b'{"test": 2432232314}'
VECTOR_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def refused(code: int, body: bytes, headers: dict, secrets, **kw) -> str:
    with pytest.raises(WebhookVerificationError) as caught:
        webhooks.verify(body, headers, secrets, **kw)
    assert caught.value.code == code, caught.value
    return str(caught.value)


def test_the_specs_test_vector():
    assert webhooks.sign(VECTOR_ID, VECTOR_AT, VECTOR_BODY, VECTOR_SECRET) == VECTOR_SIGNATURE
    given = {"webhook-id": VECTOR_ID, "webhook-timestamp": "1614265330", "webhook-signature": VECTOR_SIGNATURE}
    verified = webhooks.verify(VECTOR_BODY, given, VECTOR_SECRET, now=VECTOR_AT + timedelta(seconds=10))
    assert verified == webhooks.VerifiedWebhook(VECTOR_ID, VECTOR_AT, 0)
    # The secret unpadded, as the reference library reads it (24 bytes need no padding; 32 do).
    key = webhooks.generate_secret()
    assert key.startswith("whsec_") and len(key) == len("whsec_") + 44 and key.endswith("=")
    assert webhooks.sign("m", VECTOR_AT, b"x", key) == webhooks.sign("m", VECTOR_AT, b"x", key.rstrip("="))


def test_every_delivery_verifies_both_ways_with_the_reference_library():
    """GateKit's signatures verify with standardwebhooks, and its signatures with GateKit's
    verifier: random bodies (any bytes the reference library reads as text), ids and secrets."""
    for n in range(40):
        secret = webhooks.generate_secret()
        body = os.urandom(n * 37 % 700).hex().encode() + '{"é":"ünïcode"}'.encode()
        msg_id = f"msg_{os.urandom(8).hex()}"
        ours = webhooks.headers(msg_id, body, secret)
        standardwebhooks.Webhook(secret).verify(body, ours, json_parse=False)
        at = datetime.now(timezone.utc) - timedelta(seconds=n)
        theirs = {"webhook-id": msg_id, "webhook-timestamp": str(int(at.timestamp())),
                  "webhook-signature": standardwebhooks.Webhook(secret).sign(msg_id, at, body.decode())}
        assert webhooks.verify(body, theirs, secret).id == msg_id
        # And each refuses the other's delivery of another body.
        with pytest.raises(standardwebhooks.WebhookVerificationError):
            standardwebhooks.Webhook(secret).verify(body + b" ", ours, json_parse=False)
        refused(EWEBHOOK_SIGNATURE, body + b" ", theirs, secret)


def test_a_rolled_secret_signs_twice_and_either_verifies():
    old, new = webhooks.generate_secret(), webhooks.generate_secret()
    body = b'{"type":"entitlement.renewed"}'
    both = webhooks.headers("msg_roll", body, [new, old])
    assert both["webhook-signature"].count("v1,") == 2
    assert webhooks.verify(body, both, old).secret_index == 0
    assert webhooks.verify(body, both, [old, new]).secret_index == 0  # the secrets are tried in the order given
    assert webhooks.verify(body, both, [webhooks.generate_secret(), new]).secret_index == 1
    standardwebhooks.Webhook(old).verify(body, both, json_parse=False)
    standardwebhooks.Webhook(new).verify(body, both, json_parse=False)
    refused(EWEBHOOK_SIGNATURE, body, both, webhooks.generate_secret())


def test_the_timestamp_is_checked_both_ways():
    secret, body = webhooks.generate_secret(), b"{}"
    at = datetime(2026, 6, 1, tzinfo=timezone.utc)
    given = webhooks.headers("msg_t", body, secret, timestamp=at)
    assert webhooks.verify(body, given, secret, now=at + timedelta(seconds=300)).signed_at == at
    assert webhooks.verify(body, given, secret, now=at - timedelta(seconds=300)).signed_at == at
    assert "301 s ago" in refused(EWEBHOOK_TIMESTAMP, body, given, secret, now=at + timedelta(seconds=301))
    assert "301 s ahead" in refused(EWEBHOOK_TIMESTAMP, body, given, secret, now=at - timedelta(seconds=301))
    assert webhooks.verify(body, given, secret, now=at + timedelta(hours=1), tolerance=timedelta(hours=2)).id == "msg_t"
    refused(EWEBHOOK_TIMESTAMP, body, given, secret)  # signed in June, asked now
    with pytest.raises(ValueError, match="at least a second"):
        webhooks.verify(body, given, secret, tolerance=timedelta(0))


def test_what_is_not_a_delivery_is_refused_with_its_reason():
    secret, body = webhooks.generate_secret(), b'{"a":1}'
    good = webhooks.headers("msg_h", body, secret)
    assert webhooks.verify(body, {k.upper(): v for k, v in good.items()}, secret).id == "msg_h"  # any case
    for missing in good:
        assert missing in refused(EWEBHOOK_HEADER, body, {k: v for k, v in good.items() if k != missing}, secret)
    v1a_only = dict(good, **{"webhook-signature": "v1a," + good["webhook-signature"][3:]})
    assert "no v1" in refused(EWEBHOOK_HEADER, body, v1a_only, secret)
    # A v1a entry beside a good v1 is skipped, as the reference library skips it.
    assert webhooks.verify(body, dict(good, **{"webhook-signature": "v1a,AAAA " + good["webhook-signature"]}), secret).id == "msg_h"
    for signature in ("v1", "v1,not base64!", "v1,AAAA", " ".join(["v2,x"] * 40)):
        refused(EWEBHOOK_HEADER, body, dict(good, **{"webhook-signature": signature}), secret)
    for stamp in ("", "12.5", "-5", "1e9", "9" * 13):
        refused(EWEBHOOK_HEADER, body, dict(good, **{"webhook-timestamp": stamp}), secret)
    for msg_id in ("", "msg.with.dots", "msg id", "m" * 256):
        refused(EWEBHOOK_HEADER, body, dict(good, **{"webhook-id": msg_id}), secret)
    # The id and timestamp are signed: another id or instant is another message.
    refused(EWEBHOOK_SIGNATURE, body, dict(good, **{"webhook-id": "msg_other"}), secret)
    refused(EWEBHOOK_SIGNATURE, body, dict(good, **{"webhook-timestamp": str(int(good["webhook-timestamp"]) - 1)}), secret)
    with pytest.raises(TypeError, match="bytes as received"):
        webhooks.verify(body.decode(), good, secret)  # type: ignore[arg-type]


def test_a_secret_is_checked_and_never_echoed():
    body, at = b"{}", datetime.now(timezone.utc)
    for bad in ("sk_live_abcdefghijklmnopqrstuvwx", "whsec_", "whsec_not*base64*at*all*000000000", "whsec_" + "QUFB" * 4,  # 12 bytes
                "whsec_" + "QUFB" * 30, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"):
        with pytest.raises(InvalidArgumentError) as caught:
            webhooks.sign("msg_s", at, body, bad)
        assert bad[6:] not in str(caught.value) or len(bad) <= 6, caught.value
    with pytest.raises(InvalidArgumentError, match="1 to 8"):
        webhooks.sign("msg_s", at, body, [webhooks.generate_secret()] * 9)
    with pytest.raises(InvalidArgumentError, match="webhook id"):
        webhooks.sign("msg.s", at, body, webhooks.generate_secret())
    assert len({webhooks.generate_secret() for _ in range(50)}) == 50
