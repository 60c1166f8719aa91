"""The Play client against a red team's cases (Hardening V): a fork while connections and locks
are held, a budget that must bound every wait, credentials that must never reach an error,
and hostile answers from the token endpoint and the key server. Against the local Play
stand-in `make test` starts."""
from __future__ import annotations

import datetime
import json
import os
import signal
import threading
import time
from typing import Any, Dict, List

import pytest

import gatekit
from gatekit.ledger import Reason
from gatekit.testing import PlaySubscriptionLife
from play_standin import PlayStandIn

UTC = datetime.timezone.utc


@pytest.fixture(scope="module")
def play() -> PlayStandIn:
    return PlayStandIn()


def subscription(play: PlayStandIn, token: str, region: str) -> Dict[str, Any]:
    start = datetime.datetime.now(UTC).replace(microsecond=0) - datetime.timedelta(days=2)
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", token, start=start)
    life.subscribe()
    resource = life.resource()
    resource["regionCode"] = region
    return resource


def wait_for(pid: int, seconds: float) -> int:
    """The child's exit status; a child still running after ``seconds`` is killed and fails the test."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail(f"the forked child did not finish within {seconds} s")


def api_peers(play: PlayStandIn, since: int, token: str) -> List[int]:
    return [e["peer"] for e in play.log()[since:] if e.get("endpoint") == "api" and e.get("path", "").endswith("/tokens/" + token)]


def test_a_forked_child_never_uses_its_parents_connection(play):
    """H3: a client used before fork(), then by parent and child at once: each reads its own
    answers, and the child's requests go out on connections of its own (the parent's kept-alive
    TLS session is never shared: two processes on one socket read each other's answers)."""
    play.world(subscriptions={"fork-parent": subscription(play, "fork-parent", "DE"), "fork-child": subscription(play, "fork-child", "JP")})
    with play.client() as client:
        logged = len(play.log())
        assert client.get_subscription("fork-parent").region_code == "DE"   # a kept-alive connection, a cached access token
        ready_read, ready_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                # The first request while the parent waits: the parent's idle connection is there to take.
                if client.get_subscription("fork-child").region_code != "JP":
                    code = 3
                os.write(ready_write, b"1")
                for _ in range(19):   # then both at once
                    if client.get_subscription("fork-child").region_code != "JP":
                        code = 3
            except BaseException:
                code = 4
            os._exit(code)
        os.close(ready_write)
        os.read(ready_read, 1)
        os.close(ready_read)
        for _ in range(20):
            assert client.get_subscription("fork-parent").region_code == "DE", "the parent read another process's answer"
        assert wait_for(pid, 60) == 0, "the child read another process's answer (3) or failed (4)"
    parent, child = api_peers(play, logged, "fork-parent"), api_peers(play, logged, "fork-child")
    assert len(parent) == 21 and len(child) == 20
    assert not set(parent) & set(child), "the child sent on a connection the parent opened"


def test_a_child_forked_during_a_token_exchange_does_not_wait_for_it(play):
    """M8: fork while a parent thread holds the client's token-exchange lock: the child's call
    ends within its own timeout (its own exchange), never blocks on the parent's lock."""
    play.world(subscriptions={"fork-lock": subscription(play, "fork-lock", "FR")}, token={"delayMs": 3000})
    with play.client(timeout=datetime.timedelta(seconds=2)) as client:
        exchanging = threading.Thread(target=lambda: pytest.raises(gatekit.play.PlayTransportError, client.get_subscription, "fork-lock"))
        exchanging.start()
        time.sleep(0.5)   # the thread is inside the exchange, holding its lock
        pid = os.fork()
        if pid == 0:
            try:
                client.get_subscription("fork-lock")
                os._exit(1)   # a 3 s exchange cannot finish within a 2 s timeout
            except gatekit.play.PlayTransportError:
                os._exit(0)
            except BaseException:
                os._exit(2)
        assert wait_for(pid, 10) == 0
        exchanging.join()


