"""Google Play from Python against the local HTTPS stand-in `make test` starts
(scripts/with-play-standin.sh), which checks every request as Google would (the JWT bearer
grant's signature and claims, each API call's access token, method, path, query and body):
the Play Developer API client (typed answers, Google's errors, retries inside one deadline,
the access token's cache and its refresh on 401, a wrong clock), and RTDN push verification
with its hostile cases (forged, expired, wrong audience or email, alg confusion, unknown and
rotated keys, bad envelopes, other packages, duplicates, oversize bodies)."""
from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import datetime
import hashlib
import hmac
import json
import os
import time
from decimal import Decimal
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

from gatekit import _bindings
from gatekit.errors import GateKitError, UnsafeStoreError as UnsafeFileError
from gatekit.play import (AsyncPlayClient, NotificationKind, PlayAPIError, PlayAuthError, PlayKeyError, PlayResponseError,
                          PlayTransportError, PushRejected, PushVerifier, SubscriptionNotificationType, push_body)
from gatekit.play_models import (AcknowledgementState, ProductPurchaseState, ProductPurchaseType, SubscriptionState,
                                 VoidedReason)
from gatekit.testing import PlaySubscriptionLife, PlayTestIssuer, play_service_account
from play_standin import PlayStandIn, claims

UTC = datetime.timezone.utc
START = datetime.datetime(2026, 1, 1, tzinfo=UTC)
E = _bindings


@pytest.fixture(scope="module")
def play() -> PlayStandIn:
    return PlayStandIn()


@pytest.fixture
def life(play: PlayStandIn) -> PlaySubscriptionLife:
    return PlaySubscriptionLife(play.s.package, "pro.monthly", "token-life-1", start=START)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# ---- the API client ----

def test_a_subscription_is_read_into_typed_models_and_keeps_what_gatekit_does_not_know(play, life):
    life.subscribe()
    life.acknowledge()
    resource = life.resource()
    resource["lineItems"][0]["autoRenewingPlan"]["recurringPrice"] = {"currencyCode": "EUR", "units": "12", "nanos": 990000000}
    resource["somethingNewer"] = {"x": 1}
    resource["lineItems"][0]["offerPhase"] = {"freeTrial": {}}
    play.world(subscriptions={life.purchase_token: resource})
    with play.client() as client:
        sub = client.get_subscription(life.purchase_token)
    assert sub.subscription_state == SubscriptionState.ACTIVE
    assert sub.acknowledgement_state == AcknowledgementState.ACKNOWLEDGED
    assert sub.start_time == START
    item = sub.line_items[0]
    assert item.product_id == "pro.monthly" and item.expiry_time == START + datetime.timedelta(days=30)
    price = item.auto_renewing_plan.recurring_price
    assert (price.currency_code, price.units, price.nanos, price.amount) == ("EUR", 12, 990000000, Decimal("12.99"))
    assert item.offer_phase.free_trial and not item.offer_phase.base_price
    assert item.offer_details.base_plan_id == "monthly"
    assert sub.unknown == {"somethingNewer": {"x": 1}}
    assert sub.raw == resource and not sub.is_test


def test_a_newer_state_is_kept_not_refused(play, life):
    life.subscribe()
    resource = dict(life.resource(), subscriptionState="SUBSCRIPTION_STATE_SOMETHING_NEW", testPurchase={})
    play.world(subscriptions={life.purchase_token: resource})
    with play.client() as client:
        sub = client.get_subscription(life.purchase_token)
    assert sub.subscription_state == "SUBSCRIPTION_STATE_SOMETHING_NEW" and not sub.subscription_state.known
    assert SubscriptionState.ACTIVE.known
    assert sub.is_test, "a license tester's purchase is marked as such"


def test_the_access_token_is_fetched_once_and_again_only_when_the_api_refuses_it(play, life):
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource()})
    before = play.counters()["token"]
    with play.client() as client:
        for _ in range(5):
            client.get_subscription(life.purchase_token)
        assert play.counters()["token"] == before + 1
        play.revoke_tokens()  # the API now answers 401 to the token the client holds
        assert client.get_subscription(life.purchase_token).subscription_state == SubscriptionState.ACTIVE
        assert play.counters()["token"] == before + 2
    refused = [e for e in play.log() if e.get("problem") == "a revoked token"]
    assert refused, "the stand-in refused the revoked token once before the refresh"


def test_threads_share_one_client_and_one_token(play, life):
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource()})
    before = play.counters()["token"]
    with play.client() as client, concurrent.futures.ThreadPoolExecutor(8) as pool:
        states = list(pool.map(lambda _: client.get_subscription(life.purchase_token).subscription_state, range(40)))
    assert states == [SubscriptionState.ACTIVE] * 40
    assert play.counters()["token"] == before + 1


