"""Receipts through Python: every fixture against its facts, typed objects, errors with codes,
truncations, forged receipts generated at test time with the openssl CLI."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Dict, Optional

import pytest

import gatekit
from gatekit import receipt as R

from conftest import REPO_ROOT, example, example_env, utc

FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", REPO_ROOT.parent / "shared" / "fixtures"))
needs_fixtures = pytest.mark.skipif(not (FIXTURES / "expected" / "receipts.json").exists(),
                                    reason=f"no fixtures at {FIXTURES} (set GATEKIT_FIXTURES)")


def facts() -> Dict[str, dict]:
    return json.loads((FIXTURES / "expected" / "receipts.json").read_text())["receipts"]


def storekit_cert() -> bytes:
    return (FIXTURES / "certs" / "StoreKitTestCertificate.cer").read_bytes()


def ms(text: Optional[str]) -> Optional[int]:
    if not text:
        return None
    for fmt in ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S%z"):
        try:
            parsed = datetime.strptime(text, fmt)
        except ValueError:
            continue
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        return int(parsed.timestamp()) * 1000
    raise ValueError(text)


def validate_fixture(name: str, f: dict, **kwargs) -> R.Receipt:
    data = (FIXTURES / f["file"]).read_bytes()
    if f["environment"] == "Xcode":
        kwargs.setdefault("test_anchor", storekit_cert())
    return R.validate(data, f["bundle_id"], **kwargs)


def when(text: Optional[str]) -> Optional[datetime]:
    """The fixture's date as the aware UTC datetime the package returns."""
    value = ms(text)
    return None if value is None else datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=value)


def none_if_empty(value):
    return None if value == "" else value


@needs_fixtures
@pytest.mark.parametrize("name", sorted(json.loads((FIXTURES / "expected" / "receipts.json").read_text())["receipts"])
                         if (FIXTURES / "expected" / "receipts.json").exists() else [])
def test_fixture_matches_its_facts(name: str):
    f = facts()[name]
    r = validate_fixture(name, f)
    a = f["attributes"]
    assert r.environment == f["environment"]
    assert r.bundle_id == f["bundle_id"]
    assert r.app_version == f["app_version"]
    assert r.original_app_version == f["original_app_version"]
    assert r.creation_date == when(f["creation_date"])
    assert r.expiration_date == when(f["expiration_date"])
    assert r.app_item_id == a.get("1")
    assert r.download_id == a.get("15")
    assert r.version_external_identifier == a.get("16")
    assert r.age_rating == none_if_empty(a.get("10"))
    assert r.original_purchase_date == when(a.get("18"))
    assert r.opaque_value == base64.b64decode(f["opaque_b64"])
    assert r.sha1_hash == base64.b64decode(f["sha1_hash_b64"])
    assert r.is_test_signed == (f["environment"] == "Xcode")
    assert len(r.purchases) == f["in_app_count"] == len(f["in_app"])
    for p, e in zip(r.purchases, f["in_app"]):
        assert p.quantity == e.get("1701")
        assert p.product_id == none_if_empty(e.get("1702"))
        assert p.transaction_id == none_if_empty(e.get("1703"))
        assert p.purchase_date == when(e.get("1704"))
        assert p.original_transaction_id == none_if_empty(e.get("1705"))
        assert p.original_purchase_date == when(e.get("1706"))
        assert p.product_type == (None if e.get("1707") is None else R.ReceiptProductType(e["1707"]))
        assert p.expires_date == when(e.get("1708"))
        assert p.web_order_line_item_id == e.get("1711")
        assert p.cancellation_date == when(e.get("1712"))
        assert p.is_trial_period == (None if "1713" not in e else bool(e["1713"]))
        assert p.is_in_intro_offer_period == (None if "1719" not in e else bool(e["1719"]))
        assert p.promotional_offer_id == none_if_empty(e.get("1721"))
    body = r.to_dict()
    assert body["status"] == 0
    assert body["receipt"]["bundle_id"] == f["bundle_id"]
    assert len(body["receipt"]["in_app"]) == f["in_app_count"]
    if f["environment"] != "Xcode":
        with pytest.raises(R.UntrustedReceiptError) as refused:
            validate_fixture(name, f, verify_time=datetime.now(timezone.utc))
        assert refused.value.code == R.ERECEIPT_CERT_TIME and refused.value.apple_status == 21003
    else:
        with pytest.raises(R.UntrustedReceiptError) as refused:
            validate_fixture(name, f, test_anchor=None)
        assert refused.value.code == R.ERECEIPT_XCODE


