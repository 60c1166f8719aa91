"""The second hour (issue 44): the mistakes a new user makes get an answer that says what to
do. Each test makes the mistake — as a user would, through the tool or the Python package —
and checks the answer: a typo'd catalog, an unknown name, the wrong store, test data in the
metrics, wrong Python types, signed data of the wrong kind, usage errors, one exit-code
contract, and the polish (enum names, prices in test data, MRR rounding)."""
from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Dict, List

import pytest

import gatekit
from gatekit import testing
from gatekit.jws import SignedDataVerifier
from gatekit.ledger import LinkOutcome, Reason

from conftest import REPO_ROOT

TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
TEST_DATA = REPO_ROOT / "examples" / "test-data"


@pytest.fixture
def env(tmp_path: Path) -> Dict[str, str]:
    """A fresh HOME: the default stores live under tmp_path/state."""
    e = {k: v for k, v in os.environ.items() if k != "GATEKIT_STORE"}
    e.update(HOME=str(tmp_path / "home"), XDG_STATE_HOME=str(tmp_path / "state"), TMPDIR=str(tmp_path))
    return e


def gk(env: Dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, *args], capture_output=True, text=True, env=env, timeout=60, input=stdin)


@pytest.fixture
def ledger_with_a_purchase(tmp_path: Path, env: Dict[str, str]) -> Path:
    """The README's flow: a test PKI, customer 1000's lifetime purchase ingested, the catalog
    declared. Returns the store."""
    store = tmp_path / "app.sqlite"
    assert gk(env, "test", "pki", str(tmp_path / "pki")).returncode == 0
    signed = gk(env, "test", "sign", "--pki", str(tmp_path / "pki"), "--kind", "transaction", str(TEST_DATA / "transaction.json"))
    assert signed.returncode == 0, signed.stderr
    (tmp_path / "lifetime.jws").write_text(signed.stdout)
    ingest = gk(env, "--store", str(store), "ledger", "ingest", "--type", "transaction", "--bundle-id", "com.example.app",
                "--environment", "Sandbox", "--test-anchor", str(tmp_path / "pki" / "root.der"), str(tmp_path / "lifetime.jws"))
    assert ingest.returncode == 0, ingest.stderr
    declared = gk(env, "--store", str(store), "ledger", "catalog", "declare", str(TEST_DATA / "catalog.json"))
    assert declared.returncode == 0 and declared.stderr == "", declared.stderr
    return store


def entitled(env: Dict[str, str], store: Path, name: str) -> subprocess.CompletedProcess:
    return gk(env, "--store", str(store), "ledger", "entitled", "--environment", "Sandbox", "--test-signed", "1000", name)


# ---- 1. a typo'd product id in a catalog -------------------------------------------------

def test_a_typoed_catalog_is_reported_and_checkable_before_it_bites(tmp_path: Path, env: Dict[str, str], ledger_with_a_purchase: Path):
    store = ledger_with_a_purchase
    assert entitled(env, store, "premium").returncode == 0
    typo = tmp_path / "typo.json"
    typo.write_text(json.dumps({"products": {"pro.lifetme": {"type": "non-consumable", "entitlements": ["premium"]}}}))
    # --check: the report, exit 3 because it warns, and nothing declared.
    check = gk(env, "--store", str(store), "ledger", "catalog", "declare", "--check", str(typo))
    assert check.returncode == 3, check.stderr
    report = json.loads(check.stdout)
    assert report["declared"] is False
    assert report["unseenProducts"] == [{"product": "pro.lifetme", "didYouMean": "pro.lifetime"}]
    assert report["unnamedProducts"] == ["pro.lifetime"]
    assert report["entitlementChanges"] == [{"product": "pro.lifetime", "gained": [], "lost": ["premium"]}]
    assert 'did you mean "pro.lifetime"' in check.stderr and check.stderr.count("warning:") == 3
    assert entitled(env, store, "premium").returncode == 0           # still entitled: nothing declared
    # Declared anyway: the same warnings on stderr, then the answer changes as they said.
    declared = gk(env, "--store", str(store), "ledger", "catalog", "declare", str(typo))
    assert declared.returncode == 0 and declared.stderr.count("warning:") == 3
    assert "no longer grants \"premium\"" in declared.stderr
    assert entitled(env, store, "premium").returncode == 3
    # A good catalog checks clean: exit 0, no warning.
    clean = gk(env, "--store", str(store), "ledger", "catalog", "declare", "--check", str(TEST_DATA / "catalog.json"))
    assert clean.returncode == 0 and clean.stderr == "" and json.loads(clean.stdout)["warnings"] == []


