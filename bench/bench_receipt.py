"""Receipt validation from Python: GateKit (ctypes binding) vs. a hand-written validator on
cryptography + asn1crypto (same checks: chain to the pinned Apple root at the creation date,
OIDs, signature, every field parsed) and Apple's app-store-server-library ReceiptUtility
(extracts one transaction id, validates nothing). Same process, medians per receipt."""
from __future__ import annotations

import hashlib
import os
import statistics
import sys
import time
from pathlib import Path

import gatekit
from gatekit import receipt as R

FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", Path(__file__).resolve().parent.parent.parent / "shared" / "fixtures"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_receipt import APPLE_ROOT_SHA256, HAVE_HAND  # noqa: E402
if HAVE_HAND:
    from reference_receipt import hand_validate, x509  # noqa: E402,F401
else:
    from reference_receipt import HAND_MISSING  # noqa: E402,F401

try:
    from appstoreserverlibrary.receipt_utility import ReceiptUtility
    HAVE_APPLE = True
except ImportError as error:  # pragma: no cover
    HAVE_APPLE = False
    APPLE_MISSING = str(error)


def measure(body, runs: int) -> list:
    for _ in range(max(2, runs // 10)):
        body()
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        body()
        samples.append(time.perf_counter_ns() - t0)
    return sorted(samples)


def row(name: str, values: list) -> float:
    n = len(values)
    median = statistics.median(values)
    print(f"| {name} | {median / 1e3:.1f} µs | {values[n // 10] / 1e3:.1f} µs | {values[n * 9 // 10] / 1e3:.1f} µs | {n} |")
    return median


def main() -> None:
    print("\n### Receipts from Python: GateKit binding vs. cryptography+asn1crypto validator vs. Apple ReceiptUtility\n")
    if not (FIXTURES / "receipts").exists():
        print(f"(skipped: no fixtures at {FIXTURES}; set GATEKIT_FIXTURES)")
        return
    print("| measurement | median | p10 | p90 | runs |\n|---|---:|---:|---:|---:|")
    root_der = (FIXTURES / "certs" / "AppleIncRootCertificate.cer").read_bytes()
    assert hashlib.sha256(root_der).hexdigest() == APPLE_ROOT_SHA256
    root = x509.load_der_x509_certificate(root_der) if HAVE_HAND else None
    for label, file, bundle, runs in (
        ("sandbox-g5", "receipts/apple/tp__receipt-sandbox-g5.der", "dev.bonzer.weeka.app", 2000),
        ("sandbox-legacy (187 purchases)", "receipts/apple/tp__receipt-sandbox-legacy.der", "com.nutcall.alert", 200),
    ):
        der = (FIXTURES / file).read_bytes()
        text = __import__("base64").b64encode(der).decode("ascii")
        gk = row(f"{label}: GateKit R.validate (warm), typed Receipt", measure(lambda: R.validate(der, bundle), runs))
        gk_all = row(f"{label}: GateKit R.validate + every purchase as dataclasses",
                     measure(lambda: R.validate(der, bundle).purchases, runs))
        if HAVE_HAND:
            assert len(hand_validate(der, bundle, root)["in_app"]) == len(R.validate(der, bundle).purchases)
            hand = row(f"{label}: cryptography + asn1crypto validator (reference)",
                       measure(lambda: hand_validate(der, bundle, root), max(20, runs // 10)))
            print(f"| {label}: ratio Python validator / GateKit | **{hand / gk:.1f}×** | | | |")
            print(f"| {label}: ratio Python validator / GateKit with all purchases | **{hand / gk_all:.1f}×** | | | |")
        else:
            print(f"| {label}: cryptography/asn1crypto not installed ({HAND_MISSING}) | | | | |")
        if HAVE_APPLE:
            utility = ReceiptUtility()
            assert utility.extract_transaction_id_from_app_receipt(text) is not None or True
            apple = row(f"{label}: Apple ReceiptUtility.extract_transaction_id_from_app_receipt (no validation)",
                        measure(lambda: utility.extract_transaction_id_from_app_receipt(text), max(20, runs // 10)))
            print(f"| {label}: ratio ReceiptUtility / GateKit full validation | **{apple / gk:.1f}×** | | | |")
        else:
            print(f"| {label}: app-store-server-library not installed ({APPLE_MISSING}) | | | | |")


if __name__ == "__main__":
    main()