def test_the_async_client_answers_the_same(play, life):
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource()})

    async def main() -> Any:
        client = AsyncPlayClient(play.s.package, play.s.account, base_url=play.s.url, ca_file=play.s.ca)
        try:
            return await asyncio.gather(*(client.get_subscription(life.purchase_token) for _ in range(10)))
        finally:
            await client.close()
    answers = asyncio.run(main())
    assert {a.subscription_state for a in answers} == {SubscriptionState.ACTIVE}


@pytest.mark.parametrize("status,reason,retryable", [(404, "notFound", False), (410, "purchaseTokenNoLongerValid", False),
                                                     (403, "userInsufficientPermission", False), (400, "invalidValue", False)])
def test_googles_errors_are_typed(play, status, reason, retryable):
    play.world()
    with play.client(max_retries=0) as client:
        with pytest.raises(PlayAPIError) as caught:
            client.get_subscription(f"error-{status}-{reason}")
    error = caught.value
    assert (error.http_status, error.error_code, error.reason, error.retryable) == (status, status, reason, retryable)
    assert error.status and error.message and reason in str(error)


def test_429_and_5xx_are_retried_inside_the_deadline(play, life):
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource(), "ratelimit-2-a": life.resource()},
               faults=[{"request": 1, "status": 503}])
    with play.client(max_retries=3) as client:
        started = time.monotonic()
        assert client.get_subscription(life.purchase_token).subscription_state == SubscriptionState.ACTIVE
        assert client.get_subscription("ratelimit-2-a").subscription_state == SubscriptionState.ACTIVE
        assert time.monotonic() - started >= 2.0, "two Retry-After: 1 waits"
    with play.client(max_retries=0) as client:
        with pytest.raises(PlayAPIError) as caught:
            client.get_subscription("ratelimit-1-b")
    assert caught.value.http_status == 429 and caught.value.retryable
    assert caught.value.retry_after == datetime.timedelta(seconds=1)


def test_a_retry_that_would_pass_the_deadline_is_not_made(play, life):
    play.world(faults=[{"request": 1, "status": 503, "retryAfter": "30"}])
    with play.client(max_retries=3, timeout=datetime.timedelta(seconds=5)) as client:
        started = time.monotonic()
        with pytest.raises(PlayAPIError) as caught:
            client.get_subscription(life.purchase_token)
    assert caught.value.http_status == 503 and time.monotonic() - started < 4


def test_a_slow_server_ends_at_the_timeout(play):
    play.world()
    with play.client(timeout=datetime.timedelta(seconds=1)) as client:
        with pytest.raises(PlayTransportError):
            client.get_subscription("slow")


@pytest.mark.parametrize("steer", ["garbage", "huge"])
def test_an_answer_that_is_not_googles_is_refused(play, steer):
    play.world()
    with play.client() as client:
        with pytest.raises(PlayResponseError):
            client.get_subscription(steer)


def test_voided_purchases_page_through_googles_token_pagination(play):
    voided = [{"kind": "androidpublisher#voidedPurchase", "purchaseToken": f"t{i}", "orderId": f"GPA.{i}",
               "purchaseTimeMillis": str(1_700_000_000_000 + i), "voidedTimeMillis": str(1_700_000_100_000 + i),
               "voidedSource": 0, "voidedReason": i % 9, **({"_kind": "subscription"} if i % 2 else {})} for i in range(7)]
    play.world(voided=voided)
    logged = len(play.log())
    with play.client() as client:
        pages = list(client.iter_voided_purchases(max_results=2, include_subscriptions=True))
        only_products = list(client.iter_voided_purchases())
    assert [len(p.voided_purchases) for p in pages] == [2, 2, 2, 1]
    assert [v.order_id for p in pages for v in p.voided_purchases] == [f"GPA.{i}" for i in range(7)]
    assert pages[0].voided_purchases[1].voided_reason == VoidedReason.REMORSE
    assert pages[0].voided_purchases[0].voided_time == datetime.datetime(2023, 11, 14, 22, 15, tzinfo=UTC)
    assert [v.order_id for p in only_products for v in p.voided_purchases] == ["GPA.0", "GPA.2", "GPA.4", "GPA.6"]
    asked = [dict(e["query"]) for e in play.log()[logged:] if e.get("path", "").endswith("/voidedpurchases")]
    assert asked[0] == {"maxResults": "2", "type": "1"} and "token" in asked[1]