def store_with_a_purchase(tmp_path: Path, product: str) -> gatekit.Store:
    """A store holding one test-signed month of `product` from 2026-01-01 (customer "1")."""
    pki = testing.TestPKI.create(tmp_path / "pki")
    store = gatekit.Store(str(tmp_path / "s.sqlite"))
    t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    store.ledger.ingest_transaction(pki.transaction(bundleId="b", productId=product, transactionId="1", purchaseDate=t,
                                                    expiresDate=t + timedelta(days=30)), pki.verifier("b"))
    return store


def test_python_declare_catalog_returns_what_it_changes(tmp_path: Path):
    with store_with_a_purchase(tmp_path, "pro.monthly") as store:
        report = store.ledger.declare_catalog({"products": {"pro.montly": {"entitlements": ["pro"]}}}, check_only=True)
        assert isinstance(report, gatekit.ledger.CatalogReport) and not report.declared
        assert report.unseen_products == (("pro.montly", "pro.monthly"),) and report.unnamed_products == ("pro.monthly",)
        assert len(report.warnings) == 2 and store.ledger.catalog()["products"] == {}
        assert report.to_dict()["unseenProducts"] == [{"product": "pro.montly", "didYouMean": "pro.monthly"}]
        assert store.ledger.declare_catalog('{"products": {"pro.monthly": {"entitlements": ["pro"]}}}').warnings == ()
        with pytest.raises(ValueError, match="not JSON.*pass a dict"):
            store.ledger.declare_catalog("{products}")


# ---- 2. an unknown entitlement name ------------------------------------------------------

@pytest.mark.parametrize("name, nearest", [("premum", "premium"), ("Premium", "premium"), ("por", "pro"), ("zzzz", None)])
def test_an_unknown_name_is_not_a_non_customer(env: Dict[str, str], ledger_with_a_purchase: Path, name: str, nearest: str):
    done = entitled(env, ledger_with_a_purchase, name)
    assert done.returncode == 3
    answer = json.loads(done.stdout)
    assert answer["reason"] == "unknown-name" and answer.get("didYouMean") == nearest
    assert f'names no product, group or entitlement "{name}"' in done.stderr
    assert (f'did you mean "{nearest}"' in done.stderr) == (nearest is not None)
    # A customer the ledger has never seen, asking a real name, is an unknown customer (not a
    # typo, not one who bought nothing), without a word on stderr.
    other = gk(env, "--store", str(ledger_with_a_purchase), "ledger", "entitled", "--environment", "Sandbox", "--test-signed", "2000", "premium")
    assert other.returncode == 3 and json.loads(other.stdout)["reason"] == "unknown-customer" and other.stderr == ""


def test_python_names_the_unknown_reason(tmp_path: Path):
    with gatekit.Store(str(tmp_path / "s.sqlite")) as store:
        store.ledger.declare_catalog({"products": {"pro.monthly": {"entitlements": ["pro"]}}})
        e = store.ledger.entitled("1000", "Pro", environment="Sandbox")
        assert e.reason is Reason.UNKNOWN_NAME and e.did_you_mean == "pro" and not e
        assert str(e.reason) == "UNKNOWN_NAME" and f"{e.reason}" == "UNKNOWN_NAME"   # 13: names, not numbers
        assert e.to_dict() == {"version": 1, "entitled": False, "reason": "unknown-name", "didYouMean": "pro"}


# ---- 3. forgetting --app-id: a store that does not exist --------------------------------

def test_a_question_about_a_store_that_does_not_exist_says_so(tmp_path: Path, env: Dict[str, str]):
    done = gk(env, "--app-id", "fresh.two", "ledger", "entitled", "--environment", "Sandbox", "1000", "pro")
    assert done.returncode == 3 and done.stdout == ""
    assert "no store yet" in done.stderr and str(tmp_path / "state" / "gatekit" / "fresh.two.sqlite") in done.stderr
    follow = subprocess.run([TOOL, "--app-id", "fresh.two", "ledger", "changes", "--follow"], capture_output=True, text=True,
                            env=env, timeout=20)   # before: created the store and waited forever
    assert follow.returncode == 3 and "no store yet" in follow.stderr
    assert not (tmp_path / "state" / "gatekit").exists()
    # A catalog check creates nothing either: against no store, nothing to warn of (exit 0).
    check = gk(env, "--app-id", "fresh.two", "ledger", "catalog", "declare", "--check", str(TEST_DATA / "catalog.json"))
    assert check.returncode == 0 and json.loads(check.stdout)["declared"] is False, check.stderr
    assert not (tmp_path / "state" / "gatekit").exists()


# ---- 4. metrics of test data asked as App Store data -------------------------------------

