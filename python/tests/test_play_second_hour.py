"""Play's second hour (issue 60): what a newcomer adding Google Play ran into, each as the
newcomer met it — an error that does not say what happened, a silent "no" — against the local
Play stand-in `make test` starts."""
from __future__ import annotations

import datetime
import json
import os
import subprocess
import warnings

import pytest

import gatekit
from gatekit.ledger import CatalogWarning
from gatekit.play import PushRejected, push_body
from conftest import REPO_ROOT
from play_standin import PlayStandIn, claims

UTC = datetime.timezone.utc
TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))


@pytest.fixture(scope="module")
def play() -> PlayStandIn:
    return PlayStandIn()


def note(play: PlayStandIn) -> dict:
    return {"version": "1.0", "packageName": play.s.package, "eventTimeMillis": "1", "testNotification": {"version": "1.0"}}


def test_a_push_without_authorization_is_one_refusal_wherever_it_is_verified(play, store):
    """Item 2: verify_push and ingest_play_push refuse a push without an Authorization header
    alike — PushRejected (EPUSH_TOKEN), with the hint — never "authorization is NULL"."""
    body = push_body(note(play), "no-auth")
    with play.client() as client, play.verifier() as verifier:
        for verify in (lambda: verifier.verify_push({}, body), lambda: store.ledger.ingest_play_push(verifier, client, {}, body)):
            with pytest.raises(PushRejected) as refused:
                verify()
            assert refused.value.code == gatekit.play.EPUSH_TOKEN and "authentication enabled on the push subscription" in str(refused.value)


def test_a_push_body_is_the_raw_bytes_and_says_so(play):
    """Item 3: a str body is its UTF-8 bytes; parsed JSON is refused with what to pass instead."""
    headers = {"Authorization": f"Bearer {play.push_token(claims(play))}"}
    body = push_body(note(play), "as-text")
    with play.verifier() as verifier:
        assert verifier.verify_push(headers, body.decode()).message_id == "as-text"
        with pytest.raises(TypeError, match="raw body .* not dict: pass the bytes"):
            verifier.verify_push(headers, json.loads(body))


def test_a_bad_key_set_is_a_bad_argument_not_a_refused_push(play):
    with pytest.raises(gatekit.errors.InvalidArgumentError, match="keys_json is not a usable JWKS"):
        gatekit.play.PushVerifier(play.s.package, play.s.audience, play.s.email, issuer=play.s.issuer, keys_json=json.dumps({"keys": "none"}))


def test_an_instant_given_as_a_number_is_refused_with_the_reason(store):
    """Item 3: the Ledger's questions take aware datetimes only (the docstring said Unix ms)."""
    with pytest.raises(TypeError):
        store.ledger.entitled("alice", "pro", environment="Production", at=1_767_225_600_000)  # type: ignore[arg-type]