def test_one_time_products_and_orders(play):
    product = {"kind": "androidpublisher#productPurchase", "purchaseTimeMillis": "1767225600000", "purchaseState": 0,
               "consumptionState": 0, "orderId": "GPA.1", "purchaseType": 0, "acknowledgementState": 0, "quantity": 2,
               "regionCode": "DE", "refundableQuantity": 1}
    order = {"orderId": "GPA.1", "purchaseToken": "p1", "state": "PARTIALLY_REFUNDED", "createTime": "2026-01-01T00:00:00.5Z",
             "total": {"currencyCode": "EUR", "units": "4", "nanos": 990000000}, "newField": True}
    play.world(products={"coins.100/p1": product}, productsV2={"p1": {"orderId": "GPA.1", "testPurchaseContext": {"fopType": "TEST"}}},
               orders={"GPA.1": order, "GPA.2": dict(order, orderId="GPA.2")})
    with play.client() as client:
        bought = client.get_product("coins.100", "p1")
        assert bought.purchase_state == ProductPurchaseState.PURCHASED and bought.is_test
        assert bought.purchase_type == ProductPurchaseType.TEST and bought.quantity == 2
        assert bought.purchase_time == datetime.datetime(2026, 1, 1, tzinfo=UTC)
        assert client.get_product_v2("p1").is_test
        client.acknowledge_product("coins.100", "p1", developer_payload="x")
        client.consume_product("coins.100", "p1")
        got = client.get_order("GPA.1")
        assert got.total.amount == Decimal("4.99") and got.create_time.microsecond == 500000 and got.unknown == {"newField": True}
        assert [o.order_id for o in client.get_orders(["GPA.2", "GPA.1"])] == ["GPA.2", "GPA.1"]
        with pytest.raises(PlayAPIError):
            client.get_orders(["GPA.1", "GPA.9"])
        with pytest.raises(GateKitError):
            client.get_orders(["GPA.1", "GPA.1"])  # Google takes distinct ids only: refused before any request


def test_subscription_changes_send_googles_request_bodies(play, life):
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource()})
    with play.client() as client:
        client.acknowledge_subscription("pro.monthly", life.purchase_token, external_account_ids={"obfuscatedAccountId": "a1"})
        client.cancel_subscription(life.purchase_token)
        client.revoke_subscription(life.purchase_token, "prorated")
        client.revoke_subscription(life.purchase_token, item_product_id="addon.1")
        assert client.defer_subscription(life.purchase_token, {"deferralContext": {"etag": "x"}}) == {"itemExpiryTimeDetails": []}
        with pytest.raises(ValueError):
            client.revoke_subscription(life.purchase_token, "most")
    sent = {e["path"].rsplit(":", 1)[-1]: json.loads(e["body"]) for e in play.log()[-5:] if e.get("body")}
    assert sent["acknowledge"] == {"externalAccountIds": {"obfuscatedAccountId": "a1"}}
    assert sent["cancel"] == {"cancellationContext": {"cancellationType": "USER_REQUESTED_STOP_RENEWALS"}}
    assert sent["revoke"] == {"revocationContext": {"itemBasedRefund": {"productId": "addon.1"}}}
    assert all(e.get("problem") is None for e in play.log()[-6:])


# ---- OAuth for the service account ----

def write_key(path: Path, text: str, mode: int = 0o600) -> Path:
    path.write_text(text)
    os.chmod(path, mode)
    return path


def test_the_token_endpoints_refusal_is_a_clear_error_without_the_key(play, life, tmp_path):
    play.world(token={"status": 400, "error": "invalid_grant"})
    with play.client() as client:
        with pytest.raises(PlayAuthError) as caught:
            client.get_subscription(life.purchase_token)
    text = str(caught.value)
    assert "invalid_grant" in text and "gatekit-standin@" in text
    key = json.loads(Path(play.s.account).read_text())["private_key"]
    assert "PRIVATE KEY" not in text and key.splitlines()[1][:20] not in text


def test_a_failing_token_endpoint_is_asked_again_within_the_deadline(play, life):
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource()}, token={"failures": 2})
    with play.client(max_retries=3) as client:
        assert client.get_subscription(life.purchase_token).subscription_state == SubscriptionState.ACTIVE
    assert play.counters()["token"] == 3, "two 503s, then the token"
    # An outage is Google's answer (PlayAPIError, its status), never "bad credentials" (issue 60, item 1).
    play.world(token={"status": 500, "error": "internal_failure"})
    with play.client(max_retries=1) as client:
        with pytest.raises(PlayAPIError) as caught:
            client.get_subscription(life.purchase_token)
    assert not isinstance(caught.value, PermissionError)
    assert caught.value.http_status == 500 and caught.value.reason == "internal_failure" and caught.value.retryable
    assert "asked 2 times" in str(caught.value)
    assert play.counters()["token"] == 2


def test_a_slow_token_endpoint_ends_at_the_timeout(play, life):
    play.world(token={"delayMs": 3000})
    with play.client(timeout=datetime.timedelta(seconds=1)) as client:
        with pytest.raises(PlayTransportError):
            client.get_subscription(life.purchase_token)


