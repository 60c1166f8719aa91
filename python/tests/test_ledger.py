"""The entitlement ledger through the Python package: customer lives built from Apple's
documented payload shapes and signed with a throw-away PKI, ingested in order, shuffled and
repeated; the answers must match the table in ledger_lives.py. Also: outcomes, environments
and test-signed data kept apart, Apple's status response shape, introductory offers, history,
receipts, and 8 processes ingesting one stream at once."""
from __future__ import annotations

import base64
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import gatekit
from gatekit.jws import SignatureError, SignedDataVerifier
from gatekit.ledger import Outcome, Reason, SubscriptionStatus

from conftest import child_env, example, example_env, utc
from ledger_lives import APP_APPLE_ID, BUNDLE, DAY, FIXTURES, MODELS, MONTH, T0, Expect, Life, all_items, build, model
from signing import CHAIN, PKI, pki  # noqa: F401  (pki is a fixture)


def ms_of(moment):
    """Unix milliseconds of an aware datetime (None stays None)."""
    return None if moment is None else gatekit._time.milliseconds(moment, "moment")

needs_models = pytest.mark.skipif(not MODELS.is_dir(), reason=f"App Store API models not found at {MODELS} (set GATEKIT_FIXTURES)")
pytestmark = needs_models

#: Orders the property test tries (each a fresh store; GATEKIT_LEDGER_ORDERS to change).
ORDERS = int(os.environ.get("GATEKIT_LEDGER_ORDERS", "24"))
#: The certificate-check time for ingestion: the generated certificates are valid from their
#: creation (after this module is imported) for 30 days, not on the lives' 2025 dates.
NOW_S = int(time.time()) + 120
NOW = utc(NOW_S)   # the certificate-check time of every ingestion


@pytest.fixture(scope="module", autouse=True)
def certificate_check_time(pki: PKI) -> None:
    """The certificate-check time, taken once this module's PKI exists (its certificates are
    valid from their making): taken at import, it would precede a PKI made minutes later in a
    long run."""
    global NOW_S, NOW
    NOW_S = int(time.time()) + 120
    NOW = utc(NOW_S)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """Where the many throw-away stores go: tmpfs when there is one (these tests are about
    answers, not durability, and fsync would dominate), removed afterwards."""
    import shutil
    import tempfile
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        folder = Path(tempfile.mkdtemp(prefix="gatekit-ledger-", dir=shm))
        yield folder
        shutil.rmtree(folder, ignore_errors=True)
    else:
        yield tmp_path_factory.mktemp("ledger-scratch")


@pytest.fixture(scope="module")
def lives(pki: PKI) -> Tuple[Dict[str, Life], List[Expect]]:
    return build(pki)


@pytest.fixture(scope="module")
def verifier(pki: PKI) -> SignedDataVerifier:
    return SignedDataVerifier(BUNDLE, "Sandbox", test_anchor=pki.der("root"))


def ingest(store: gatekit.Store, items: List[Tuple[str, str]], verifier: SignedDataVerifier) -> List[Any]:
    return [getattr(store.ledger, f"ingest_{kind}")(jws, verifier, verify_time=NOW) for kind, jws in items]


def answer(store: gatekit.Store, e: Expect) -> gatekit.Entitlement:
    return store.ledger.entitled(e.customer, e.subject, environment="Sandbox", at=utc(ms=e.at), test_signed=True)


def check_table(store: gatekit.Store, table: List[Expect]) -> None:
    for e in table:
        got = answer(store, e)
        assert got.reason.name.lower().replace("_", "-") == e.reason, (e, got)
        assert got.entitled == got.reason.entitles
        if e.until is not None:
            assert got.until is not None and int(got.until.timestamp() * 1000) == e.until, (e, got)
        if e.status is not None:
            assert got.status == SubscriptionStatus(e.status), (e, got)
        # The fast path agrees with the detailed answer.
        assert store.ledger.is_entitled(e.customer, e.subject, environment="Sandbox", at=utc(ms=e.at), test_signed=True) == got.entitled