@needs_fixtures
def test_device_hash_pairs():
    checked = 0
    for name, f in facts().items():
        if not f.get("device_id_hex"):
            continue
        device = bytes.fromhex(f["device_id_hex"])
        if f["device_hash_matches"]:
            validate_fixture(name, f, device_id=device)
            checked += 1
        with pytest.raises(R.UntrustedReceiptError) as wrong:
            validate_fixture(name, f, device_id=bytes(len(device)))
        assert wrong.value.code == R.ERECEIPT_DEVICE_HASH
    assert checked >= 4
    g5 = facts()["tp__receipt-sandbox-g5"]
    validate_fixture("g5", g5, device_id="956328D9-CC6A-47F4-BE40-6953FB0AB6C7")


@needs_fixtures
def test_base64_text_entitlements_and_json():
    data = (FIXTURES / "receipts/apple/tp__receipt-sandbox-g5.der").read_bytes()
    r = R.validate(base64.encodebytes(data).decode("ascii"), "dev.bonzer.weeka.app")
    product = "dev.bonzer.weeka.app.subscription.pro.annual"
    assert r.is_sandbox
    assert r.is_entitled(product, utc(ms=1766771000000))
    assert r.is_entitled(product, datetime(2025, 12, 26, 18, 33, tzinfo=timezone.utc))
    assert not r.is_entitled(product, utc(ms=1766776000000))
    assert not r.is_entitled(product)  # now: long expired
    assert r.active_products(utc(ms=1766771000000)) == [product]
    assert r.active_products(utc(ms=1766776000000)) == []
    body = r.to_dict()
    assert body["environment"] == "Sandbox"
    receipt = body["receipt"]
    assert receipt["receipt_creation_date"] == "2025-12-26 18:39:47 Etc/GMT"
    assert receipt["receipt_creation_date_ms"] == "1766774387000"
    assert receipt["receipt_creation_date_pst"] == "2025-12-26 10:39:47 America/Los_Angeles"
    assert receipt["adam_id"] == 0 and receipt["download_id"] == 0
    first = receipt["in_app"][0]
    assert first["quantity"] == "1" and first["is_trial_period"] == "false"
    assert first["web_order_line_item_id"] == "2000000123357229"
    assert "cancellation_date" not in first
    assert R.inspect(data)["validated"] is False


@needs_fixtures
def test_pacific_time_follows_daylight_saving():
    r = validate_fixture("watch", facts()["tp__receipt-watch"])  # created 2020-09-21 (PDT)
    assert r.to_dict()["receipt"]["receipt_creation_date_pst"] == "2020-09-20 22:35:19 America/Los_Angeles"
    sandbox = validate_fixture("hist2019b", facts()["tp__hist2019b-InAppReceiptTests"])
    # original_purchase_date 2013-08-01T07:00:00Z is midnight PDT
    assert sandbox.to_dict()["receipt"]["original_purchase_date_pst"] == "2013-08-01 00:00:00 America/Los_Angeles"


@needs_fixtures
def test_environment_and_requirements():
    f = facts()
    with pytest.raises(R.WrongEnvironmentError) as e:
        validate_fixture("g5", f["tp__receipt-sandbox-g5"], production_only=True)
    assert e.value.code == R.ERECEIPT_SANDBOX and e.value.apple_status == 21007
    with pytest.raises(R.WrongEnvironmentError) as e:
        validate_fixture("watch", f["tp__receipt-watch"], sandbox_only=True)
    assert e.value.code == R.ERECEIPT_PRODUCTION and e.value.apple_status == 21008
    with pytest.raises(R.UntrustedReceiptError) as e:
        validate_fixture("watch", f["tp__receipt-watch"], require_sha256=True)
    assert e.value.code == R.ERECEIPT_WEAK_DIGEST
    validate_fixture("g5", f["tp__receipt-sandbox-g5"], require_sha256=True)
    with pytest.raises(R.UntrustedReceiptError) as e:
        validate_fixture("g5", f["tp__receipt-sandbox-g5"], app_version="3")
    assert e.value.code == R.ERECEIPT_APP_VERSION
    with pytest.raises(gatekit.InvalidArgumentError):
        validate_fixture("g5", f["tp__receipt-sandbox-g5"], device_id=b"12345")


@needs_fixtures
def test_negatives_and_every_truncation():
    for name in ("neg__arv__not_a_receipt.orig", "neg__arv__deprecatedSinglesTypeExpiredAppleCert_receipt.orig"):
        with pytest.raises(R.MalformedReceiptError) as e:
            R.validate((FIXTURES / "receipts/negative" / name).read_bytes(), "com.example")
        assert e.value.code == R.ERECEIPT_MALFORMED and e.value.apple_status == 21002
    data = (FIXTURES / "receipts/xcode/tp__receipt-xcode.der").read_bytes()
    anchor = storekit_cert()
    for n in range(len(data)):
        with pytest.raises(R.ReceiptError):
            R.validate(data[:n], "net.zachariadis.cyclemaps", test_anchor=anchor)
    assert R.validate(data, "net.zachariadis.cyclemaps", test_anchor=anchor).purchases[0].transaction_id == "0"