def test_metrics_of_a_test_data_ledger_say_so(env: Dict[str, str], ledger_with_a_purchase: Path):
    args = ["--store", str(ledger_with_a_purchase), "ledger", "metrics", "--environment", "Sandbox", "--from", "2025-01-01", "--to", "2027-01-01"]
    done = gk(env, *args)
    assert done.returncode == 0 and json.loads(done.stdout)["onlyTestSigned"] is True
    assert "add --test-signed" in done.stderr
    test = gk(env, *args, "--test-signed")
    assert "onlyTestSigned" not in json.loads(test.stdout) and test.stderr == ""
    report = gk(env, "--store", str(ledger_with_a_purchase), "ledger", "report", "--environment", "Sandbox", "--from", "2025-01-01",
                "--to", "2027-01-01")
    assert "is test data (test-signed, or a license tester's), and this page shows the stores' real purchases only" in report.stdout


def test_python_metrics_say_only_test_signed(tmp_path: Path):
    with store_with_a_purchase(tmp_path, "p") as store:
        start, end = datetime(2025, 12, 1, tzinfo=timezone.utc), datetime(2026, 3, 1, tzinfo=timezone.utc)
        assert store.ledger.metrics(environment="Sandbox", start=start, end=end).only_test_signed is True
        assert store.ledger.metrics(environment="Sandbox", start=start, end=end, test_signed=True).only_test_signed is False


# ---- 5. Python errors for wrong types say what to do -------------------------------------

def test_python_type_mistakes_are_named(tmp_path: Path):
    pki = testing.TestPKI.create(tmp_path / "pki")
    t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    payload = pki.notification("SUBSCRIBED", bundleId="b", signedTransactionInfo=pki.transaction(
        bundleId="b", productId="p", transactionId="1", purchaseDate=t, expiresDate=t + timedelta(days=30)))
    with gatekit.Store(str(tmp_path / "s.sqlite")) as store:
        with pytest.raises(TypeError, match="verifier must be a SignedDataVerifier.*not NoneType"):
            store.ledger.ingest_notification(payload, None)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="verifier must be a SignedDataVerifier.*not str"):
            store.ledger.ingest_transaction(payload, "b")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"pass body\['signedPayload'\]"):
            store.ledger.ingest_notification({"signedPayload": payload}, pki.verifier("b"))  # type: ignore[arg-type]
        # The raw POST body as text: recognised by the library, in C and the tool too.
        with pytest.raises(gatekit.GateKitError, match='"signedPayload" member'):
            store.ledger.ingest_notification(json.dumps({"signedPayload": payload}), pki.verifier("b"))
        with pytest.raises(TypeError, match="environment is required"):
            store.ledger.entitled("1", "p", environment=None)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="app_user_id is required"):
            store.ledger.link(None, "1", environment="Sandbox")  # type: ignore[arg-type]
        assert store.ledger.ingest_notification(payload, pki.verifier("b")).outcome.name == "NEW"
    # A test anchor as Apple's users pass it: a path, PEM text or bytes, or DER.
    der = (tmp_path / "pki" / "root.der").read_bytes()
    pem_path = tmp_path / "root.pem"
    subprocess.run(["openssl", "x509", "-inform", "DER", "-in", str(tmp_path / "pki" / "root.der"), "-out", str(pem_path)], check=True)
    for anchor in [str(tmp_path / "pki" / "root.der"), tmp_path / "pki" / "root.der", pem_path.read_text(), pem_path.read_bytes(), der]:
        assert SignedDataVerifier("b", "Sandbox", test_anchor=anchor).test_anchor == der, type(anchor)
    with pytest.raises(ValueError, match="test_anchor: .*cannot be read"):
        SignedDataVerifier("b", "Sandbox", test_anchor="pki/missing.der")


# ---- 6. signed data of the wrong kind names the kind -------------------------------------

def test_signed_data_of_the_wrong_kind_names_the_kind(tmp_path: Path, env: Dict[str, str]):
    pki = testing.TestPKI.create(tmp_path / "pki")
    t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    notification = pki.notification("SUBSCRIBED", bundleId="com.example.app", signedTransactionInfo=pki.transaction(
        bundleId="com.example.app", productId="p", transactionId="1", purchaseDate=t, expiresDate=t + timedelta(days=30)))
    (tmp_path / "n.jws").write_text(notification)
    for kind in ["transaction", "renewal-info"]:
        done = gk(env, "--store", str(tmp_path / "s.sqlite"), "ledger", "ingest", "--type", kind, "--bundle-id", "com.example.app",
                  "--environment", "Sandbox", "--test-anchor", str(tmp_path / "pki" / "root.der"), str(tmp_path / "n.jws"))
        assert done.returncode == 10, done.stderr
        assert "this is a notification (notification), not a" in done.stderr, done.stderr
        assert "bundle id" not in done.stderr and "environment" not in json.loads(done.stdout)["detail"]


