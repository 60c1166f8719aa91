"""Every result type as JSON (issue 25): ``to_dict()`` is the C library's JSON for the same
answer — compared here with what the tool, a C host, prints for the same store — and
``from_json(x.to_json())`` gives back an equal object."""
from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import gatekit
from gatekit.eula import EulaDecision
from gatekit.ledger import Entitlement, IngestResult, StatusChange
from gatekit.permissions import Category, Decision, PermissionChange, State
from gatekit.receipt import InAppPurchase
from gatekit.testing import TestPKI

from conftest import REPO_ROOT

TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", REPO_ROOT.parent / "shared" / "fixtures"))
BUNDLE = "com.example.app"
START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def tool(store: Path, *args) -> dict:
    done = subprocess.run([TOOL, "--store", str(store), *args], capture_output=True, timeout=60)
    assert done.returncode in (0, 3), done.stderr
    return json.loads(done.stdout)


def round_trips(value) -> None:
    again = type(value).from_json(value.to_json())
    assert again == value and again.to_dict() == value.to_dict()


def test_ledger_results_are_the_c_json(tmp_path: Path):
    pki = TestPKI.create(tmp_path / "pki")
    life = pki.subscription(bundleId=BUNDLE, productId="pro.monthly", subscriptionGroupIdentifier="pro",
                            originalTransactionId="1000", start=START, appAccountToken="0f8fad5b-d9cb-469f-a165-70867728950e")
    events = [life.subscribe(), life.renew(), life.fail_to_renew(grace=timedelta(days=5)), life.refund()]
    (tmp_path / "anchor.der").write_bytes(pki.anchor)
    python_store, tool_store = tmp_path / "py.sqlite", tmp_path / "tool.sqlite"
    with gatekit.Store(str(python_store), app_id=BUNDLE) as store:
        for i, signed in enumerate(events):
            result = store.ledger.ingest_notification(signed, pki.verifier(BUNDLE))
            (tmp_path / f"n{i}.jws").write_text(signed)
            printed = tool(tool_store, "ledger", "ingest", "--type", "notification", "--bundle-id", BUNDLE,
                           "--environment", "Sandbox", "--test-anchor", str(tmp_path / "anchor.der"), str(tmp_path / f"n{i}.jws"))
            assert result.to_dict() == printed
            round_trips(result)
            for change in result.status_changes:
                round_trips(change)
        assert any(result.status_changes for result in [store.ledger.ingest_notification(events[0], pki.verifier(BUNDLE))]) is False
        for day in (1, 20, 45, 60.5, 70):
            at = START + timedelta(days=day)
            for customer in ("1000", "0f8fad5b-d9cb-469f-a165-70867728950e", "nobody"):
                answer = store.ledger.entitled(customer, "pro", environment="Sandbox", at=at, test_signed=True)
                printed = tool(tool_store, "ledger", "entitled", "--environment", "Sandbox", "--test-signed",
                               "--at-ms", str(int(at.timestamp() * 1000)), customer, "pro")
                assert answer.to_dict() == printed
                round_trips(answer)
        plain = store.ledger.entitled("1000", "pro", environment="Sandbox", at=START + timedelta(days=1))
        assert plain.to_dict() == {"version": 1, "entitled": False, "reason": "only-test-signed"}
        round_trips(plain)


def test_eula_and_permission_history_are_the_c_json(tmp_path: Path):
    path = tmp_path / "s.sqlite"
    with gatekit.Store(str(path), app_id=BUNDLE) as store:
        store.eula.accept("terms", "a" * 64)
        store.eula.decline("terms", "b" * 64, user="ana")
        store.eula.accept("terms", "c" * 64, user=b"caf\xe9".decode("utf-8", "surrogateescape"))  # not UTF-8
        store.permissions.set_usage_description(Category.CAMERA, "Scan codes")
        store.permissions.record(Category.CAMERA, Decision.AUTHORIZED)
        store.permissions.reset(Category.CAMERA)
        decisions = store.eula.history_all()
        changes = store.permissions.history()
    assert [d.to_dict() for d in decisions] == tool(path, "eula", "history", "--all", "--json")["decisions"]
    assert [c.to_dict() for c in changes] == tool(path, "perm", "history", "--json")["changes"]
    assert decisions[2].to_dict()["user_hex"] == "636166e9"
    for value in (*decisions, *changes):
        round_trips(value)


def test_a_category_and_a_state_print_the_name_c_prints(tmp_path: Path):
    listed = tool(tmp_path / "s.sqlite", "perm", "list", "--json")["categories"]
    for entry in listed:
        if entry["category"] in Category._value2member_map_:
            assert str(Category(entry["category"])) == entry["name"]
    assert [str(s) for s in State] == [gatekit.permissions.state_name(int(s)) for s in State]
    assert str(State.DO_NOT_ASK) == "do-not-ask" and str(Category.LOCATION_ALWAYS) == "location-always"


def test_purchases_are_their_in_app_entries():
    folder = FIXTURES / "receipts" / "apple"
    if not folder.is_dir():
        pytest.skip(f"Apple's receipts not found at {folder} (set GATEKIT_FIXTURES)")
    expected = json.loads((FIXTURES / "expected" / "receipts.json").read_text())
    checked = 0
    for facts in expected["receipts"].values():
        if facts.get("environment") in (None, "Xcode") or not facts.get("in_app_count"):
            continue  # Xcode receipts need the StoreKit test certificate; no purchases, nothing to compare
        try:
            receipt = gatekit.receipt.validate_file(FIXTURES / facts["file"], facts["bundle_id"])
        except gatekit.GateKitError:
            continue  # a receipt Apple's own root no longer vouches for (the count below keeps this honest)
        entries = receipt.to_dict()["receipt"].get("in_app", [])
        assert len(entries) == len(receipt.purchases)
        for purchase, entry in zip(receipt.purchases, entries):
            mine = purchase.to_dict()
            assert {k: v for k, v in mine.items() if k != "product_type"}.items() <= entry.items()
            assert purchase.purchase_date is None or purchase.purchase_date.tzinfo is not None
            round_trips(purchase)
            checked += 1
    assert checked >= 10, checked
