"""Signing for tests: a throw-away PKI shaped like Apple's StoreKit 2 chain
(Tests/scripts/jws-test-pki.sh, made at test time) and compact JWS made with `cryptography`."""
from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from conftest import REPO_ROOT


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class PKI:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._keys: Dict[str, object] = {}

    def der(self, name: str) -> bytes:
        return (self.folder / f"{name}.der").read_bytes()

    def sign(self, payload: dict | str, chain: List[str], signer: Optional[str] = None,
             alg: Optional[str] = "ES256") -> str:
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

        header: Dict[str, object] = {}
        if alg is not None:
            header["alg"] = alg
        header["x5c"] = [base64.b64encode(self.der(n)).decode() for n in chain]
        body = payload if isinstance(payload, str) else json.dumps(payload)
        signing_input = b64url(json.dumps(header).encode()) + "." + b64url(body.encode())
        name = signer or chain[0]
        if name not in self._keys:
            self._keys[name] = serialization.load_pem_private_key((self.folder / f"{name}.key").read_bytes(), None)
        key = self._keys[name]
        if isinstance(key, rsa.RSAPrivateKey):
            signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        else:
            assert isinstance(key, ec.EllipticCurvePrivateKey)
            r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
            signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        return signing_input + "." + b64url(signature)


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> PKI:
    pytest.importorskip("cryptography", reason="the cryptography package signs the generated cases")
    folder = tmp_path_factory.mktemp("jws-pki")
    script = REPO_ROOT / "Tests" / "scripts" / "jws-test-pki.sh"
    result = subprocess.run([str(script), str(folder)], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"the openssl CLI could not make the test PKI: {result.stderr[-300:]}")
    return PKI(folder)


CHAIN = ["leaf", "int", "root"]