def fingerprint(store: gatekit.Store, table: List[Expect], lives: Dict[str, Life]) -> str:
    """Everything a host can ask, at every instant of the table and now (history excluded: it
    records arrival order by design)."""
    parts: List[Any] = []
    for e in table:
        parts.append(answer(store, e))
        parts.append(store.ledger.active(e.customer, environment="Sandbox", at=utc(ms=e.at), test_signed=True))
        parts.append(store.ledger.subscription_status(e.customer, environment="Sandbox", at=utc(ms=e.at), test_signed=True))
        parts.append(store.ledger.intro_eligible(e.customer, "20000001", environment="Sandbox", at=utc(ms=e.at), test_signed=True))
    for life in lives.values():
        parts.append(store.ledger.subscription_status(life.original, environment="Sandbox", test_signed=True))
    return repr(parts)


def new_store(folder: Path, name: str) -> gatekit.Store:
    return gatekit.Store(folder / f"{name}.sqlite")


def test_every_life_in_order_matches_the_table(store, lives, verifier):
    life_map, table = lives
    results = ingest(store, all_items(life_map), verifier)
    assert all(r.outcome == Outcome.NEW for r in results[:3])
    check_table(store, table)


def test_shuffled_and_repeated_orders_give_the_same_answers(scratch, lives, verifier):
    """The property: any permutation of the same items, each any number of times, gives the same
    final state. Every order also matches the hand-written table."""
    life_map, table = lives
    items = all_items(life_map)
    with new_store(scratch, "reference") as reference:
        ingest(reference, items, verifier)
        expected = fingerprint(reference, table, life_map)
    rng = random.Random(20261123)
    for n in range(ORDERS):
        order = items + [rng.choice(items) for _ in range(rng.randrange(len(items)))]
        rng.shuffle(order)
        with new_store(scratch, f"order-{n}") as s:
            results = ingest(s, order, verifier)
            assert fingerprint(s, table, life_map) == expected, f"order {n} differs"
            # Every distinct item was recorded once; the repeats were duplicates.
            history = s.ledger.history(environment="Sandbox", test_signed=True)
            assert len(history["items"]) == len(set(jws for _, jws in items))
            assert sum(r.outcome == Outcome.DUPLICATE for r in results) == len(order) - len(history["items"])
            if n == 0:
                check_table(s, table)
    print(f"ledger property: {ORDERS} random orders of {len(items)} items with repeats gave identical answers")


def test_outcomes_new_duplicate_superseded(store, pki, verifier):
    life = Life(pki, "outcomes", original="9100")
    newer = life.tx("9101", "pro.monthly", T0, T0 + MONTH, signed=T0 + 5 * DAY)
    older = dict(newer, signedDate=T0 + DAY, expiresDate=T0 + 2 * MONTH)
    signed_newer, signed_older = life.pki.sign(newer, CHAIN), life.pki.sign(older, CHAIN)
    first = store.ledger.ingest_transaction(signed_newer, verifier, verify_time=NOW)
    assert first.outcome == Outcome.NEW and first.customer == "9100" and first.original_transaction_ids == ("9100",)
    assert first.status_changes and first.status_changes[0].new == SubscriptionStatus.EXPIRED  # 2025 is over
    assert store.ledger.ingest_transaction(signed_newer, verifier, verify_time=NOW).outcome == Outcome.DUPLICATE
    # A second signature over the same payload is the same item (the replay identity).
    resigned = life.pki.sign(newer, CHAIN)
    assert resigned != signed_newer
    assert store.ledger.ingest_transaction(resigned, verifier, verify_time=NOW).outcome == Outcome.DUPLICATE
    late = store.ledger.ingest_transaction(signed_older, verifier, verify_time=NOW)
    assert late.outcome == Outcome.SUPERSEDED
    # The newest signedDate wins, though the older version arrived last.
    e = store.ledger.entitled("9100", "pro.monthly", environment="Sandbox", at=utc(ms=T0 + 6 * DAY), test_signed=True)
    assert e.until is not None and int(e.until.timestamp() * 1000) == T0 + MONTH
    # A notification is deduplicated on its notificationUUID, even when re-signed differently.
    n = model("signedNotification")
    n.update(notificationType="TEST", signedDate=T0, data={"environment": "Sandbox", "bundleId": BUNDLE, "appAppleId": APP_APPLE_ID})
    assert store.ledger.ingest_notification(pki.sign(n, CHAIN), verifier, verify_time=NOW).outcome == Outcome.NEW
    n["signedDate"] = T0 + 1
    again = store.ledger.ingest_notification(pki.sign(n, CHAIN), verifier, verify_time=NOW)
    assert again.outcome == Outcome.DUPLICATE and again.notification_type == "TEST"