# ---- 7. every usage error names its reason before the usage ------------------------------

@pytest.mark.parametrize("args, reason", [
    (["eula", "accept", "--doc", "tos", "--user", "u1"], "missing --hash H or --file PATH"),
    (["ledger", "entitle"], "unknown subcommand entitle (did you mean entitled?)"),
    (["eula", "acept"], "unknown subcommand acept (did you mean accept?)"),
    (["ledger"], "missing the subcommand"),
    (["ledger", "link", "--environment", "Sandbox", "alice"], "missing CUSTOMER"),
    (["ledger", "catalog", "--environment", "Sandbox"], "--environment does not apply"),
    (["ledger", "changes", "extra"], "unexpected argument extra"),
    (["ledger", "entitled", "--environment", "Sandbox", "--follow", "1", "p"], "--follow is for ledger changes"),
    (["ledger", "metrics", "--environment", "Sandbox", "--from", "2025-01-01", "--to", "2025-02-01", "--customer", "c"], "--customer is for ledger report"),
    (["perm", "record", "camera", "maybe"], "the decision is ask-later"),
    (["receipt", "inspect"], "takes one FILE"),
    (["appstore", "token", "--key-id", "K"], "missing --key FILE"),
    (["jws", "verify", "--type", "transaction", "--bundle-id", "", "--environment", "Sandbox", "f"], "--bundle-id is empty"),
    (["jws", "verify", "--type", "transaction", "--bundle-id=", "--environment", "Sandbox", "f"], "--bundle-id= is empty"),
    (["help", "ledgr"], "unknown command ledgr (did you mean ledger?)"),
    (["ledger", "ingest", "--type", "renewal", "--bundle-id", "b", "--environment", "Sandbox", "f"],
     "--type renewal is not notification, transaction, renewal-info, app-transaction or receipt"),
    (["jws", "verify", "--type", "renewal", "--bundle-id", "b", "--environment", "Sandbox", "f"], "(did you mean renewal-info?)"),
    (["ledgr"], "unknown command ledgr (did you mean ledger?)"),
])
def test_every_usage_error_names_its_reason_first(env: Dict[str, str], args: List[str], reason: str):
    done = gk(env, *args)
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert reason in lines[0], lines[:3]
    assert done.stdout == ""


def test_usage_after_a_mistake_is_the_subcommands_alone(env: Dict[str, str]):
    done = gk(env, "eula", "accept", "--doc", "tos")
    usage = done.stderr.split("usage:", 1)[1]
    assert "accept  --doc ID" in usage and "withdraw" not in usage and len(usage.splitlines()) < 8, usage
    done = gk(env, "ledger", "link", "--environment", "Sandbox")
    usage = done.stderr.split("usage:", 1)[1]
    assert "gatekit ledger link" in usage and "gatekit ledger unlink" in usage and "ledger sync" not in usage
    full = gk(env, "help", "ledger").stdout
    assert len(usage.splitlines()) * 4 < len(full.splitlines())


def test_eula_accept_takes_the_published_version(tmp_path: Path, env: Dict[str, str]):
    (tmp_path / "en.txt").write_text("Terms\n")
    (tmp_path / "de.txt").write_text("Bedingungen\n")
    store = ["--store", str(tmp_path / "s.sqlite")]
    assert gk(env, *store, "eula", "publish", "--doc", "tos", "--label", "v1", "--text", f"en={tmp_path / 'en.txt'}",
              "--text", f"de={tmp_path / 'de.txt'}").returncode == 0
    assert gk(env, *store, "eula", "status", "--doc", "tos", "--user", "u1", "--language", "de").returncode == 3
    accepted = gk(env, *store, "eula", "accept", "--doc", "tos", "--user", "u1", "--language", "de")
    assert accepted.returncode == 0, accepted.stderr
    import hashlib
    assert hashlib.sha256(b"Bedingungen\n").hexdigest() in accepted.stdout
    assert gk(env, *store, "eula", "status", "--doc", "tos", "--user", "u1").returncode == 0


# ---- 8. one exit-code contract ------------------------------------------------------------