def test_the_tool_says_what_a_headers_file_holds(play, tmp_path):
    """Item 3: `gatekit play verify-push --headers FILE` with a JSON file names the format it wants."""
    headers, body = tmp_path / "headers.json", tmp_path / "body.json"
    headers.write_text(json.dumps({"Authorization": "Bearer x"}))
    body.write_bytes(push_body(note(play), "tool-headers"))
    done = subprocess.run([TOOL, "play", "verify-push", "--headers", str(headers), "--body", str(body),
                           "--package", play.s.package, "--audience", play.s.audience, "--email", play.s.email,
                           "--issuer", play.s.issuer, "--keys-url", play.s.keys_url, "--ca-file", play.s.ca],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "'Name: value' lines" in done.stderr, done.stderr


def test_googles_error_description_is_shown_whole_and_hinted_only_at_what_it_names(play):
    """Item 4: Google's description states the fix; it is not cut at 87 bytes, and no clock or
    key hint is added when it names something else (the audience)."""
    description = ("Invalid JWT: the audience of the assertion is not the token endpoint. The right audience is "
                   "https://oauth2.googleapis.com/token")
    play.world(subscriptions={}, token={"status": 400, "error": "invalid_grant", "description": description})
    with play.client() as client, pytest.raises(gatekit.play.PlayAuthError) as refused:
        client.get_subscription("any")
    message = str(refused.value)
    assert description in message and "clock" not in message and "revoked" not in message
    play.world(subscriptions={}, token={"status": 400, "error": "invalid_grant",
                                        "description": "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe. Check your iat and exp values"})
    with play.client() as client, pytest.raises(gatekit.play.PlayAuthError, match="this host's clock wrong"):
        client.get_subscription("any")


def test_a_catalog_with_a_typo_warns_in_python_too(play, store):
    """Item 8: the report's warnings (a product nobody bought, likely a typo) are Python warnings."""
    start = datetime.datetime.now(UTC).replace(microsecond=0) - datetime.timedelta(days=1)
    from gatekit.testing import PlaySubscriptionLife
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", "typo-catalog", start=start)
    life.subscribe()
    store.ledger.ingest_play_subscription(play.s.package, life.purchase_token, json.dumps(life.resource()))
    with pytest.warns(CatalogWarning, match="which the catalog does not name"):
        store.ledger.declare_catalog({"products": {"pro.montly": {"type": "auto-renewable", "entitlements": ["pro"]}}})
    with warnings.catch_warnings():
        warnings.simplefilter("error", CatalogWarning)
        store.ledger.declare_catalog({"products": {"pro.monthly": {"type": "auto-renewable", "entitlements": ["pro"]}}})


def test_what_google_answered_is_a_play_api_error_from_the_ledger_too(play, store):
    """Item 1: a push for a token Google answers 410 about, and a sync whose voided list Google
    refuses, raise PlayAPIError with the status and Google's reason, as PlayClient's calls do
    (a host had to find "HTTP 410" in the message)."""
    from gatekit.play import PlayAPIError
    headers = {"Authorization": f"Bearer {play.push_token(claims(play))}"}
    gone = {"version": "1.0", "packageName": play.s.package, "eventTimeMillis": "1",
            "subscriptionNotification": {"version": "1.0", "notificationType": 2, "purchaseToken": "error-410-purchaseTokenNoLongerValid"}}
    play.world(subscriptions={})
    with play.client() as client, play.verifier() as verifier:
        with pytest.raises(PlayAPIError) as caught:
            store.ledger.ingest_play_push(verifier, client, headers, push_body(gone, "gone-1"))
        assert caught.value.http_status == 410 and caught.value.reason == "purchaseTokenNoLongerValid" and not caught.value.retryable
        play.world(faults=[{"request": 1, "status": 403, "reason": "permissionDenied"}])
        with pytest.raises(PlayAPIError) as caught:
            store.ledger.sync_play(client)
        assert caught.value.http_status == 403 and caught.value.reason == "permissionDenied"


def test_a_base_plans_entry_refines_its_subscriptions_never_hides_it(play, store):
    """Item 5: a catalog with {"pro.monthly": …, "pro.monthly:monthly": …}: a subscriber of the
    base plan is entitled to both entries' names, and the overlap is a warning."""
    from gatekit.testing import PlaySubscriptionLife
    start = datetime.datetime.now(UTC).replace(microsecond=0) - datetime.timedelta(days=1)
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", "overlap-1", start=start)
    life.subscribe()
    store.ledger.ingest_play_subscription(play.s.package, life.purchase_token, json.dumps(life.resource()))
    catalog = {"products": {"pro.monthly": {"type": "auto-renewable", "entitlements": ["pro"]},
                            "pro.monthly:monthly": {"entitlements": ["monthly-badge"]}}}
    with pytest.warns(CatalogWarning, match="grants both entries' names"):
        store.ledger.declare_catalog(catalog)
    for name in ("pro", "monthly-badge"):
        e = store.ledger.entitled("overlap-1", name, environment="Production")
        assert e.reason == gatekit.ledger.Reason.SUBSCRIPTION, name
    assert store.ledger.entitled("overlap-1", "pro", environment="Production").grants == ("monthly-badge", "pro")


def test_a_play_syncs_state_is_visible_by_the_name_its_report_prints(play, store, tmp_path):
    """Item 9: after a Play sync, its state is read by "play:<package>" from Python and the tool
    (and in C, ledger_sync_state), as the report names it; an unknown name is a clear error."""
    play.world(subscriptions={}, voided=[])
    with play.client() as client:
        report = store.ledger.sync_play(client)
    name = report.raw["state"]["environment"]
    assert name == f"play:{play.s.package}"
    state = store.ledger.sync_state(name)
    assert state["syncedUntil"] == report.raw["state"]["syncedUntil"] and state["syncedUntil"] is not None
    with pytest.raises(gatekit.errors.InvalidArgumentError, match="play:<package>"):
        store.ledger.sync_state("play-store")
    if store.path.endswith(".sqlite"):  # the tool names a store by its path
        tool = subprocess.run([TOOL, "--store", store.path, "ledger", "sync-state", "--environment", name],
                              capture_output=True, text=True, timeout=60)
        assert tool.returncode == 0 and json.loads(tool.stdout)["syncedUntil"] == state["syncedUntil"], tool.stderr


def test_keys_from_anywhere_but_google_make_test_data_unless_the_host_says_otherwise(play):
    """Item 15: a token under Google's issuer verified with keys from another URL is test data
    with the default issuer; naming Google's issuer is the host vouching for those keys."""
    google = "https://accounts.google.com"
    token = play.push_token(claims(play, iss=google))
    body = push_body(note(play), "custom-keys")
    with play.verifier(issuer=None) as verifier:
        assert verifier.verify_push({"Authorization": f"Bearer {token}"}, body).test_signed is True
    with play.verifier(issuer=google) as verifier:
        assert verifier.verify_push({"Authorization": f"Bearer {token}"}, body).test_signed is False


def test_a_subcommands_help_is_its_own_usage():
    """Item 16: `gatekit ledger metrics --help` prints the metrics usage (it printed ingest's first),
    with every split the tool takes."""
    done = subprocess.run([TOOL, "ledger", "metrics", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("usage: gatekit ledger metrics"), done.stdout[:200]
    assert "ingest" not in done.stdout and "|store]" in done.stdout


def test_metrics_read_like_a_mapping_of_series(store):
    """Item 16: Metrics has keys(), `in` and len() beside metrics[key], as a mapping does."""
    start = datetime.datetime(2026, 1, 1, tzinfo=UTC)
    metrics = store.ledger.metrics(environment="Production", start=start, end=start + datetime.timedelta(days=2), granularity="day", by="store")
    assert list(metrics.keys()) == [s.key for s in metrics.series] and len(metrics) == len(metrics.series)
    for key in metrics.keys():
        assert key in metrics and metrics[key].key == key
    assert "no-such-store" not in metrics


def test_googles_words_where_googles_data_is_meant_and_pythons_for_arguments(play):
    """Item 19: revoke_subscription takes Google's "fullRefund"/"proratedRefund" (the short words
    still read); external_account_ids takes Python's names and sends Google's."""
    from gatekit.testing import PlaySubscriptionLife
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", "words-1", start=datetime.datetime.now(UTC) - datetime.timedelta(days=1))
    life.subscribe()
    play.world(subscriptions={life.purchase_token: life.resource()})
    logged = len(play.log())
    with play.client() as client:
        client.acknowledge_subscription("pro.monthly", life.purchase_token, external_account_ids={"obfuscated_account_id": "a1",
                                                                                                  "obfuscated_profile_id": "p1"})
        client.revoke_subscription(life.purchase_token, "proratedRefund")
        client.revoke_subscription(life.purchase_token)
        with pytest.raises(ValueError, match="obfuscated_account_id"):
            client.acknowledge_subscription("pro.monthly", life.purchase_token, external_account_ids={"accountId": "a1"})
    bodies = [json.loads(e["body"]) for e in play.log()[logged:] if e.get("body")]
    assert bodies[0] == {"externalAccountIds": {"obfuscatedAccountId": "a1", "obfuscatedProfileId": "p1"}}
    assert bodies[1:] == [{"revocationContext": {"proratedRefund": {}}}, {"revocationContext": {"fullRefund": {}}}]


def test_a_customer_the_ledger_has_never_seen_is_said_apart(play, store):
    """Items 6 and 7: a token (or account) the ledger has never seen is unknown-customer, not
    no-purchase — for both stores; Play data asked in Sandbox (it lives in Production) says the
    same, so a wrong environment is not read as "bought nothing"."""
    from gatekit.ledger import Reason
    from gatekit.testing import PlaySubscriptionLife
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", "seen-1", start=datetime.datetime.now(UTC) - datetime.timedelta(days=1))
    life.subscribe()
    store.ledger.ingest_play_subscription(play.s.package, life.purchase_token, json.dumps(life.resource()))
    assert store.ledger.entitled("seen-1", "pro.monthly", environment="Production").reason == Reason.SUBSCRIPTION
    assert store.ledger.entitled("seen-1", "gems", environment="Production").reason == Reason.NO_PURCHASE, "known, bought nothing of it"
    assert store.ledger.entitled("never-seen", "pro.monthly", environment="Production").reason == Reason.UNKNOWN_CUSTOMER
    assert store.ledger.entitled("seen-1", "pro.monthly", environment="Sandbox").reason == Reason.UNKNOWN_CUSTOMER
    assert store.ledger.entitled("nobody", "pro.monthly", environment="Production", by_app_user=True).reason == Reason.UNKNOWN_CUSTOMER
    assert store.ledger.link("carol", "seen-1", environment="Production").name in ("LINKED", "TRANSFERRED")
    assert store.ledger.entitled("carol", "gems", environment="Production", by_app_user=True).reason == Reason.NO_PURCHASE
    assert gatekit.ledger.Entitlement.from_dict({"entitled": False, "reason": "unknown-customer"}).reason == Reason.UNKNOWN_CUSTOMER


def test_a_refused_ingest_creates_no_store(play, tmp_path):
    """Item 10: the documented pipe run offline — its first command fails, so the ingest reads
    nothing — and garbage on either store's ingest are refused with why, and leave no store
    behind; the next question still says "no store yet". Accepted data creates it."""
    from gatekit.testing import PlaySubscriptionLife
    path = tmp_path / "ledger.sqlite"
    ingest = [TOOL, "--store", str(path), "ledger", "ingest", "--store-kind", "play", "--type", "subscription",
              "--package", play.s.package, "--token", "pipe-1", "-"]
    offline = subprocess.run(["bash", "-c", f"set -o pipefail; {TOOL} play subscription pipe-1 --package {play.s.package} "
                              f"--service-account {tmp_path / 'absent.json'} | " + " ".join(ingest)],
                             capture_output=True, text=True, timeout=60)
    assert offline.returncode != 0 and "standard input is empty: did the command before the pipe fail?" in offline.stderr, offline.stderr
    garbage = subprocess.run(ingest, input="<html>Service Unavailable</html>", capture_output=True, text=True, timeout=60)
    assert garbage.returncode != 0 and "ledger ingest" in garbage.stderr, garbage.stderr
    apple = subprocess.run([TOOL, "--store", str(path), "ledger", "ingest", "--type", "transaction", "--bundle-id", "com.example.app",
                            "--environment", "Production", "-"], input="not.a.jws", capture_output=True, text=True, timeout=60)
    assert apple.returncode != 0, apple.stderr
    assert not path.exists() and list(tmp_path.iterdir()) == [], "a refused ingest created a store"
    asked = subprocess.run([TOOL, "--store", str(path), "ledger", "entitled", "--environment", "Production", "pipe-1", "pro"],
                           capture_output=True, text=True, timeout=60)
    assert "no store yet" in asked.stderr, asked.stderr
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", "pipe-1", start=datetime.datetime.now(UTC) - datetime.timedelta(days=1))
    life.subscribe()
    accepted = subprocess.run(ingest, input=json.dumps(life.resource()), capture_output=True, text=True, timeout=60)
    assert accepted.returncode == 0 and path.exists(), accepted.stderr
    assert json.loads(accepted.stdout)["outcome"] == "new", accepted.stdout


def v1_product(purchased: datetime.datetime, **changes: object) -> dict:
    """A purchases.products.get answer (the v1 ProductPurchase), as Google writes it."""
    answer = {"kind": "androidpublisher#productPurchase", "purchaseTimeMillis": str(int(purchased.timestamp() * 1000)),
              "purchaseState": 0, "consumptionState": 0, "orderId": "GPA.3333-4444-5555-66666", "acknowledgementState": 1,
              "regionCode": "US", "quantity": 1, "productId": "gems.lifetime"}
    answer.update(changes)
    return answer


def test_a_products_get_answer_is_read_as_its_productsv2_answer_would_be(play, store):
    """Item 20: what most apps' code already fetches — purchases.products.get, v1 — is accepted
    beside productsv2, for the product its request named: owned while purchased, nothing while
    pending, revoked when cancelled, gone once consumed, a license tester's as test data, and
    an answer about another product (or productsv2's, or a device's JSON) refused."""
    from gatekit.play import PlayResponseError
    from gatekit.ledger import Reason
    bought = datetime.datetime.now(UTC) - datetime.timedelta(days=2)
    play.world(products={"gems.lifetime/v1-1": v1_product(bought)})
    with play.client() as client:
        fetched = client.call("play_product_get", b"gems.lifetime", b"v1-1")
    assert fetched is not None and fetched["kind"] == "androidpublisher#productPurchase"
    result = store.ledger.ingest_play_product(play.s.package, "v1-1", fetched, product_id="gems.lifetime")
    assert result.outcome.name == "NEW" and result.kind == "play-product" and not result.test_signed
    owned = store.ledger.entitled("v1-1", "gems.lifetime", environment="Production")
    assert owned and owned.reason == Reason.NON_CONSUMABLE and owned.store_state == "PURCHASED"
    lives = {"v1-pending": ({"purchaseState": 2}, False, Reason.PENDING), "v1-cancelled": ({"purchaseState": 1}, False, Reason.REVOKED),
             "v1-consumed": ({"consumptionState": 1}, False, Reason.CONSUMABLE), "v1-no-id": ({"productId": None}, True, Reason.NON_CONSUMABLE)}
    for token, (changes, entitled, reason) in lives.items():
        answer = {k: v for k, v in v1_product(bought, **changes).items() if v is not None}
        store.ledger.ingest_play_product(play.s.package, token, answer, product_id="gems.lifetime")
        e = store.ledger.entitled(token, "gems.lifetime", environment="Production")
        assert bool(e) is entitled and e.reason == reason, (token, e)
    tester = store.ledger.ingest_play_product(play.s.package, "v1-tester", v1_product(bought, purchaseType=0), product_id="gems.lifetime")
    assert tester.test_signed is True
    assert store.ledger.entitled("v1-tester", "gems.lifetime", environment="Production").reason == Reason.ONLY_TEST_SIGNED
    assert store.ledger.entitled("v1-tester", "gems.lifetime", environment="Production", test_signed=True)
    with pytest.raises(PlayResponseError, match="names productId \"gems.lifetime\", not \"coins\""):
        store.ledger.ingest_play_product(play.s.package, "v1-other", v1_product(bought), product_id="coins")
    v2 = {"kind": "androidpublisher#productPurchaseV2", "productLineItem": [{"productId": "gems.lifetime"}],
          "purchaseStateContext": {"purchaseState": "PURCHASED"}}
    with pytest.raises(PlayResponseError, match="kind is \"androidpublisher#productPurchaseV2\""):
        store.ledger.ingest_play_product(play.s.package, "v1-v2", v2, product_id="gems.lifetime")
    with pytest.raises(PlayResponseError, match="has no kind"):
        store.ledger.ingest_play_product(play.s.package, "v1-device", {"orderId": "GPA.1", "productId": "gems.lifetime", "purchaseState": 0},
                                         product_id="gems.lifetime")
    if store.path.endswith(".sqlite"):  # the tool names a store by its path
        tool = subprocess.run([TOOL, "--store", store.path, "ledger", "ingest", "--store-kind", "play", "--type", "product", "--package",
                               play.s.package, "--token", "v1-tool", "--product-id", "gems.lifetime", "-"],
                              input=json.dumps(v1_product(bought)), capture_output=True, text=True, timeout=60)
        assert tool.returncode == 0 and json.loads(tool.stdout)["kind"] == "play-product", tool.stderr
        assert store.ledger.entitled("v1-tool", "gems.lifetime", environment="Production").reason == Reason.NON_CONSUMABLE


def test_voided_purchases_the_host_holds_are_recorded_as_the_syncs(play, store):
    """Item 20: a voidedpurchases.list answer the host fetched itself revokes the order it names,
    once (again: counted before), asking Google about the purchase as the sync does; a void of a
    token the ledger never saw changes nothing; a page that is not one is refused."""
    from gatekit.play import PlayResponseError
    from gatekit.ledger import Reason
    from gatekit.testing import PlaySubscriptionLife
    life = PlaySubscriptionLife(play.s.package, "pro.monthly", "held-void-1", start=datetime.datetime.now(UTC) - datetime.timedelta(days=1))
    life.subscribe()
    store.ledger.ingest_play_subscription(play.s.package, life.purchase_token, json.dumps(life.resource()),
                                          answered=life.start + datetime.timedelta(minutes=1))
    assert store.ledger.entitled("held-void-1", "pro.monthly", environment="Production")
    voided_at = datetime.datetime.now(UTC) - datetime.timedelta(hours=1)
    page = {"voidedPurchases": [
        {"kind": "androidpublisher#voidedPurchase", "purchaseToken": life.purchase_token, "orderId": life.order_id,
         "purchaseTimeMillis": str(int(life.start.timestamp() * 1000)), "voidedTimeMillis": str(int(voided_at.timestamp() * 1000)),
         "voidedSource": 1, "voidedReason": 0},
        {"kind": "androidpublisher#voidedPurchase", "purchaseToken": "never-ingested", "orderId": "GPA.9",
         "purchaseTimeMillis": "1", "voidedTimeMillis": str(int(voided_at.timestamp() * 1000)), "voidedSource": 1, "voidedReason": 0}]}
    play.world(subscriptions={life.purchase_token: life.resource()})
    asked = len(play.log())
    with play.client() as client:
        first = store.ledger.ingest_play_voided(client, json.dumps(page))
        again = store.ledger.ingest_play_voided(client, json.dumps(page).encode())
        with pytest.raises(PlayResponseError):
            store.ledger.ingest_play_voided(client, json.dumps({"voidedPurchases": "none"}))
    assert (first.voided, first.voided_before, first.voided_unknown) == (1, 0, 1)
    assert (again.voided, again.voided_before, again.voided_unknown) == (0, 1, 1)
    assert [e["path"].rsplit("/", 1)[-1] for e in play.log()[asked:] if "/subscriptionsv2/" in e.get("path", "")] == [life.purchase_token]
    e = store.ledger.entitled("held-void-1", "pro.monthly", environment="Production")
    assert not e and e.reason == Reason.REVOKED
    assert store.ledger.entitled("held-void-1", "pro.monthly", environment="Production", at=voided_at - datetime.timedelta(milliseconds=1))


def test_a_key_is_taken_as_google_s_libraries_take_it(play, tmp_path, monkeypatch):
    """Item 13: the key's contents (google-auth's from_service_account_info habit) and, when no
    key is named, the file GOOGLE_APPLICATION_CREDENTIALS names, checked as a key file is; both
    at once, none anywhere, or a key file others can read is an error that says what to set —
    and a key's contents are never quoted."""
    from gatekit.errors import InvalidArgumentError
    from gatekit.play import PlayClient, PlayKeyError
    key = json.loads(open(play.s.account).read())
    asked = dict(base_url=play.s.url, ca_file=play.s.ca)
    play.world(subscriptions={})
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    for info in (key, json.dumps(key), json.dumps(key).encode()):
        with PlayClient(play.s.package, service_account_info=info, **asked) as client:
            with pytest.raises(gatekit.play.PlayAPIError) as missing:
                client.get_subscription("no-such-token")
            assert missing.value.http_status == 404, "authenticated with the key's contents, then asked"
    with pytest.raises(InvalidArgumentError, match="GOOGLE_APPLICATION_CREDENTIALS"):
        PlayClient(play.s.package, **asked)
    with pytest.raises(InvalidArgumentError, match="both set"):
        PlayClient(play.s.package, play.s.account, service_account_info=key, **asked)
    secret = key["private_key"].splitlines()[1]
    with pytest.raises(PlayKeyError) as broken:
        PlayClient(play.s.package, service_account_info=dict(key, type="user"), **asked)
    assert secret not in str(broken.value)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", play.s.account)
    with PlayClient(play.s.package, **asked) as client:
        with pytest.raises(gatekit.play.PlayAPIError):
            client.get_subscription("no-such-token")
    tool = subprocess.run([TOOL, "play", "subscription", "no-such-token", "--package", play.s.package, "--base-url", play.s.url,
                           "--ca-file", play.s.ca], capture_output=True, text=True, timeout=60)
    assert "404" in tool.stderr and "service" not in tool.stderr, tool.stderr
    shared = tmp_path / "shared-key.json"
    shared.write_text(json.dumps(key))
    shared.chmod(0o644)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(shared))
    with pytest.raises(gatekit.errors.GateKitError, match="GOOGLE_APPLICATION_CREDENTIALS") as readable:
        PlayClient(play.s.package, **asked)
    assert secret not in str(readable.value)


def test_application_default_credentials_come_from_the_metadata_server(play, monkeypatch):
    """Item 13: no key at all (workload identity): the token is the machine's metadata server's,
    asked with Metadata-Flavor: Google for Play's scope at GCE_METADATA_HOST (here a loopback
    stand-in of it, over plain HTTP as the real one speaks); a host that is not the metadata
    server's is refused before anything is sent, a key beside it is a mistake, and a workload
    with no service account says so."""
    import http.server
    import threading
    import urllib.request
    from gatekit.errors import InvalidArgumentError
    from gatekit.play import PlayAuthError, PlayClient
    asked: list = []

    class Metadata(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append((self.path, self.headers.get("Metadata-Flavor")))
            if self.headers.get("Metadata-Flavor") != "Google" or not self.path.startswith("/computeMetadata/v1/instance/service-accounts/default/token"):
                self.send_response(403)
                self.end_headers()
                return
            if getattr(self.server, "no_account", False):
                self.send_response(404)
                self.end_headers()
                return
            minted = urllib.request.Request(play.s.url + "/standin/play/access-token", data=b"{}", method="POST",
                                            headers={"Authorization": f"Bearer {play.s.control}"})
            token = json.loads(urllib.request.urlopen(minted, context=play._tls, timeout=30).read())["access_token"]
            body = json.dumps({"access_token": token, "expires_in": 3599, "token_type": "Bearer"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Metadata-Flavor", "Google")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Metadata)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("GCE_METADATA_HOST", f"127.0.0.1:{server.server_address[1]}")
        monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
        play.world(subscriptions={})
        options = dict(base_url=play.s.url, ca_file=play.s.ca)
        with PlayClient(play.s.package, metadata_server=True, **options) as client:
            with pytest.raises(gatekit.play.PlayAPIError) as missing:
                client.get_subscription("no-such-token")
        assert missing.value.http_status == 404, "authenticated by the metadata server's token, then asked"
        assert asked == [("/computeMetadata/v1/instance/service-accounts/default/token?scopes=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fandroidpublisher",
                          "Google")]
        tool = subprocess.run([TOOL, "play", "subscription", "no-such-token", "--package", play.s.package, "--metadata-server",
                               "--base-url", play.s.url, "--ca-file", play.s.ca], capture_output=True, text=True, timeout=60)
        assert "404" in tool.stderr and len(asked) == 2, tool.stderr
        server.no_account = True  # type: ignore[attr-defined]
        with PlayClient(play.s.package, metadata_server=True, **options) as client, pytest.raises(PlayAuthError, match="service account attached"):
            client.get_subscription("no-such-token")
        with pytest.raises(InvalidArgumentError, match="takes no key"):
            PlayClient(play.s.package, play.s.account, metadata_server=True, **options)
        for elsewhere in ("metadata.example.com", "10.0.0.1:80", "127.0.0.1:99999"):
            monkeypatch.setenv("GCE_METADATA_HOST", elsewhere)
            with pytest.raises(InvalidArgumentError, match="plain HTTP"):
                PlayClient(play.s.package, metadata_server=True, **options)
    finally:
        server.shutdown()
        server.server_close()