def test_a_host_whose_clock_is_wrong_still_gets_a_token(play, life):
    """The stand-in's clock is two hours ahead: the first assertion is refused as from the
    past; its Date header tells the client the server's time, and the second is accepted."""
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource()}, token={"dateOffsetSeconds": 7200})
    with play.client() as client:
        assert client.get_subscription(life.purchase_token).subscription_state == SubscriptionState.ACTIVE
    problems = [e["problem"] for e in play.log() if e["endpoint"] == "token"][-2:]
    assert "reasonable timeframe" in problems[0] and problems[1] is None


def test_a_key_file_another_user_could_replace_or_read_is_refused(play, tmp_path):
    text = Path(play.s.account).read_text()
    for mode in (0o622, 0o644, 0o640):
        with pytest.raises(UnsafeFileError) as caught:
            client_for_key(play, write_key(tmp_path / f"loose-{mode:o}.json", text, mode))
        assert "BEGIN" not in str(caught.value)
    link = tmp_path / "link.json"
    link.symlink_to(write_key(tmp_path / "real.json", text))
    with pytest.raises(UnsafeFileError):
        client_for_key(play, link)


def client_for_key(play: PlayStandIn, key: Path) -> Any:
    from gatekit.play import PlayClient
    return PlayClient(play.s.package, key, base_url=play.s.url, ca_file=play.s.ca)


@pytest.mark.parametrize("change", ["not json", "type", "ec key", "encrypted", "short rsa", "no email"])
def test_a_file_that_is_not_a_service_account_key_is_refused_without_quoting_it(play, tmp_path, change):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa
    account = json.loads(Path(play.s.account).read_text())
    secret = account["private_key"].splitlines()[1]
    if change == "not json":
        text = account["private_key"]
    else:
        if change == "type":
            account["type"] = "authorized_user"
        elif change == "ec key":
            account["private_key"] = ec.generate_private_key(ec.SECP256R1()).private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
        elif change == "encrypted":
            account["private_key"] = rsa.generate_private_key(65537, 2048).private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.BestAvailableEncryption(b"pw")).decode()
        elif change == "short rsa":
            account["private_key"] = rsa.generate_private_key(65537, 1024).private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
        else:
            del account["client_email"]
        text = json.dumps(account)
    with pytest.raises(PlayKeyError) as caught:
        client_for_key(play, write_key(tmp_path / "key.json", text))
    assert secret[:16] not in str(caught.value) and "BEGIN" not in str(caught.value)


@pytest.mark.parametrize("url", ["http://127.0.0.1:1", "https://user:pw@127.0.0.1:1", "https://x/?q=1"])
def test_a_base_url_gatekit_cannot_use_is_an_error(play, url):
    with pytest.raises(GateKitError) as caught:
        play.client(base_url=url)
    assert caught.value.code == E.GATEKIT_EINVAL


def test_a_server_the_client_does_not_trust_is_not_spoken_to(play, life):
    play.world()
    from gatekit.play import PlayClient
    with PlayClient(play.s.package, play.s.account, base_url=play.s.url) as client:  # the system's CAs only
        with pytest.raises(PlayTransportError):
            client.get_subscription(life.purchase_token)


# ---- RTDN push verification ----

def headers(token: str) -> Dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}


def notification(package: str, **payload: Any) -> Dict[str, Any]:
    body: Dict[str, Any] = {"version": "1.0", "packageName": package, "eventTimeMillis": "1767225600000"}
    body.update(payload or {"subscriptionNotification": {"version": "1.0", "notificationType": 4, "purchaseToken": "tok"}})
    return body


def test_a_push_from_the_issuer_is_verified_and_its_keys_fetched_once(play):
    play.world(keysMaxAge=300)
    verifier = play.verifier()
    before = play.counters()["keys"]
    for i in range(20):
        note = verifier.verify_push(headers(play.push_token(claims(play))), push_body(notification(play.s.package), f"m{i}"))
        assert note.kind == NotificationKind.SUBSCRIPTION and not note.duplicate
        assert note.subscription_notification.notification_type == SubscriptionNotificationType.PURCHASED
        assert note.purchase_token == "tok" and note.event_time == START
        assert note.issuer == play.s.issuer and note.test_signed, "the stand-in's issuer is not Google"
    assert play.counters()["keys"] == before + 1, "the key set is cached for its max-age"


def test_a_key_set_without_caching_is_fetched_for_each_push(play):
    play.world(keysMaxAge=0)
    verifier = play.verifier()
    before = play.counters()["keys"]
    for i in range(3):  # three tokens: the verifier keeps a token it verified, so the same one would not fetch
        verifier.verify_push(headers(play.push_token(claims(play, sub=f"n{i}"))), push_body(notification(play.s.package), f"n{i}"))
    assert play.counters()["keys"] == before + 3