def test_production_without_an_app_apple_id_is_a_usage_error_everywhere(tmp_path: Path, env: Dict[str, str]):
    (tmp_path / "x.jws").write_text("a.b.c")
    common = ["--bundle-id", "b", "--environment", "Production"]
    for args in (["ledger", "ingest", "--type", "transaction", *common, str(tmp_path / "x.jws")],
                 ["ledger", "sync", "--key", "k.p8", "--key-id", "K", "--issuer-id", "I", *common],
                 ["jws", "verify", "--type", "transaction", *common, str(tmp_path / "x.jws")]):
        done = gk(env, "--store", str(tmp_path / "s.sqlite"), *args)
        assert done.returncode == 2 and "--app-apple-id" in done.stderr.splitlines()[0], (args, done.returncode, done.stderr)
        assert done.stdout == ""


def test_exit_1_is_never_json(tmp_path: Path, env: Dict[str, str]):
    verify = ["jws", "verify", "--type", "transaction", "--bundle-id", "b", "--environment", "Sandbox"]
    done = gk(env, *verify, str(tmp_path / "missing.jws"))
    assert done.returncode == 1 and done.stdout == "" and "missing.jws" in done.stderr
    # Too large is no verdict on the data (it printed {"status":null,"code":-1,…} with exit 1).
    (tmp_path / "big.jws").write_text("a" * (2 << 20))
    done = gk(env, *verify, str(tmp_path / "big.jws"))
    assert done.returncode == 1 and done.stdout == "" and "too large" in done.stderr
    (tmp_path / "empty.der").write_bytes(b"")
    done = gk(env, *verify, "--test-anchor", str(tmp_path / "empty.der"), str(tmp_path / "big.jws"))
    assert done.returncode == 2 and done.stdout == "" and "--test-anchor" in done.stderr and "->" not in done.stderr
    # A refusal of the data stays JSON on stdout (exit 10-12).
    (tmp_path / "two.jws").write_text("a.b")
    done = gk(env, *verify, str(tmp_path / "two.jws"))
    assert done.returncode == 10 and json.loads(done.stdout)["code"] == -300


# ---- 12, 13: prices in test data, names for enums, no doubled prefix ----------------------

def test_test_subscriptions_carry_a_price_into_the_metrics(tmp_path: Path):
    pki = testing.TestPKI.create(tmp_path / "pki")
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    life = pki.subscription(bundleId="b", productId="pro.monthly", subscriptionGroupIdentifier="g", originalTransactionId="1",
                            start=start, period=timedelta(days=31), price=9990, currency="USD")
    with gatekit.Store(str(tmp_path / "s.sqlite")) as store:
        store.ledger.ingest_notification(life.subscribe(), pki.verifier("b"))
        m = store.ledger.metrics(environment="Sandbox", start=start, end=start + timedelta(days=20), granularity="day",
                                 test_signed=True)
        assert m[None].revenue["USD"][0] == 9990
        assert m[None].mrr["USD"][0] == 9809   # 9990 × 30.436875 / 31 = 9808.53: to the nearest milliunit
    with pytest.raises(ValueError, match="price and currency go together"):
        pki.subscription(bundleId="b", productId="p", subscriptionGroupIdentifier="g", originalTransactionId="2", start=start, price=1)


def test_enums_print_their_names(tmp_path: Path):
    with gatekit.Store(str(tmp_path / "s.sqlite")) as store:
        outcome = store.ledger.link("alice", "1000", environment="Sandbox")
        assert outcome is LinkOutcome.LINKED and str(outcome) == "LINKED" and f"{outcome:>8}" == "  LINKED"
        assert outcome == 1   # still the header's number
    assert str(Reason.ONLY_TEST_SIGNED) == "ONLY_TEST_SIGNED" and str(gatekit.ledger.SubscriptionStatus.EXPIRED) == "EXPIRED"


def test_messages_carry_one_prefix(tmp_path: Path, env: Dict[str, str]):
    bad = tmp_path / "bad.json"
    bad.write_text('{"products": {"p": {"type": "subscription"}}}')
    done = gk(env, "--store", str(tmp_path / "s.sqlite"), "ledger", "catalog", "declare", str(bad))
    assert done.returncode == 2 and done.stderr.startswith("gatekit ledger catalog declare: ") and "gatekit: gatekit" not in done.stderr
    export = gk(env, "--store", str(tmp_path / "s.sqlite"), "eula", "accept", "--doc", "tos", "--hash", "a" * 64)
    assert export.returncode == 0
    one = gk(env, "--store", str(tmp_path / "s.sqlite"), "eula", "export", "--all", "--output", str(tmp_path / "out.jsonl"))
    assert one.stdout.startswith("eula export: 1 decision written")
    header = json.loads((tmp_path / "out.jsonl").read_text().splitlines()[0])
    assert header["decision"] == "every user's decisions"