def test_status_mapping_is_complete():
    for code in range(-100, -124, -1):
        assert R.apple_status(code) in (21002, 21003, 21007, 21008, 21009)
        assert gatekit.strerror(code) != "unknown error"
    assert R.apple_status(0) == 0


@needs_fixtures
@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl CLI not installed")
def test_forged_receipts_each_have_their_code(tmp_path: Path):
    subprocess.run(["bash", str(REPO_ROOT / "Tests/c/receipt_forgeries.sh"), str(tmp_path), str(FIXTURES)],
                   check=True, stdout=subprocess.DEVNULL)
    root = (tmp_path / "root.der").read_bytes()
    xcode_bundle = "com.example.naturelab.backyardbirds.example"

    def code(name: str, bundle: str = xcode_bundle, **kwargs) -> int:
        try:
            R.validate((tmp_path / f"{name}.der").read_bytes(), bundle, **kwargs)
            return 0
        except R.ReceiptError as e:
            return e.code

    assert code("good", test_anchor=root) == 0
    assert code("good") == R.ERECEIPT_XCODE
    assert code("fake_apple", "dev.bonzer.weeka.app") == R.ERECEIPT_UNTRUSTED
    assert code("fake_apple", "dev.bonzer.weeka.app", test_anchor=(tmp_path / "fake_root.der").read_bytes()) == R.ERECEIPT_UNTRUSTED
    assert code("appstore_under_test_root", "dev.bonzer.weeka.app", test_anchor=root) == R.ERECEIPT_UNTRUSTED
    assert code("leaf_wrong_oid", test_anchor=root) == R.ERECEIPT_LEAF_OID
    assert code("intermediate_wrong_oid", test_anchor=root) == R.ERECEIPT_INTERMEDIATE_OID
    assert code("two_certificates", test_anchor=root) == R.ERECEIPT_CHAIN_LENGTH
    assert code("signer_not_in_chain", test_anchor=root) == R.ERECEIPT_NO_SIGNER
    assert code("signed_attributes", test_anchor=root) == R.ERECEIPT_SIGNED_ATTRS
    assert code("valid_now_only", test_anchor=root) == R.ERECEIPT_CERT_TIME
    assert code("valid_now_only", test_anchor=root, verify_time=datetime.now(timezone.utc)) == 0
    assert code("valid_then_only", test_anchor=root) == 0
    assert code("valid_then_only", test_anchor=root, verify_time=datetime.now(timezone.utc)) == R.ERECEIPT_CERT_TIME
    tampered = bytearray((tmp_path / "good.der").read_bytes())
    at = tampered.find(b"naturelab")
    tampered[at] = ord("N")
    with pytest.raises(R.UntrustedReceiptError) as e:
        R.validate(bytes(tampered), "com.example.Naturelab.backyardbirds.example", test_anchor=root)
    assert e.value.code == R.ERECEIPT_SIGNATURE


@needs_fixtures
def test_threads_share_the_chain_cache():
    data = (FIXTURES / "receipts/apple/tp__receipt-sandbox-g5.der").read_bytes()
    failures = []

    def work():
        for i in range(100):
            if i % 25 == 0:
                gatekit.clear_caches()
            try:
                assert len(R.validate(data, "dev.bonzer.weeka.app").purchases) == 2
            except Exception as error:  # noqa: BLE001 - collected and asserted below
                failures.append(error)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


@needs_fixtures
def test_every_pst_date_in_the_fixtures_matches_zoneinfo():
    from zoneinfo import ZoneInfo
    pacific = ZoneInfo("America/Los_Angeles")
    checked = 0

    def check_dates(obj: dict) -> int:
        n = 0
        for key, value in obj.items():
            if key.endswith("_pst"):
                base = key[:-4]
                instant = datetime.fromtimestamp(int(obj[base + "_ms"]) / 1000, tz=timezone.utc)
                assert obj[base] == instant.strftime("%Y-%m-%d %H:%M:%S Etc/GMT")
                local = instant.astimezone(pacific) if instant.year < 3000 else None
                if local is not None:
                    assert value == local.strftime("%Y-%m-%d %H:%M:%S America/Los_Angeles"), (key, obj[base])
                    n += 1
        return n

    for name, f in facts().items():
        body = validate_fixture(name, f).to_dict()["receipt"]
        checked += check_dates(body)
        for purchase in body["in_app"]:
            checked += check_dates(purchase)
    assert checked > 800