def test_a_batch_is_one_transaction_with_failures_in_place(store, pki, verifier):
    life = Life(pki, "batch", original="9500")
    t = NOW_S * 1000
    items = [pki.sign(life.tx(f"950{k}", "pro.monthly", t - (5 - k) * DAY, t + (k + 1) * DAY), CHAIN) for k in range(5)]
    forged = pki.sign(life.tx("9599", "pro.monthly", t, t + DAY), CHAIN, signer="other_root")
    results = store.ledger.ingest_batch("transaction", items + [forged, items[0]], verifier, verify_time=NOW)
    assert [r.outcome for r in results if isinstance(r, gatekit.ledger.IngestResult)] == [Outcome.NEW] * 5 + [Outcome.DUPLICATE]
    assert isinstance(results[5], SignatureError) and "signature" in str(results[5])
    e = store.ledger.entitled("9500", "pro.monthly", environment="Sandbox", test_signed=True)
    assert e.entitled and e.until is not None and int(e.until.timestamp() * 1000) == t + 5 * DAY
    with pytest.raises(ValueError):
        store.ledger.ingest_batch("receipt", items, verifier)


def test_unverifiable_data_is_never_ingested(store, pki, verifier):
    life = Life(pki, "forged", original="9200")
    tx = life.tx("9201", "pro.monthly", T0, T0 + MONTH)
    forged = pki.sign(tx, ["leaf", "int", "root"], signer="other_root")
    with pytest.raises(SignatureError):
        store.ledger.ingest_transaction(forged, verifier, verify_time=NOW)
    wrong_app = SignedDataVerifier("com.other", "Sandbox", test_anchor=pki.der("root"))
    with pytest.raises(gatekit.jws.IdentityError):
        store.ledger.ingest_transaction(pki.sign(tx, CHAIN), wrong_app, verify_time=NOW)
    history = store.ledger.history(environment="Sandbox", test_signed=True)
    assert history["items"] == [] and history["statusChanges"] == []


def test_environments_and_test_signed_data_are_kept_apart(store, pki, verifier):
    sandbox = Life(pki, "sandbox", original="9300")
    production = Life(pki, "production", original="9300", environment="Production")
    t = NOW_S * 1000
    store.ledger.ingest_transaction(pki.sign(sandbox.tx("9301", "pro.monthly", t - DAY, t + MONTH), CHAIN), verifier, verify_time=NOW)
    prod_verifier = SignedDataVerifier(BUNDLE, "Production", APP_APPLE_ID, test_anchor=pki.der("root"), test_production=True)
    store.ledger.ingest_transaction(pki.sign(production.tx("9302", "pro.yearly", t - DAY, t + 12 * MONTH), CHAIN), prod_verifier,
                                    verify_time=NOW)
    assert store.ledger.is_entitled("9300", "pro.monthly", environment="Sandbox", test_signed=True)
    assert not store.ledger.is_entitled("9300", "pro.yearly", environment="Sandbox", test_signed=True)
    assert store.ledger.is_entitled("9300", "pro.yearly", environment="Production", test_signed=True)
    # Test-signed data never answers a question about App Store data; the answer names it.
    e = store.ledger.entitled("9300", "pro.monthly", environment="Sandbox")
    assert not e and e.reason == Reason.ONLY_TEST_SIGNED
    assert not store.ledger.is_entitled("9300", "pro.yearly", environment="Production")


