"""The launch check from Python: a fresh interpreter validates once and exits 0 when genuine.
    python_host.py gatekit-receipt FILE BUNDLE_ID
    python_host.py reference-receipt FILE ROOT_DER BUNDLE_ID   (cryptography + asn1crypto)
    python_host.py gatekit-jws FILE ANCHOR_DER BUNDLE_ID ENVIRONMENT
    python_host.py reference-jws FILE ANCHOR_DER SIGNED_UNIX    (cryptography)
Timed by bench/bench_launch.c beside each other."""
import sys
from pathlib import Path


def gatekit_receipt(path: str, bundle: str) -> int:
    from gatekit import receipt
    receipt.validate_file(path, bundle)
    return 0


def reference_receipt(path: str, root_path: str, bundle: str) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from reference_receipt import hand_validate, x509
    root = x509.load_der_x509_certificate(Path(root_path).read_bytes())
    hand_validate(Path(path).read_bytes(), bundle, root)
    return 0


def gatekit_jws(path: str, anchor: str, bundle: str, environment: str) -> int:
    from gatekit.jws import SignedDataVerifier
    SignedDataVerifier(bundle, environment, test_anchor=Path(anchor).read_bytes()).verify_transaction(Path(path).read_text().strip())
    return 0


def reference_jws(path: str, anchor_path: str, signed_at: str) -> int:
    import base64
    import json
    from datetime import datetime, timezone
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    def unb64(text: str) -> bytes:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

    token = Path(path).read_text().strip()
    header64, payload64, signature64 = token.split(".")
    chain = [x509.load_der_x509_certificate(base64.b64decode(c)) for c in json.loads(unb64(header64))["x5c"]]
    anchor = x509.load_der_x509_certificate(Path(anchor_path).read_bytes())
    at = datetime.fromtimestamp(int(signed_at), tz=timezone.utc)
    chain[0].verify_directly_issued_by(chain[1])
    chain[1].verify_directly_issued_by(anchor)
    for cert in (chain[0], chain[1], anchor):
        if not cert.not_valid_before_utc <= at <= cert.not_valid_after_utc:
            return 1
    raw = unb64(signature64)
    signature = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key = chain[0].public_key()
    assert isinstance(key, ec.EllipticCurvePublicKey)
    key.verify(signature, f"{header64}.{payload64}".encode(), ec.ECDSA(hashes.SHA256()))
    json.loads(unb64(payload64))
    return 0


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    sys.exit({"gatekit-receipt": gatekit_receipt, "reference-receipt": reference_receipt,
              "gatekit-jws": gatekit_jws, "reference-jws": reference_jws}[mode](*args))