def test_a_key_rotation_mid_run_is_followed(play):
    play.world(keysMaxAge=3600)
    verifier = play.verifier(key_refresh_interval=datetime.timedelta(0))
    first = play.push_token(claims(play))
    verifier.verify_push(headers(first), push_body(notification(play.s.package), "r1"))
    play.rotate()
    before = play.counters()["keys"]
    note = verifier.verify_push(headers(play.push_token(claims(play))), push_body(notification(play.s.package), "r2"))
    assert note.message_id == "r2" and play.counters()["keys"] == before + 1
    # The retired key is no longer published: the very token verified before (the verifier's
    # cache of verified tokens holds it) and a new token signed with that key are both refused.
    for token, message in ((first, "r3"), (play.push_token(claims(play, iat=int(time.time()) - 5, exp=int(time.time()) + 600), sign="old"), "r4")):
        with pytest.raises(PushRejected) as caught:
            verifier.verify_push(headers(token), push_body(notification(play.s.package), message))
        assert caught.value.code == E.GATEKIT_EPUSH_KEY, message


def test_unknown_kids_do_not_make_the_verifier_hammer_the_issuer(play):
    play.world(keysMaxAge=3600)
    verifier = play.verifier(key_refresh_interval=datetime.timedelta(minutes=5))
    verifier.verify_push(headers(play.push_token(claims(play))), push_body(notification(play.s.package), "k1"))
    before = play.counters()["keys"]
    for i in range(5):
        with pytest.raises(PushRejected) as caught:
            verifier.verify_push(headers(play.push_token(claims(play), header={"kid": f"made-up-{i}"})),
                                 push_body(notification(play.s.package), f"k{i + 2}"))
        assert caught.value.code == E.GATEKIT_EPUSH_KEY
    assert play.counters()["keys"] == before, "no fetch within the refresh interval"