def test_a_budget_bounds_the_wait_behind_another_threads_token_exchange(play, store):
    """M7: a question with refresh_within=300 ms while another thread's exchange takes 6 s on the
    same client: the question answers stale within its budget instead of waiting behind it (the
    bound below is generous: a loaded machine, not a timing)."""
    now = datetime.datetime.now(UTC).replace(microsecond=0)
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", "budget-wait", start=now - datetime.timedelta(days=31))
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource()})
    with play.client() as client:
        store.ledger.refresh_play_subscription(client, life.purchase_token)   # the period ended with renewal on
    life.renew()
    play.world(subscriptions={life.purchase_token: life.resource()}, token={"delayMs": 6000})
    with play.client() as client:
        store.ledger.set_play_refresher(client)
        slow = threading.Thread(target=client.get_subscription, args=(life.purchase_token,))
        slow.start()
        time.sleep(0.3)
        began = time.monotonic()
        answer = store.ledger.entitled(life.purchase_token, "pro.monthly", environment="Production",
                                       refresh_within=datetime.timedelta(milliseconds=300))
        waited = time.monotonic() - began
        slow.join()
    store.ledger.set_play_refresher(None)
    assert answer.reason == Reason.EXPIRED and answer.stale
    assert waited < 4.0, f"the question waited {waited:.1f} s behind the other thread's 6 s exchange"


def test_no_error_quotes_a_credential_or_a_key(play, tmp_path):
    """L1: user information in a URL, and a key's contents where its path belongs."""
    secret = "s3cret-Pa55"
    with pytest.raises(gatekit.errors.InvalidArgumentError) as refused:
        play.client(base_url=f"http://user:{secret}@127.0.0.1:1")
    assert secret not in str(refused.value) and "…@127.0.0.1" in str(refused.value)
    with pytest.raises(gatekit.errors.InvalidArgumentError) as refused:
        play.verifier(keys_url=f"ftp://admin:{secret}@keys.example/certs")
    assert secret not in str(refused.value)
    contents = open(play.s.account).read()
    key_lines = [line for line in json.loads(contents)["private_key"].splitlines() if "PRIVATE KEY" not in line and line]
    with pytest.raises(gatekit.play.PlayKeyError) as refused:
        gatekit.play.PlayClient(play.s.package, contents)
    message = str(refused.value)
    assert not any(line in message for line in key_lines) and "PRIVATE KEY" not in message and "contents" in message
    # A key file whose token_uri carries a password: the error names the member, not the password.
    key = json.loads(contents)
    key["token_uri"] = f"http://svc:{secret}@oauth.example/token"
    path = tmp_path / "key.json"
    path.write_text(json.dumps(key))
    path.chmod(0o600)
    with pytest.raises(gatekit.play.PlayKeyError) as refused:
        gatekit.play.PlayClient(play.s.package, path)
    assert secret not in str(refused.value) and "token_uri" in str(refused.value)


def test_a_fifo_where_the_key_file_belongs_is_refused_at_once(play, tmp_path):
    """L2: opening a FIFO would wait for a writer; it is not a regular file, and refused."""
    fifo = tmp_path / "key.json"
    os.mkfifo(fifo, 0o600)
    outcome: List[BaseException] = []

    def make() -> None:
        try:
            gatekit.play.PlayClient(play.s.package, fifo)
        except BaseException as error:  # noqa: BLE001 (the test inspects it)
            outcome.append(error)
    attempt = threading.Thread(target=make, daemon=True)
    attempt.start()
    attempt.join(10)
    assert not attempt.is_alive(), "the client waited for a writer to open the FIFO"
    assert outcome and isinstance(outcome[0], gatekit.errors.UnsafeStoreError) and "regular file" in str(outcome[0])


def test_an_event_time_no_date_type_holds_is_refused(play):
    """L5: eventTimeMillis INT64_MAX is refused by the verifier, never an OverflowError in Python."""
    from gatekit.play import PushRejected, push_body
    from play_standin import claims
    notification = {"version": "1.0", "packageName": play.s.package, "eventTimeMillis": str(2 ** 63 - 1), "testNotification": {"version": "1.0"}}
    with play.verifier() as verifier, pytest.raises(PushRejected, match="year 10000"):
        verifier.verify_push({"Authorization": f"Bearer {play.push_token(claims(play))}"}, push_body(notification, "l5"))


def test_a_member_of_the_wrong_json_type_is_a_model_error():
    """L6: subscriptionState 5 (a number where Google sends a string) is a PlayModelError, as every other wrong type."""
    from gatekit.play_models import PlayModelError, SubscriptionPurchaseV2, VoidedPurchase
    with pytest.raises(PlayModelError, match="subscriptionState"):
        SubscriptionPurchaseV2.from_json({"kind": "androidpublisher#subscriptionPurchaseV2", "subscriptionState": 5})
    with pytest.raises(PlayModelError, match="voidedTimeMillis"):
        VoidedPurchase.from_json({"voidedTimeMillis": str(2 ** 63 - 1)})