def test_status_response_has_apples_shape_and_numbers(store, pki, verifier):
    """Apple's documented getAllSubscriptionStatusesResponse: two groups, statuses 1 and 5 in
    the first, 2 in the second. The same situation built from signed data gives the same
    document shape and numbers, with the signed strings the statuses came from."""
    documented = json.loads((MODELS / "getAllSubscriptionStatusesResponse.json").read_text())
    token = "0d3c1e1a-0000-4000-8000-000000000001"
    t = NOW_S * 1000
    plan = {"3749183": ("sub_group_one", "active"), "5314314134": ("sub_group_one", "revoked"),
            "3413453": ("sub_group_two", "expired")}
    for original, (group, fate) in plan.items():
        life = Life(pki, f"apple-{original}", original=original, token=token, group=group)
        tx = life.tx(original + "1", f"{group}.product.{original}", t - 40 * DAY, t + 20 * DAY if fate != "expired" else t - 10 * DAY,
                     signed=t - 40 * DAY)
        life.notify("SUBSCRIBED", "INITIAL_BUY", t - 40 * DAY, tx=tx, renewal=life.renewal(t - 40 * DAY, tx["productId"]))
        if fate == "revoked":
            life.notify("REFUND", None, t - DAY, tx=dict(tx, signedDate=t - DAY, revocationDate=t - DAY, revocationReason=1))
        ingest(store, life.items, verifier)
    ours = store.ledger.subscription_status(token, environment="Sandbox", test_signed=True)
    assert [g["subscriptionGroupIdentifier"] for g in ours["data"]] == [g["subscriptionGroupIdentifier"] for g in documented["data"]]
    for mine, theirs in zip(ours["data"], documented["data"]):
        assert [(x["originalTransactionId"], x["status"]) for x in mine["lastTransactions"]] == \
            sorted((x["originalTransactionId"], x["status"]) for x in theirs["lastTransactions"])
        for x in mine["lastTransactions"]:
            assert set(theirs["lastTransactions"][0]) <= set(x)
            # The signed strings verify, and are the data the status was computed from.
            assert verifier.verify_transaction(x["signedTransactionInfo"], NOW).originalTransactionId == x["originalTransactionId"]
            assert verifier.verify_renewal_info(x["signedRenewalInfo"], NOW).originalTransactionId == x["originalTransactionId"]
    assert store.ledger.statuses(token, "sub_group_two", environment="Sandbox", test_signed=True) == {"3413453": SubscriptionStatus.EXPIRED}


def test_introductory_offer_eligibility(store, pki, verifier):
    token = "0d3c1e1a-0000-4000-8000-000000000002"
    life = Life(pki, "intro", original="9400", token=token, group="40000001")
    t = NOW_S * 1000
    assert store.ledger.intro_eligible(token, "40000001", environment="Sandbox", test_signed=True)
    tx = life.tx("9401", "intro.monthly", t - DAY, t + 6 * DAY, offerType=1, offerDiscountType="FREE_TRIAL")
    store.ledger.ingest_transaction(pki.sign(tx, CHAIN), verifier, verify_time=NOW)
    assert not store.ledger.intro_eligible(token, "40000001", environment="Sandbox", test_signed=True)
    assert store.ledger.intro_eligible(token, "40000002", environment="Sandbox", test_signed=True)
    # As of before the trial began, the customer was eligible.
    assert store.ledger.intro_eligible(token, "40000001", environment="Sandbox", at=utc(ms=t - 2 * DAY), test_signed=True)


def test_history_records_every_item_and_status_change(store, lives, verifier):
    life_map, _ = lives
    year = life_map["year"]
    ingest(store, year.items + life_map["quiet"].items, verifier)
    history = store.ledger.history(year.token, environment="Sandbox", test_signed=True)
    assert [i["kind"] for i in history["items"]] == ["notification"] * len(year.items)
    assert history["items"][0]["notificationType"] == "SUBSCRIBED" and history["items"][0]["payload"]["subtype"] == "INITIAL_BUY"
    assert all(i["originalTransactionIds"] == ["1000"] for i in history["items"])
    # 2025 is over: the first item made the subscription expired (as of now), the failed
    # renewal put it in billing retry (its grace period is over too), the recovery expired it.
    assert [(c["from"], c["to"]) for c in history["statusChanges"]] == [(None, 2), (2, 3), (3, 2)]
    everything = store.ledger.history(environment="Sandbox", test_signed=True)
    quiet = [i for i in everything["items"] if i["originalTransactionIds"] == []]
    assert sorted(i["notificationType"] for i in quiet) == ["CONSUMPTION_REQUEST", "RENEWAL_EXTENSION",
                                                            "SOMETHING_APPLE_ADDS_LATER", "TEST"]


def receipt_facts() -> Dict[str, Any]:
    return json.loads((FIXTURES / "expected" / "receipts.json").read_text())["receipts"]


