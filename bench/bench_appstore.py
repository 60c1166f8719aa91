"""App Store signing from Python: gatekit.appstore beside Apple's own library
(pip install app-store-server-library), same key (Apple's test key), same arguments, same run."""
from __future__ import annotations

import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Callable, List

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))

from gatekit import appstore  # noqa: E402


def measure(body: Callable[[], object], runs: int, warmup: int) -> float:
    for _ in range(warmup):
        body()
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        body()
        samples.append(time.perf_counter_ns() - t0)
    return statistics.median(samples)


def main() -> int:
    fixtures = Path(os.environ.get("GATEKIT_FIXTURES", REPO.parent / "shared" / "fixtures"))
    key_path = fixtures / "jws" / "apple-test" / "certs" / "testSigningKey.p8"
    if not key_path.is_file():
        print(f"\n(App Store signing from Python skipped: {key_path} not found; set GATEKIT_FIXTURES)")
        return 0
    try:
        from appstoreserverlibrary import jws_signature_creator, promotional_offer
    except ImportError:
        print("\n(App Store signing from Python skipped: pip install app-store-server-library for Apple's reference)")
        return 0
    key = key_path.read_bytes()
    nonce = uuid.UUID("20fba8a0-2b80-4a7d-a17f-4b7f7d3d1c3e")
    ours_v2 = appstore.PromotionalOfferV2SignatureCreator(key, "keyId", "issuerId", "com.example")
    theirs_v2 = jws_signature_creator.PromotionalOfferV2SignatureCreator(key, "keyId", "issuerId", "com.example")
    ours_v1 = appstore.PromotionalOfferSignatureCreator(key, "keyId", "com.example")
    theirs_v1 = promotional_offer.PromotionalOfferSignatureCreator(key, "keyId", "com.example")
    print("\n## App Store signing from Python (Apple's test key)\n")
    print("| signature | GateKit | Apple's app-store-server-library | GateKit faster by |\n|---|---:|---:|---:|")
    for name, ours, theirs in [
        ("promotional offer V2 (JWS)", lambda: ours_v2.create_signature("com.example.product", "offer.1", "2000000123456789"),
         lambda: theirs_v2.create_signature("com.example.product", "offer.1", "2000000123456789")),
        ("promotional offer V1 (base64 DER)",
         lambda: ours_v1.create_signature("com.example.product", "offer.1", "token", nonce, 1698148900000),
         lambda: theirs_v1.create_signature("com.example.product", "offer.1", "token", nonce, 1698148900000)),
    ]:
        a = measure(ours, 2000, 200)
        b = measure(theirs, 2000, 200)
        print(f"| {name} | {a / 1e3:.1f} µs | {b / 1e3:.1f} µs | **{b / a:.1f}×** |")
    print("\n(medians of 2,000 calls each; ECDSA signing itself is OpenSSL in both: Apple's library reaches it through")
    print("`cryptography`, GateKit through its own C ABI)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