def forged_hs256(play: PlayStandIn) -> str:
    """alg confusion: HS256 keyed with the issuer's published public key (as PEM), under its kid."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    jwk = play._call("GET", "/oauth2/v3/certs")["keys"][0]
    n, e = (int.from_bytes(base64.urlsafe_b64decode(jwk[k] + "=="), "big") for k in ("n", "e"))
    secret = rsa.RSAPublicNumbers(e, n).public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": jwk["kid"]}).encode())
    body = b64url(json.dumps(claims(play)).encode())
    mac = hmac.new(secret, f"{header}.{body}".encode(), hashlib.sha256).digest()
    return f"{header}.{body}.{b64url(mac)}"


def hostile_cases(play: PlayStandIn) -> Dict[str, Any]:
    now = int(time.time())
    return {
        "no header": (None, E.GATEKIT_EPUSH_TOKEN),
        "basic auth": ("Basic dXNlcjpwdw==", E.GATEKIT_EPUSH_TOKEN),
        "not a jwt": ("Bearer abc.def", E.GATEKIT_EPUSH_TOKEN),
        "alg none": (f"Bearer {play.push_token(claims(play), header={'alg': 'none'}, sign='none')}", E.GATEKIT_EPUSH_ALGORITHM),
        "alg HS256": (f"Bearer {forged_hs256(play)}", E.GATEKIT_EPUSH_ALGORITHM),
        "forged signature": (f"Bearer {play.push_token(claims(play))[:-8]}AAAAAAAA", E.GATEKIT_EPUSH_SIGNATURE),
        "claims swapped": (f"Bearer {swap_claims(play.push_token(claims(play)), claims(play, email='attacker@evil.example'))}",
                           E.GATEKIT_EPUSH_SIGNATURE),
        "expired": (f"Bearer {play.push_token(claims(play, iat=now - 7200, exp=now - 3600))}", E.GATEKIT_EPUSH_EXPIRED),
        "issued in the future": (f"Bearer {play.push_token(claims(play, iat=now + 600, exp=now + 4200))}", E.GATEKIT_EPUSH_EXPIRED),
        "lives a day": (f"Bearer {play.push_token(claims(play, exp=now + 86400))}", E.GATEKIT_EPUSH_EXPIRED),
        "wrong audience": (f"Bearer {play.push_token(claims(play, aud='https://other.example.com'))}", E.GATEKIT_EPUSH_CLAIMS),
        "audience array": (f"Bearer {play.push_token(claims(play, aud=[play.s.audience]))}", E.GATEKIT_EPUSH_CLAIMS),
        "wrong email": (f"Bearer {play.push_token(claims(play, email='other@x.iam.gserviceaccount.com'))}", E.GATEKIT_EPUSH_CLAIMS),
        "email unverified": (f"Bearer {play.push_token(claims(play, email_verified=False))}", E.GATEKIT_EPUSH_CLAIMS),
        "google's issuer": (f"Bearer {play.push_token(claims(play, iss='https://accounts.google.com'))}", E.GATEKIT_EPUSH_CLAIMS),
        "unknown kid": (f"Bearer {play.push_token(claims(play), header={'kid': 'nope'})}", E.GATEKIT_EPUSH_KEY),
    }


def swap_claims(token: str, new_claims: Dict[str, Any]) -> str:
    head, _, signature = token.split(".")
    return f"{head}.{b64url(json.dumps(new_claims).encode())}.{signature}"


def test_hostile_tokens_are_refused_with_the_check_that_failed(play):
    play.world(keysMaxAge=3600)
    verifier = play.verifier(key_refresh_interval=datetime.timedelta(minutes=5))
    body = push_body(notification(play.s.package), "h")
    for name, (authorization, code) in hostile_cases(play).items():
        with pytest.raises(PushRejected) as caught:
            verifier.verify_push({} if authorization is None else {"Authorization": authorization}, body)
        assert caught.value.code == code, f"{name}: {caught.value}"


def envelope(data: Any, **message: Any) -> bytes:
    return json.dumps({"message": {"data": data, "messageId": "e1", **message}, "subscription": "projects/p/subscriptions/s"}).encode()


def test_hostile_envelopes_are_refused(play):
    issuer = PlayTestIssuer()
    verifier = issuer.verifier(play.s.package, play.s.audience, play.s.email)
    ok = {"Authorization": issuer.sign_push(play.s.audience, play.s.email)}
    two_kinds = notification(play.s.package, testNotification={"version": "1.0"},
                             subscriptionNotification={"version": "1.0", "notificationType": 2, "purchaseToken": "t"})
    cases = {
        "not json": (b"<xml/>", E.GATEKIT_EPUSH_MESSAGE),
        "no message": (b'{"subscription":"s"}', E.GATEKIT_EPUSH_MESSAGE),
        "bad base64": (envelope("!!!not base64!!!"), E.GATEKIT_EPUSH_MESSAGE),
        "data not json": (envelope(base64.b64encode(b"hello").decode()), E.GATEKIT_EPUSH_MESSAGE),
        "no message id": (json.dumps({"message": {"data": base64.b64encode(json.dumps(notification(play.s.package)).encode()).decode()},
                                      "subscription": "s"}).encode(), E.GATEKIT_EPUSH_MESSAGE),
        "another package": (push_body(notification("com.attacker.app"), "p1"), E.GATEKIT_EPUSH_PACKAGE),
        "two kinds": (push_body(two_kinds, "p2"), E.GATEKIT_EPUSH_MESSAGE),
        "token not a string": (push_body(notification(play.s.package, subscriptionNotification={"notificationType": 2, "purchaseToken": 5}), "p3"),
                               E.GATEKIT_EPUSH_MESSAGE),
        "oversize": (push_body(notification(play.s.package, pad="x" * (1 << 20)), "p4"), E.GATEKIT_ETOOLARGE),
    }
    for name, (body, code) in cases.items():
        with pytest.raises(GateKitError) as caught:
            verifier.verify_push(ok, body)
        assert caught.value.code == code, f"{name}: {caught.value}"


def test_every_kind_is_typed_and_the_unknown_reported_not_guessed(play):
    issuer = PlayTestIssuer()
    verifier = issuer.verifier(play.s.package, play.s.audience, play.s.email)
    ok = {"authorization": issuer.sign_push(play.s.audience, play.s.email)}
    pkg = play.s.package

    def verify(message_id: str, **payload: Any) -> Any:
        return verifier.verify_push(ok, push_body(notification(pkg, **payload), message_id))
    one_time = verify("1", oneTimeProductNotification={"version": "1.0", "notificationType": 2, "purchaseToken": "p", "sku": "coins"})
    assert one_time.kind == NotificationKind.ONE_TIME_PRODUCT and one_time.one_time_product_notification.sku == "coins"
    voided = verify("2", voidedPurchaseNotification={"purchaseToken": "p", "orderId": "GPA.1", "productType": 1, "refundType": 1})
    assert voided.voided_purchase_notification.order_id == "GPA.1" and voided.notification_type_name == "PRODUCT_TYPE_SUBSCRIPTION"
    review = verify("3", pendingRefundReviewNotification={"pendingRefundToken": "r", "orderId": "GPA.2"})
    assert review.kind == NotificationKind.PENDING_REFUND_REVIEW and review.payload["pendingRefundToken"] == "r"
    assert verify("4", testNotification={"version": "1.0"}).kind == NotificationKind.TEST
    newer = verify("5", subscriptionNotification={"version": "1.0", "notificationType": 99, "purchaseToken": "t"})
    assert newer.subscription_notification.notification_type is None and newer.subscription_notification.raw_type == 99
    assert newer.notification_type_name is None and newer.payload == {"version": "1.0", "notificationType": 99, "purchaseToken": "t"}
    unknown = verify("6", futureNotification={"x": 1})
    assert unknown.kind == NotificationKind.UNKNOWN and unknown.payload == {"futureNotification": {"x": 1}}
    number_time = verifier.verify_push(ok, push_body(dict(notification(pkg), eventTimeMillis=1767225600000), "7"))
    assert number_time.event_time == START


def test_a_redelivered_message_is_marked_duplicate(play):
    issuer = PlayTestIssuer()
    verifier = issuer.verifier(play.s.package, play.s.audience, play.s.email, duplicate_window=2)
    ok = {"Authorization": issuer.sign_push(play.s.audience, play.s.email)}
    seen = [verifier.verify_push(ok, push_body(notification(play.s.package), m)).duplicate for m in ("a", "a", "b", "c", "a")]
    assert seen == [False, True, False, False, False], "a window of two forgets the oldest"


def test_test_data_never_passes_as_googles(play):
    issuer = PlayTestIssuer()
    google = PushVerifier(play.s.package, play.s.audience, play.s.email, keys_json=issuer.keys_json())
    with pytest.raises(PushRejected) as caught:
        google.verify_push({"Authorization": issuer.sign_push(play.s.audience, play.s.email)}, push_body(notification(play.s.package), "g"))
    assert caught.value.code == E.GATEKIT_EPUSH_CLAIMS and "Google" in str(caught.value)
    with pytest.raises(GateKitError):
        PlayTestIssuer("https://accounts.google.com")


def test_a_failing_key_server_is_not_asked_again_within_the_refresh_interval(play):
    play.world(keysStatus=503)
    verifier = play.verifier(key_refresh_interval=datetime.timedelta(minutes=5))
    before = play.counters()["keys"]
    for i in range(3):
        with pytest.raises(PushRejected) as caught:
            verifier.verify_push(headers(play.push_token(claims(play, sub=f"f{i}"))), push_body(notification(play.s.package), f"f{i}"))
        assert caught.value.code == E.GATEKIT_EPUSH_KEYSET and "HTTP 503" in str(caught.value)
    assert play.counters()["keys"] == before + 1, "one fetch; the next pushes fail at once"
    play.world(keysMaxAge=300)
    again = play.verifier(key_refresh_interval=datetime.timedelta(0))
    assert again.verify_push(headers(play.push_token(claims(play, sub="f9"))), push_body(notification(play.s.package), "f9")).kind


def test_a_key_set_that_cannot_be_fetched_is_its_own_error(play):
    verifier = PushVerifier(play.s.package, play.s.audience, play.s.email, issuer=play.s.issuer,
                            keys_url=play.s.url + "/no-such-keys", ca_file=play.s.ca)
    with pytest.raises(PushRejected) as caught:
        verifier.verify_push(headers(play.push_token(claims(play))), push_body(notification(play.s.package), "f"))
    assert caught.value.code == E.GATEKIT_EPUSH_KEYSET and "HTTP" in str(caught.value)


def test_a_service_account_from_the_test_data_gets_a_token_from_a_stand_in(play, tmp_path):
    text = play_service_account("someone@x.iam.gserviceaccount.com", play.s.url + "/token")
    account = json.loads(text)
    assert account["type"] == "service_account" and "BEGIN PRIVATE KEY" in account["private_key"]
    key = write_key(tmp_path / "sa.json", text)
    play.world()
    with pytest.raises(PlayAuthError):  # the stand-in knows only its own account: the assertion's signature is refused
        client_for_key(play, key).get_subscription("x")


def test_the_rtdn_endpoint_example_verifies_then_asks_the_api(play, life, tmp_path):
    """examples/play_rtdn_endpoint.py as a process, against the stand-in: a Google push is
    verified, the API asked, its answer recorded in the ledger and answered; a forged push is
    403; a redelivery is 204 without asking Google again."""
    import subprocess
    import urllib.request
    from conftest import example, example_env
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource()}, keysMaxAge=300)
    code = (
        "import importlib.util, os, sys\n"
        "spec = importlib.util.spec_from_file_location('rtdn', sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "from gatekit.play import PlayClient, PushVerifier\n"
        "e = os.environ\n"
        "v = PushVerifier(e['GATEKIT_TEST_PLAY_PACKAGE'], e['GATEKIT_TEST_PLAY_PUSH_AUDIENCE'], e['GATEKIT_TEST_PLAY_PUSH_EMAIL'],"
        " issuer=e['GATEKIT_TEST_PLAY_ISSUER'], keys_url=e['GATEKIT_TEST_PLAY_KEYS_URL'], ca_file=e['GATEKIT_TEST_PLAY_CA'])\n"
        "c = PlayClient(e['GATEKIT_TEST_PLAY_PACKAGE'], e['GATEKIT_TEST_PLAY_SERVICE_ACCOUNT'], base_url=e['GATEKIT_TEST_PLAY_URL'], ca_file=e['GATEKIT_TEST_PLAY_CA'])\n"
        "import gatekit\n"
        "store = gatekit.Store(sys.argv[2])\n"
        "import logging; logging.basicConfig(level=logging.INFO, format='%(message)s')\n"
        "s = m.serve(m.Endpoint(store, v, c, test_data=True), 0); print(s.server_address[1], flush=True); s.serve_forever()\n")
    command = example("play_rtdn_endpoint.py")
    process = subprocess.Popen([command[0], "-c", code, command[1], str(tmp_path / "ledger.sqlite")], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=example_env(**{k: v for k, v in os.environ.items() if k.startswith("GATEKIT_")}))
    try:
        port = int(process.stdout.readline())
        url = f"http://127.0.0.1:{port}"

        def post(authorization: Optional[str], message_id: str, notification: Optional[Dict[str, Any]] = None) -> int:
            headers = {"Content-Type": "application/json", **({"Authorization": authorization} if authorization else {})}
            request = urllib.request.Request(url + "/play/rtdn", data=push_body(notification or life.sent[-1], message_id), method="POST",
                                             headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    return int(answer.status)
            except urllib.error.HTTPError as error:
                return int(error.code)
        good = f"Bearer {play.push_token(claims(play))}"
        assert post(good, "x1") == 204
        with urllib.request.urlopen(f"{url}/play/entitled/{life.purchase_token}/pro.monthly", timeout=30) as answer:
            state = json.loads(answer.read())
        # The life's period (January 2026) is over: the ledger answers from Google's answer, the store and state named.
        assert state["reason"] == "expired" and state["store"] == "play" and state["storeState"] == "SUBSCRIPTION_STATE_ACTIVE"
        assert state["productId"] == "pro.monthly:monthly" and state["originalTransactionId"] == life.purchase_token
        asked = play.counters()["api"]
        assert post(good, "x1") == 204 and play.counters()["api"] == asked, "a redelivery asks Google nothing"
        assert post(f"Bearer {play.push_token(claims(play, aud='https://elsewhere.example.com'))}", "x2") == 403
        # Every push is answered (issue 60, item 14): without authentication 403; a token Google
        # answers 410 about is acknowledged (a retry mends nothing) with a log line; Google's
        # 503 is 503, so Pub/Sub retries.
        assert post(None, "x3") == 403
        gone = dict(life.sent[-1], subscriptionNotification={"version": "1.0", "notificationType": 2,
                                                             "purchaseToken": "error-410-purchaseTokenNoLongerValid"})
        assert post(good, "x4", gone) == 204
        busy = dict(life.sent[-1], subscriptionNotification={"version": "1.0", "notificationType": 2, "purchaseToken": "error-503-backendError"})
        assert post(good, "x5", busy) == 503
    finally:
        process.terminate()
        _, errors = process.communicate(timeout=10)
    assert "push acknowledged without a record" in errors and "410" in errors, errors


def test_the_models_ask_the_library_whether_a_purchase_is_a_testers():
    """Architecture IV: the test-purchase rule lives once, in the library (play_purchase_is_test,
    what the ledger's mapping applies); each model asks it with the object Google sent, so an
    answer of another resource is Google's malformed answer here as it is in the ledger."""
    from gatekit.play import PlayResponseError
    from gatekit.play_models import ProductPurchase, ProductPurchaseV2, SubscriptionPurchaseV2
    subscription = {"kind": "androidpublisher#subscriptionPurchaseV2", "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE"}
    assert not SubscriptionPurchaseV2.from_json(subscription).is_test
    assert SubscriptionPurchaseV2.from_json(dict(subscription, testPurchase={})).is_test
    product = {"kind": "androidpublisher#productPurchase", "purchaseState": 0}
    assert not ProductPurchase.from_json(dict(product, purchaseType=1)).is_test
    assert not ProductPurchase.from_json(product).is_test, "no purchaseType: a real purchase"
    assert ProductPurchase.from_json(dict(product, purchaseType=0)).is_test
    v2 = {"kind": "androidpublisher#productPurchaseV2", "orderId": "GPA.1"}
    assert not ProductPurchaseV2.from_json(v2).is_test
    assert ProductPurchaseV2.from_json(dict(v2, testPurchaseContext={"fopType": "TEST"})).is_test
    with pytest.raises(PlayResponseError, match="kind"):
        _ = SubscriptionPurchaseV2.from_json(dict(subscription, kind="androidpublisher#productPurchase")).is_test