@pytest.mark.skipif(not (FIXTURES / "receipts").is_dir(), reason=f"receipt fixtures not found at {FIXTURES}")
def test_receipt_purchases_become_transactions(store):
    f = receipt_facts()["tp__hist2020-InAppReceiptTests"]
    data = (FIXTURES / f["file"]).read_bytes()
    receipt = gatekit.receipt.validate(data, f["bundle_id"])
    result = store.ledger.ingest_receipt(data, f["bundle_id"])
    assert result.outcome == Outcome.NEW and result.kind == "receipt" and result.environment == "Sandbox"
    assert set(result.original_transaction_ids) == {p.original_transaction_id for p in receipt.purchases}
    assert store.ledger.ingest_receipt(data, f["bundle_id"]).outcome == Outcome.DUPLICATE
    assert receipt.creation_date is not None
    created = ms_of(receipt.creation_date)
    # From the receipt's creation on, the ledger entitles a customer (an original transaction
    # id) exactly when one of its purchases of the product covers the instant.
    checked = 0
    for p in receipt.purchases:
        for at in {created, created + DAY, max(created, (ms_of(p.expires_date) or created) - DAY)}:
            covering = any(q.product_id == p.product_id and q.original_transaction_id == p.original_transaction_id
                           and q.cancellation_date is None and (ms_of(q.purchase_date) or 0) <= at
                           and (q.expires_date is None or at < ms_of(q.expires_date)) for q in receipt.purchases)
            assert store.ledger.is_entitled(p.original_transaction_id, p.product_id, environment="Sandbox", at=utc(ms=at)) == covering
            checked += 1
    assert checked >= len(receipt.purchases)
    # Before the receipt was signed the ledger knew nothing of it (as-of answers): an unknown customer then.
    first = receipt.purchases[0]
    assert store.ledger.entitled(first.original_transaction_id, first.product_id, environment="Sandbox",
                                 at=utc(ms=created - 1)).reason == Reason.UNKNOWN_CUSTOMER
    history = store.ledger.history(environment="Sandbox")
    assert history["items"][0]["payload"]["receipt"]["bundle_id"] == f["bundle_id"]
    # Introductory offers from the receipt alone (as TPInAppReceipt does).
    products = {p.product_id for p in receipt.purchases}
    assert not receipt.intro_eligible(products)
    assert receipt.intro_eligible(["never.bought"])
    assert gatekit.receipt._intro_eligible(receipt.handle, None, 1) == -1  # NULL ids with a count: EINVAL