def test_a_token_type_other_than_bearer_is_refused(play):
    """RFC 6749 §7.1: a token of a type the client does not understand is never sent as a Bearer token."""
    play.world(subscriptions={"mac-token": subscription(play, "mac-token", "IT")}, token={"tokenType": "MAC"})
    with play.client() as client, pytest.raises(gatekit.play.PlayAuthError, match='of type "MAC"'):
        client.get_subscription("mac-token")
    assert play.counters()["api"] == 0, "the token was never used"


def test_a_slow_key_server_delays_only_the_push_that_needed_it(play):
    """L4: a push naming a kid the verifier lacks makes it fetch the keys (slowly); pushes signed
    with a held key are verified meanwhile without waiting for that fetch."""
    from gatekit.play import PushRejected, push_body
    from play_standin import claims
    play.world()
    notification = {"version": "1.0", "packageName": play.s.package, "eventTimeMillis": "1", "testNotification": {"version": "1.0"}}
    with play.verifier(key_refresh_interval=datetime.timedelta(0)) as verifier:
        verifier.verify_push({"Authorization": f"Bearer {play.push_token(claims(play))}"}, push_body(notification, "l4-0"))
        play.world(keysDelayMs=6000)
        unknown = {"Authorization": f"Bearer {play.push_token(claims(play), header={'kid': 'not-published'})}"}
        stranger = threading.Thread(target=lambda: pytest.raises(PushRejected, verifier.verify_push, unknown, push_body(notification, "l4-1")))
        stranger.start()
        time.sleep(0.3)
        began = time.monotonic()
        now = int(time.time())
        fresh = {"Authorization": f"Bearer {play.push_token(claims(play, iat=now - 1, exp=now + 3000))}"}
        verifier.verify_push(fresh, push_body(notification, "l4-2"))
        waited = time.monotonic() - began
        stranger.join()
    assert waited < 4.0, f"a push signed with a held key waited {waited:.1f} s behind another push's 6 s key fetch"


def test_a_verifiers_duplicate_is_the_same_id_and_the_same_notification(play):
    """M4 at the verifier: a push under a replayed token that takes a message id first cannot
    make Google's own push with that id (another notification) a duplicate; a redelivery is one."""
    from gatekit.play import push_body
    from play_standin import claims
    headers = {"Authorization": f"Bearer {play.push_token(claims(play))}"}

    def notification(token: str) -> dict:
        return {"version": "1.0", "packageName": play.s.package, "eventTimeMillis": "1",
                "subscriptionNotification": {"version": "1.0", "notificationType": 4, "purchaseToken": token}}
    with play.verifier() as verifier:
        assert not verifier.verify_push(headers, push_body(notification("decoy"), "5550001")).duplicate
        assert not verifier.verify_push(headers, push_body(notification("genuine"), "5550001")).duplicate
        assert verifier.verify_push(headers, push_body(notification("genuine"), "5550001")).duplicate


def test_a_push_token_issued_after_it_expires_is_refused(play):
    """iat 30 s ahead and exp 10 s ahead: both inside the clock skew, but a token never expires
    before it is issued (EPUSH_EXPIRED)."""
    from gatekit.play import PushRejected, push_body
    from play_standin import claims
    now = int(time.time())
    token = play.push_token(claims(play, iat=now + 30, exp=now + 10))
    note = {"version": "1.0", "packageName": play.s.package, "eventTimeMillis": "1", "testNotification": {"version": "1.0"}}
    with play.verifier() as verifier, pytest.raises(PushRejected) as refused:
        verifier.verify_push({"Authorization": f"Bearer {token}"}, push_body(note, "iat-exp"))
    assert refused.value.code == gatekit.play.EPUSH_EXPIRED


def test_a_member_repeated_after_the_sixteenth_is_refused(play):
    """The JSON reader refuses a repeated member wherever it stands (past the sixteen it may
    check by a linear scan): {"k0":0,…,"k15":15,"k0":1} is not one notification."""
    from gatekit.play import PushRejected
    from play_standin import claims
    members = ",".join(f'"k{i}":{i}' for i in range(16))
    data = ('{"version":"1.0","packageName":"%s","eventTimeMillis":"1","testNotification":{%s,"k0":1}}' % (play.s.package, members)).encode()
    import base64
    body = json.dumps({"message": {"data": base64.b64encode(data).decode(), "messageId": "dup-17"}, "subscription": "projects/p/subscriptions/s"}).encode()
    with play.verifier() as verifier, pytest.raises(PushRejected, match="not JSON"):
        verifier.verify_push({"Authorization": f"Bearer {play.push_token(claims(play))}"}, body)
