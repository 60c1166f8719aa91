"""StoreKit 2 signed data from Python: gatekit.jws vs. Apple's own Python SignedDataVerifier
(pip install app-store-server-library), same data, same run, online (OCSP) checks off.

Data: Apple's mock transactionInfo with Apple's test root (fixture), and transactions signed
here under a generated chain shaped like Apple's production chain (P-384 root and
intermediate, P-256 signer; Apple's real key cannot sign here). Apple's verifier has no cache
with online checks off, so every call verifies the chain: compare it with GateKit warm
(repeated signer) and GateKit cold (a new signer every call, round-robin over 80 signers).
"""
from __future__ import annotations

import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))

from gatekit.jws import SignedDataVerifier  # noqa: E402

SIGNERS = 80


def measure(body: Callable[[], object], runs: int, warmup: int) -> List[int]:
    for _ in range(warmup):
        body()
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        body()
        samples.append(time.perf_counter_ns() - t0)
    return sorted(samples)


def row(name: str, values: List[int]) -> float:
    n = len(values)
    median = statistics.median(values)
    print(f"| {name} | {median / 1e3:.1f} µs | {values[n // 10] / 1e3:.1f} µs | {values[n * 9 // 10] / 1e3:.1f} µs | {n} |")
    return median


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sign(folder: Path, signer: str, chain: List[str], payload: dict) -> str:
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    header = {"alg": "ES256", "x5c": [base64.b64encode((folder / f"{n}.der").read_bytes()).decode() for n in chain]}
    signing_input = b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + \
        b64url(json.dumps(payload, separators=(",", ":")).encode())
    key = serialization.load_pem_private_key((folder / f"{signer}.key").read_bytes(), None)
    r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def transaction(now_ms: int) -> dict:
    return {"transactionId": "2000000123", "originalTransactionId": "2000000100", "webOrderLineItemId": "2000000050",
            "bundleId": "com.example", "productId": "pro.monthly", "subscriptionGroupIdentifier": "21000000",
            "purchaseDate": now_ms - 1000, "originalPurchaseDate": now_ms - 1000, "expiresDate": now_ms + 2592000000,
            "quantity": 1, "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": now_ms,
            "environment": "Sandbox", "transactionReason": "PURCHASE", "storefront": "USA", "storefrontId": "143441",
            "price": 9990, "currency": "USD"}


def compare(title: str, root: bytes, one: str, many: List[str], strict: bool) -> None:
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier as AppleVerifier

    apple = AppleVerifier([root], False, Environment.SANDBOX, "com.example")
    apple._chain_verifier.enable_strict_checks = strict
    gatekit = SignedDataVerifier("com.example", "Sandbox", test_anchor=root)
    assert apple.verify_and_decode_signed_transaction(one).bundleId == gatekit.verify_transaction(one).bundleId

    print(f"\n### {title}\n")
    print("| measurement | median | p10 | p90 | runs |\n|---|---:|---:|---:|---:|")
    a = row(f"Apple app-store-server-library SignedDataVerifier (online checks off{'' if strict else ', strict checks off'})",
            measure(lambda: apple.verify_and_decode_signed_transaction(one), 300, 20))
    warm = row("gatekit.jws warm: verify_transaction, repeated signer", measure(lambda: gatekit.verify_transaction(one), 3000, 200))
    ratios = [f"| ratio Apple / GateKit warm (target ≥ 10) | **{a / warm:.1f}×** | | | |"]
    if len(many) > 1:
        state = {"i": 0}

        def cold() -> None:
            gatekit.verify_transaction(many[state["i"] % len(many)])
            state["i"] += 1
        c = row("gatekit.jws cold: verify_transaction, a new signer every call", measure(cold, 600, 20))
        ratios.append(f"| ratio Apple / GateKit cold | **{a / c:.1f}×** | | | |")
    print("\n".join(ratios))


def main() -> None:
    try:
        import appstoreserverlibrary  # noqa: F401
        import cryptography  # noqa: F401
    except ImportError as e:
        print(f"\n(bench_jws.py skipped: {e}; pip install app-store-server-library)")
        return
    fixtures = Path(os.environ.get("GATEKIT_FIXTURES", REPO.parent / "shared" / "fixtures"))
    apple_data = fixtures / "jws" / "apple-test"
    if apple_data.is_dir():
        one = (apple_data / "mock_signed_data" / "transactionInfo").read_text().strip()
        # Apple's test certificates lack key identifiers: Apple's own tests turn strict checks off too.
        compare("JWS from Python: Apple's mock transactionInfo (Apple's test chain, fixture)",
                (apple_data / "certs" / "testCA.der").read_bytes(), one, [one], strict=False)
    else:
        print(f"\n(Apple's mock data skipped: no fixtures at {fixtures})")

    with tempfile.TemporaryDirectory(prefix="gatekit-bench-jws-py-") as tmp:
        folder = Path(tmp)
        script = REPO / "Tests" / "scripts" / "jws-test-pki.sh"
        subprocess.run([str(script), str(folder)], check=True, capture_output=True, env=dict(os.environ, LEAVES=str(SIGNERS)))
        now_ms = int(time.time() * 1000)
        many = [sign(folder, f"leaf384_{i}", [f"leaf384_{i}", "int384", "root384"], transaction(now_ms)) for i in range(1, SIGNERS + 1)]
        compare("JWS from Python: P-384 root + intermediate, P-256 signer (production shape), generated",
                (folder / "root384.der").read_bytes(), many[0], many, strict=True)


if __name__ == "__main__":
    main()