def test_eight_processes_ingesting_one_stream(tmp_path, scratch, lives, verifier, pki, store_location, open_store):
    """8 processes ingest the same items (each its own shuffled order, with repeats) into one
    store at once: the final state is the one a single process reaches, and every item is
    recorded exactly once."""
    life_map, table = lives
    items = all_items(life_map)
    stream = tmp_path / "stream.json"
    stream.write_text(json.dumps({"items": items, "anchor": pki.der("root").hex(), "now": NOW_S}))
    where, app_id = store_location("shared")
    import subprocess
    worker = Path(__file__).resolve().parent / "ledger_worker.py"
    procs = [subprocess.Popen([sys.executable, str(worker), where, app_id or "", str(stream), str(seed)], env=child_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for seed in range(8)]
    outcomes: Dict[str, int] = {}
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        for name, count in json.loads(out).items():
            outcomes[name] = outcomes.get(name, 0) + count
    distinct = len(set(jws for _, jws in items))
    with open_store("shared") as shared:
        history = shared.ledger.history(environment="Sandbox", test_signed=True)
        assert len(history["items"]) == distinct
        assert outcomes.get("NEW", 0) + outcomes.get("SUPERSEDED", 0) == distinct
        check_table(shared, table)
        with new_store(scratch, "single") as single:
            ingest(single, items, verifier)
            assert fingerprint(shared, table, life_map) == fingerprint(single, table, life_map)


def endpoint_example(*arguments: str) -> Tuple[Any, str]:
    """examples/notification_server.py started in its own process on a free port: the process
    and its notification URL."""
    import subprocess
    server = subprocess.Popen(example("notification_server.py") + [*arguments, "--port", "0"], env=example_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = server.stdout.readline() if server.stdout else ""
    if "/appstore/notifications" not in line:
        server.kill()
        pytest.fail(f"the example did not start: {server.stderr.read() if server.stderr else line}")
    return server, line.split()[-1]


def post_json(url: str, body: bytes) -> Tuple[int, Dict[str, Any]]:
    import urllib.error
    import urllib.request
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.example
def test_notification_endpoint_example_over_loopback(tmp_path, lives, pki):
    """examples/notification_server.py in its own process: signed notifications posted over
    loopback (shuffled, some twice) answer 200 once committed; the ledger then answers from
    them; forged and malformed bodies answer 400 and record nothing."""
    import subprocess
    import urllib.request
    life_map, table = lives
    anchor = tmp_path / "root.der"
    anchor.write_bytes(pki.der("root"))
    store_path = tmp_path / "endpoint.sqlite"
    server, url = endpoint_example("--bundle-id", BUNDLE, "--environment", "Sandbox", "--store", str(store_path),
                                   "--test-anchor", str(anchor), "--verify-time", str(NOW_S))
    try:
        base = url.rsplit("/appstore/", 1)[0]

        def post(body: bytes) -> Tuple[int, Dict[str, Any]]:
            return post_json(url, body)

        notifications = [jws for life in life_map.values() for kind, jws in life.items if kind == "notification"]
        order = notifications + notifications[:5]
        random.Random(7).shuffle(order)
        outcomes = [post(json.dumps({"signedPayload": jws}).encode()) for jws in order]
        assert all(status == 200 for status, _ in outcomes), [o for o in outcomes if o[0] != 200]
        assert sum(answer["outcome"] == "duplicate" for _, answer in outcomes) == 5
        forged = pki.sign({"notificationType": "TEST", "notificationUUID": "f", "signedDate": T0,
                           "data": {"environment": "Sandbox", "bundleId": BUNDLE}}, CHAIN, signer="other_root")
        status, answer = post(json.dumps({"signedPayload": forged}).encode())
        assert status == 400 and "signature" in answer["error"]
        assert post(b"not json")[0] == 400
        assert post(json.dumps({"signedPayload": 5}).encode())[0] == 400
        with urllib.request.urlopen(base + "/entitlements/" + "4000", timeout=30) as response:
            assert json.loads(response.read()) == {"customer": "4000", "entitlements": []}  # revoked
    finally:
        server.terminate()
        server.wait(timeout=30)
    # As its docstring shows it, without --store: GateKit's default store of the app (here in
    # a throw-away XDG_STATE_HOME), which it must create.
    state = tmp_path / "state"
    env = dict(example_env(), XDG_STATE_HOME=str(state))
    env.pop("GATEKIT_STORE", None)
    plain = subprocess.Popen(example("notification_server.py") + ["--bundle-id", BUNDLE, "--environment", "Sandbox", "--port", "0"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = plain.stdout.readline() if plain.stdout else ""
        assert "/appstore/notifications" in line, plain.stderr.read() if plain.stderr else line
        with urllib.request.urlopen(line.split()[-1].rsplit("/appstore/", 1)[0] + "/entitlements/4000", timeout=30) as response:
            assert json.loads(response.read()) == {"customer": "4000", "entitlements": []}
        assert (state / "gatekit" / f"{BUNDLE}.sqlite").is_file()
    finally:
        plain.terminate()
        plain.wait(timeout=30)
    # Everything that answered 200 is in the store, and the answers are the table's.
    with gatekit.Store(store_path) as s:
        history = s.ledger.history(environment="Sandbox", test_signed=True)
        assert len(history["items"]) == len(set(notifications))
        notified = {e for e in table if e.life != "tiers" and e.life != "extended"}  # lives that also use bare transactions
        check_table(s, sorted(notified, key=lambda e: (e.life, e.at)))


@pytest.mark.example
def test_one_endpoint_takes_both_environments_each_with_its_own_rules(tmp_path, pki):
    """examples/notification_server.py with --environment twice: a Sandbox and a Production
    notification at one URL, each verified with its environment's rules (Production's app Apple
    id), and kept apart; a Production notification for another app is refused."""
    import urllib.request
    anchor = tmp_path / "root.der"
    anchor.write_bytes(pki.der("root"))
    server, url = endpoint_example("--bundle-id", BUNDLE, "--environment", "Production", "--environment", "Sandbox",
                                   "--app-apple-id", str(APP_APPLE_ID), "--store", str(tmp_path / "both.sqlite"),
                                   "--test-anchor", str(anchor), "--test-production", "--verify-time", str(NOW_S))
    try:
        base = url.rsplit("/appstore/", 1)[0]

        def post(jws: str) -> Tuple[int, Dict[str, Any]]:
            return post_json(url, json.dumps({"signedPayload": jws}).encode())

        def entitlements(customer: str, query: str = "") -> Any:
            with urllib.request.urlopen(f"{base}/entitlements/{customer}{query}", timeout=30) as response:
                return [e["productId"] for e in json.loads(response.read())["entitlements"]]

        now = int(time.time() * 1000)
        for name, original, environment in (("sandbox", "8100", "Sandbox"), ("production", "8200", "Production")):
            life = Life(pki, name, original=original, environment=environment)
            life.notify("ONE_TIME_CHARGE", None, now - DAY, tx=life.tx(original, "lifetime." + name, now - DAY, type="Non-Consumable"))
            status, answer = post(life.items[-1][1])
            assert status == 200 and answer["outcome"] == "new", answer
        foreign = Life(pki, "foreign", original="8300", environment="Production")
        foreign.notify("ONE_TIME_CHARGE", None, now - DAY, tx=foreign.tx("8300", "lifetime.foreign", now - DAY, type="Non-Consumable"))
        payload = json.loads(base64.urlsafe_b64decode(foreign.items[-1][1].split(".")[1] + "=="))
        payload["data"]["appAppleId"] = APP_APPLE_ID + 1
        status, answer = post(pki.sign(payload, CHAIN))
        assert status == 400 and "appAppleId" in answer["error"], answer
        assert entitlements("8200") == ["lifetime.production"]                       # Production first
        assert entitlements("8100", "?environment=Sandbox") == ["lifetime.sandbox"]
        assert entitlements("8100") == [] and entitlements("8200", "?environment=Sandbox") == []  # kept apart
    finally:
        server.terminate()
        server.wait(timeout=30)


CATALOG = {"products": {"pro.monthly": {"type": "auto-renewable", "entitlements": ["pro"]},
                        "season.pass": {"type": "non-renewing", "term": "P30D", "entitlements": ["pro", "extras"]}}}


def test_the_catalog_names_entitlements_and_terms_over_time(store, pki, verifier):
    """store.ledger.declare_catalog: entitlement names answer questions, a non-renewing
    subscription ends after its term, and as-of answers keep the catalog of their instant."""
    monthly = Life(pki, "catalog-monthly", original="9700")
    store.ledger.ingest_transaction(pki.sign(monthly.tx("9701", "pro.monthly", T0, T0 + MONTH), CHAIN), verifier, verify_time=NOW)
    season = Life(pki, "catalog-season", original="9710")
    store.ledger.ingest_transaction(pki.sign(season.tx("9710", "season.pass", T0, type="Non-Renewing Subscription"), CHAIN),
                                    verifier, verify_time=NOW)
    ask = dict(environment="Sandbox", test_signed=True)
    assert store.ledger.catalog() == {"products": {}}
    before = store.ledger.entitled("9710", "season.pass", at=utc(ms=T0 + 40 * DAY), **ask)
    assert before.reason == Reason.NON_RENEWING and before.until is None  # no term known: no end, never "non-consumable"
    store.ledger.declare_catalog(CATALOG, effective=utc(ms=T0 - DAY), correction="the lives of 2025 predate this store")
    pro = store.ledger.entitled("9700", "pro", at=utc(ms=T0 + DAY), **ask)
    assert pro.reason == Reason.SUBSCRIPTION and pro.product_id == "pro.monthly" and pro.grants == ("pro",)
    extras = store.ledger.entitled("9710", "extras", at=utc(ms=T0 + DAY), **ask)
    assert extras.until is not None and ms_of(extras.until) == T0 + 30 * DAY
    assert store.ledger.entitled("9710", "extras", at=utc(ms=T0 + 31 * DAY), **ask).reason == Reason.EXPIRED
    assert [e.grants for e in store.ledger.active("9710", at=utc(ms=T0 + DAY), **ask)] == [("pro", "extras")]
    # A later catalog takes over from its instant; earlier answers keep the first.
    store.ledger.declare_catalog({"products": {"pro.monthly": {"entitlements": ["premium"]}}}, effective=utc(ms=T0 + 10 * DAY),
                                 correction="renamed in 2025")
    assert store.ledger.is_entitled("9700", "premium", at=utc(ms=T0 + 11 * DAY), **ask)
    assert not store.ledger.is_entitled("9700", "pro", at=utc(ms=T0 + 11 * DAY), **ask)
    assert store.ledger.is_entitled("9700", "pro", at=utc(ms=T0 + 9 * DAY), **ask)
    shown = store.ledger.catalog(at=utc(ms=T0 + 5 * DAY))
    assert shown["effective"] == T0 - DAY and shown["products"]["season.pass"]["term"] == "P30D"
    with pytest.raises(ValueError, match="term"):
        store.ledger.declare_catalog({"products": {"pro.monthly": {"term": "P1M"}}})
    assert store.ledger.catalog(at=utc(ms=T0 + 11 * DAY))["products"] == {"pro.monthly": {"entitlements": ["premium"]}}


def test_app_accounts_answer_for_their_customers_and_follow_transfers(store, pki, verifier):
    """store.ledger.link: questions by the host's own user id answer from every customer linked
    to it; a customer moves between app accounts (one at a time, kept in the link history);
    Apple's transfer (a transaction re-signed with another appAccountToken) leaves the account
    linked to the old token; as-of questions use the links of their instant."""
    from gatekit.ledger import LinkOutcome
    ask = dict(environment="Sandbox", test_signed=True, by_app_user=True)
    now = int(time.time() * 1000)
    old_token, new_token = "9a0e8c8b-2f0a-4b7e-9d8e-0000000000a1", "9a0e8c8b-2f0a-4b7e-9d8e-0000000000a2"
    sub = Life(pki, "account-sub", original="9800", token=old_token)
    monthly = sub.tx("9801", "pro.monthly", now - DAY, now + 29 * DAY)
    store.ledger.ingest_transaction(pki.sign(monthly, CHAIN), verifier, verify_time=NOW)
    lifetime = Life(pki, "account-lifetime", original="9900")
    store.ledger.ingest_transaction(pki.sign(lifetime.tx("9900", "lifetime", now - DAY, type="Non-Consumable"), CHAIN), verifier, verify_time=NOW)
    store.ledger.declare_catalog(CATALOG)

    assert store.ledger.link("alice", old_token, environment="Sandbox") == LinkOutcome.LINKED
    assert store.ledger.link("alice", old_token.upper(), environment="Sandbox") == LinkOutcome.UNCHANGED
    assert store.ledger.link("alice", "9900", environment="Sandbox") == LinkOutcome.LINKED
    assert store.ledger.is_entitled("alice", "pro", **ask)  # an entitlement name, by app account
    assert [e.product_id for e in store.ledger.active("alice", **ask)] == ["lifetime", "pro.monthly"]
    assert not store.ledger.intro_eligible("alice", "20000001", **ask)
    assert store.ledger.entitled("nobody", "pro", **ask).reason == Reason.UNKNOWN_CUSTOMER  # no customer linked

    linked_alone = int(time.time() * 1000)
    time.sleep(0.005)
    assert store.ledger.link("bob", "9900", environment="Sandbox") == LinkOutcome.TRANSFERRED
    assert [e.product_id for e in store.ledger.active("alice", **ask)] == ["pro.monthly"]
    assert [e.product_id for e in store.ledger.active("bob", **ask)] == ["lifetime"]
    links = store.ledger.links(environment="Sandbox", customer="9900")
    assert [l["appUserId"] for l in links["links"]] == ["bob"]
    assert [(c["appUserId"], c["linked"], c["cause"]) for c in links["changes"]] == \
        [("alice", True, None), ("alice", False, "transfer"), ("bob", True, None)]

    # Apple's transfer: the subscription re-signed with another token.
    store.ledger.ingest_transaction(pki.sign(dict(monthly, signedDate=now, appAccountToken=new_token), CHAIN), verifier, verify_time=NOW)
    assert not store.ledger.is_entitled("alice", "pro.monthly", **ask)
    assert store.ledger.link("carol", new_token, environment="Sandbox") == LinkOutcome.LINKED
    assert store.ledger.entitled("carol", "pro.monthly", **ask).transaction_id == "9801"
    history = store.ledger.history("carol", environment="Sandbox", test_signed=True, by_app_user=True)
    assert [i["originalTransactionIds"] for i in history["items"]] == [["9800"], ["9800"]]  # the restore shows both versions

    # As of an instant before bob took the lifetime purchase, alice held it.
    time.sleep(2.1)
    assert store.ledger.is_entitled("alice", "lifetime", at=utc(ms=linked_alone), **ask)
    assert not store.ledger.is_entitled("bob", "lifetime", at=utc(ms=linked_alone), **ask)
    assert store.ledger.links(environment="Sandbox", app_user_id="alice", at=utc(ms=linked_alone))["links"][-1]["customer"] == "9900"
    assert store.ledger.unlink("bob", "9900", environment="Sandbox") and not store.ledger.unlink("bob", "9900", environment="Sandbox")
    assert not store.ledger.is_entitled("bob", "lifetime", **ask)
    with pytest.raises(gatekit.InvalidArgumentError):
        store.ledger.link("", "9900", environment="Sandbox")