@needs_fixtures
@pytest.mark.example
def test_receipt_server_example_answers_like_verify_receipt():
    import urllib.request
    server = subprocess.Popen(example("receipt_server.py") + ["--bundle-id", "dev.bonzer.weeka.app", "--port", "0"],
                              env=example_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline() if server.stdout else ""
        assert "/verifyReceipt" in line, server.stderr.read() if server.stderr else line
        url = line.split()[-1]
        data = base64.b64encode((FIXTURES / "receipts/apple/tp__receipt-sandbox-g5.der").read_bytes()).decode()

        def post(payload: dict) -> dict:
            request = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST")
            with urllib.request.urlopen(request, timeout=10) as response:
                return json.loads(response.read())

        ok = post({"receipt-data": data})
        assert ok["status"] == 0 and ok["environment"] == "Sandbox" and len(ok["receipt"]["in_app"]) == 2
        assert ok["gatekit_entitled"] == []  # the sandbox subscription expired long ago
        assert post({"receipt-data": "bm90IGEgcmVjZWlwdA=="})["status"] == 21002
        assert post({"nothing": 1})["status"] == 21000
    finally:
        server.terminate()
        server.wait(timeout=30)


@needs_fixtures
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_receipt_check_c_example(tmp_path: Path):
    include = REPO_ROOT / "include"
    library = Path(gatekit.library_path()).resolve().parent
    binary = tmp_path / "receipt_check"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "-o", str(binary), str(REPO_ROOT / "examples" / "receipt_check.c"),
                    f"-I{include}", f"-L{library}", f"-Wl,-rpath,{library}", "-lgatekit"], check=True)
    g5 = str(FIXTURES / "receipts/apple/tp__receipt-sandbox-g5.der")
    owned = subprocess.run([str(binary), g5, "dev.bonzer.weeka.app", "dev.bonzer.weeka.app.subscription.pro.annual"],
                           capture_output=True, text=True)
    # created 18:39:47, inside the renewal period 18:19:07 → 18:55:07
    assert owned.returncode == 0 and ": owned" in owned.stdout, owned.stdout + owned.stderr
    other = subprocess.run([str(binary), g5, "dev.bonzer.weeka.app", "com.example.other"], capture_output=True, text=True)
    assert other.returncode == 1 and "not owned" in other.stdout
    refused = subprocess.run([str(binary), g5, "com.example.app"], capture_output=True, text=True)
    assert refused.returncode == 173 and "Apple status 21003" in refused.stderr


@needs_fixtures
def test_the_replay_identity_survives_re_encoding():
    """The identity is SHA-256 of the signed payload: base64 text with line breaks, the raw
    DER, and each fixture's payload hashed independently (openssl cms) all agree."""
    for name, f in sorted(facts().items())[:6]:
        data = (FIXTURES / f["file"]).read_bytes()
        r = validate_fixture(name, f, verify_time=None)
        as_text = base64.encodebytes(data).decode("ascii")   # 76-column lines
        again = R.validate(as_text, f["bundle_id"], test_anchor=storekit_cert() if f["environment"] == "Xcode" else None)
        assert r.identity == again.identity and len(r.identity) == 64
        payload = subprocess.run(["openssl", "cms", "-verify", "-noverify", "-binary", "-inform", "DER"],
                                 input=data, capture_output=True, check=True).stdout
        assert r.identity == hashlib.sha256(payload).hexdigest()
        assert r.to_dict()["gatekit"] == {"version": 1, "identity": r.identity, "testSigned": r.is_test_signed}


@needs_fixtures
def test_a_launch_check_never_loads_sqlite(tmp_path: Path):
    """libsqlite3 is opened on the first store open, not when the library loads: a process
    that only validates a receipt never maps it (a fresh interpreter, to see its own maps)."""
    script = (
        "import sys\n"
        "from gatekit import receipt\n"
        "def sqlite_mapped():\n"
        "    return any('libsqlite3' in line for line in open('/proc/self/maps'))\n"
        "r = receipt.validate_file(sys.argv[1], 'dev.bonzer.weeka.app')\n"
        "assert r.bundle_id == 'dev.bonzer.weeka.app'\n"
        "assert not sqlite_mapped(), 'libsqlite3 loaded by a receipt check'\n"
        "import gatekit\n"
        "with gatekit.Store(sys.argv[2]) as store:\n"
        "    store.eula.accept('terms', gatekit.hash_bytes(b'v1'))\n"
        "assert sqlite_mapped(), 'a store opened without libsqlite3?'\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(FIXTURES / "receipts" / "apple" / "tp__receipt-sandbox-g5.der"),
                           str(tmp_path / "s.sqlite")], env=os.environ.copy(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
