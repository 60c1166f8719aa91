"""What Apple's App Store Server Library signs, through the Python package under Apple's names:
every signature verified with the public key, every claim checked, and the same output shape
as Apple's own library (installed for the comparison) — plus ReceiptUtility on every receipt
fixture and realtime requests."""
from __future__ import annotations

import base64
from datetime import datetime, timedelta, timezone
import json
import os
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List

import pytest

import gatekit
from gatekit import appstore
from gatekit.jws import IdentityError, SignedDataVerifier

from conftest import REPO_ROOT
from signing import CHAIN, pki  # noqa: F401  (pki is a fixture)

FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", REPO_ROOT.parent / "shared" / "fixtures"))
APPLE = FIXTURES / "jws" / "apple-test"
KEY_PATH = APPLE / "certs" / "testSigningKey.p8"
pytestmark = pytest.mark.skipif(not KEY_PATH.is_file(), reason=f"Apple's test signing key not found at {KEY_PATH} (set GATEKIT_FIXTURES)")

jwt = pytest.importorskip("jwt", reason="PyJWT decodes the tokens (it comes with app-store-server-library)")


@pytest.fixture(scope="module")
def key() -> bytes:
    return KEY_PATH.read_bytes()


@pytest.fixture(scope="module")
def public_key(key: bytes) -> Any:
    from cryptography.hazmat.primitives import serialization
    return serialization.load_pem_private_key(key, None).public_key()


def decode(token: str, public_key: Any, audience: str) -> Dict[str, Any]:
    claims: Dict[str, Any] = jwt.decode(token, public_key, algorithms=["ES256"], audience=audience)
    return claims


def check_common(token: str, public_key: Any, audience: str) -> Dict[str, Any]:
    header = jwt.get_unverified_header(token)
    assert header == {"alg": "ES256", "kid": "keyId", "typ": "JWT"}
    claims = decode(token, public_key, audience)
    assert claims["iss"] == "issuerId" and claims["bid"] == "bundleId" and claims["aud"] == audience
    assert abs(claims["iat"] - time.time()) < 60 and "exp" not in claims
    assert str(uuid.UUID(claims["nonce"])) == claims["nonce"]
    return claims


def test_promotional_offer_v1_signs_apples_message(key, public_key):
    from cryptography.hazmat.primitives.asymmetric.ec import ECDSA
    from cryptography.hazmat.primitives.hashes import SHA256
    nonce = uuid.UUID("20fba8a0-2b80-4a7d-a17f-4b7f7d3d1c3e")
    ours = appstore.PromotionalOfferSignatureCreator(key, "keyId", "bundleId").create_signature(
        "productId", "offerId", "AppAccountToken", nonce, 1698148900000)
    # The message as Apple documents it, built here independently.
    message = "\u2063".join(["bundleId", "keyId", "productId", "offerId", "appaccounttoken", str(nonce), "1698148900000"]).encode()
    public_key.verify(base64.b64decode(ours), message, ECDSA(SHA256()))   # raises when it does not verify
    # Apple's library signs the same message (ECDSA is randomized: compare by verification).
    apple = pytest.importorskip("appstoreserverlibrary.promotional_offer")
    theirs = apple.PromotionalOfferSignatureCreator(key, "keyId", "bundleId").create_signature(
        "productId", "offerId", "AppAccountToken", nonce, 1698148900000)
    public_key.verify(base64.b64decode(theirs), message, ECDSA(SHA256()))
    with pytest.raises(gatekit.InvalidArgumentError):
        appstore.PromotionalOfferSignatureCreator(key, "keyId", "bundleId").create_signature("p", "o", "", "not-a-uuid", 1)


def apple_creator(name: str, key: bytes) -> Any:
    module = pytest.importorskip("appstoreserverlibrary.jws_signature_creator")
    return getattr(module, name)(key, "keyId", "issuerId", "bundleId")


def same_claims_as_apple(ours: Dict[str, Any], theirs_token: str) -> None:
    theirs = jwt.decode(theirs_token, options={"verify_signature": False})
    assert set(ours) == set(theirs)
    for name in set(ours) - {"iat", "nonce"}:
        assert ours[name] == theirs[name], name


def test_promotional_offer_v2(key, public_key):
    creator = appstore.PromotionalOfferV2SignatureCreator(key, "keyId", "issuerId", "bundleId")
    claims = check_common(creator.create_signature("productId", "offerIdentifier", "transactionId"), public_key, "promotional-offer")
    assert (claims["productId"], claims["offerIdentifier"], claims["transactionId"]) == ("productId", "offerIdentifier", "transactionId")
    same_claims_as_apple(claims, apple_creator("PromotionalOfferV2SignatureCreator", key).create_signature(
        "productId", "offerIdentifier", "transactionId"))
    without = check_common(creator.create_signature("productId", "offerIdentifier", None), public_key, "promotional-offer")
    assert "transactionId" not in without
    with pytest.raises(ValueError):
        creator.create_signature(None, "offerIdentifier", "transactionId")  # type: ignore[arg-type]
    # Two signatures never share a nonce.
    assert check_common(creator.create_signature("p", "o", None), public_key, "promotional-offer")["nonce"] != without["nonce"]


def test_introductory_offer_eligibility(key, public_key):
    creator = appstore.IntroductoryOfferEligibilitySignatureCreator(key, "keyId", "issuerId", "bundleId")
    for allow in (True, False):
        claims = check_common(creator.create_signature("productId", allow, "transactionId"), public_key, "introductory-offer-eligibility")
        assert claims["allowIntroductoryOffer"] is allow and claims["productId"] == "productId"
        same_claims_as_apple(claims, apple_creator("IntroductoryOfferEligibilitySignatureCreator", key).create_signature(
            "productId", allow, "transactionId"))


def test_advanced_commerce_in_app_request(key, public_key):
    import attr

    module = pytest.importorskip("appstoreserverlibrary.jws_signature_creator")

    @attr.define
    class Request(module.AdvancedCommerceAPIInAppRequest):  # type: ignore[misc, name-defined]
        test_value: str
        missing: Any = None

    creator = appstore.AdvancedCommerceAPIInAppSignatureCreator(key, "keyId", "issuerId", "bundleId")
    claims = check_common(creator.create_signature(Request("testValue")), public_key, "advanced-commerce-api")
    assert json.loads(base64.b64decode(claims["request"])) == {"test_value": "testValue"}
    same_claims_as_apple(claims, apple_creator("AdvancedCommerceAPIInAppSignatureCreator", key).create_signature(Request("testValue")))
    from_dict = check_common(creator.create_signature({"operation": "CREATE", "items": [{"SKU": "x", "price": 5}]}), public_key,
                             "advanced-commerce-api")
    assert json.loads(base64.b64decode(from_dict["request"])) == {"operation": "CREATE", "items": [{"SKU": "x", "price": 5}]}


def test_api_token_claims_lifetime_and_reuse(key, public_key):
    minter = appstore.APIToken(key, "keyId", "issuerId", "bundleId", lifetime=600)
    token = minter.token()
    assert jwt.get_unverified_header(token) == {"alg": "ES256", "kid": "keyId", "typ": "JWT"}
    claims = decode(token, public_key, "appstoreconnect-v1")
    assert claims["iss"] == "issuerId" and claims["bid"] == "bundleId" and claims["exp"] - claims["iat"] == 600
    assert minter.token() == token       # reused until near expiry
    for lifetime in (0, 3601, -5):
        with pytest.raises(gatekit.InvalidArgumentError):
            appstore.APIToken(key, "keyId", "issuerId", "bundleId", lifetime=lifetime).token()
    with pytest.raises(gatekit.InvalidArgumentError):   # no issuer id: no API token
        appstore._signed(appstore.SigningKey(key, "keyId", "bundleId"), appstore._token, 300)


def test_keys_that_are_not_app_store_keys(tmp_path):
    import subprocess
    with pytest.raises(appstore.KeyError_) as garbage:
        appstore.SigningKey(b"not a key", "k", "b")
    assert garbage.value.code == appstore.EAPPSTORE_KEY
    made = {}
    for name, args in {"rsa": ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
                       "p384": ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:secp384r1"]}.items():
        path = tmp_path / f"{name}.pem"
        subprocess.run(["openssl", "genpkey", *args, "-out", str(path)], check=True, capture_output=True)
        made[name] = path.read_bytes()
    for name in ("rsa", "p384"):
        with pytest.raises(appstore.KeyError_) as wrong:
            appstore.SigningKey(made[name], "k", "b")
        assert wrong.value.code == appstore.EAPPSTORE_KEY_TYPE, name
    encrypted = tmp_path / "encrypted.pem"
    subprocess.run(["openssl", "pkcs8", "-topk8", "-in", str(KEY_PATH), "-passout", "pass:secret", "-out", str(encrypted)],
                   check=True, capture_output=True)
    with pytest.raises(appstore.KeyError_) as locked:
        appstore.SigningKey(encrypted.read_bytes(), "k", "b")
    assert locked.value.code == appstore.EAPPSTORE_KEY


def receipt_files() -> List[Path]:
    return sorted(p for folder in ("apple", "xcode", "negative") for p in (FIXTURES / "receipts" / folder).glob("*") if p.is_file())


def test_receipt_utility_agrees_with_apples_on_every_receipt():
    apple = pytest.importorskip("appstoreserverlibrary.receipt_utility").ReceiptUtility()
    ours = appstore.ReceiptUtility()
    files = receipt_files()
    assert len(files) >= 20
    found = 0
    for path in files:
        text = base64.b64encode(path.read_bytes()).decode()
        try:
            expected = apple.extract_transaction_id_from_app_receipt(text)
        except ValueError:
            expected = ValueError
        try:
            got = ours.extract_transaction_id_from_app_receipt(text)
        except ValueError:
            got = ValueError
        assert got == expected, path.name
        found += isinstance(got, str)
    assert found >= 5
    legacy = (APPLE / "mock_signed_data" / "legacyTransaction").read_text().strip()
    assert ours.extract_transaction_id_from_transaction_receipt(legacy) == \
        apple.extract_transaction_id_from_transaction_receipt(legacy) == "33993399"
    nothing = base64.b64encode(b'{\n"purchase-info" = "e30=";\n}').decode()
    assert ours.extract_transaction_id_from_transaction_receipt(nothing) is None
    with pytest.raises(ValueError):
        ours.extract_transaction_id_from_transaction_receipt("%%% not base64")


def test_realtime_request(pki):
    model = json.loads((FIXTURES / "appstore-api" / "models" / "decodedRealtimeRequest.json").read_text())
    signed = pki.sign(model, CHAIN)
    now = datetime.now(timezone.utc) + timedelta(seconds=60)
    verifier = SignedDataVerifier("com.any.bundle", "LocalTesting", test_anchor=pki.der("root"))
    r = verifier.verify_realtime_request(signed, now)
    assert (r.originalTransactionId, r.appAppleId, r.productId, r.userLocale, r.requestIdentifier, r.signedDate) == \
        ("99371282", 531412, "com.example.product", "en-US", "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9", 1698148900000)
    assert r.test_signed and r.identity
    with pytest.raises(IdentityError):
        SignedDataVerifier("b", "Sandbox", test_anchor=pki.der("root")).verify_realtime_request(signed, now)
    production = dict(model, environment="Production")
    with pytest.raises(IdentityError):   # Production checks the app Apple id
        SignedDataVerifier("b", "Production", 1, test_anchor=pki.der("root"), test_production=True).verify_realtime_request(
            pki.sign(production, CHAIN), now)
    assert SignedDataVerifier("b", "Production", 531412, test_anchor=pki.der("root"), test_production=True).verify_realtime_request(
        pki.sign(production, CHAIN), now).productId == "com.example.product"


def _sec1(scalar: bytes) -> bytes:
    """An EC P-256 private key in SEC1 PEM with exactly this private scalar and no public point:
    what a damaged or hand-made key file holds."""
    body = b"\x02\x01\x01" + b"\x04" + bytes([len(scalar)]) + scalar + bytes.fromhex("a00a06082a8648ce3d030107")
    der = b"\x30" + bytes([len(body)]) + body
    return b"-----BEGIN EC PRIVATE KEY-----\n" + base64.encodebytes(der) + b"-----END EC PRIVATE KEY-----\n"


P256_ORDER = bytes.fromhex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")


@pytest.mark.parametrize("scalar", [bytes(32), P256_ORDER, (int.from_bytes(P256_ORDER, "big") + 1).to_bytes(32, "big"),
                                    b"\x01" + bytes(31) + b"\x05"], ids=["zero", "n", "n+1", "33-bytes"])
def test_keys_whose_scalar_cannot_sign_are_refused_at_load(scalar: bytes):
    with pytest.raises(appstore.KeyError_) as caught:
        appstore.SigningKey(_sec1(scalar), "KEYID", "com.example", "issuer")
    assert caught.value.code == appstore.EAPPSTORE_KEY


def test_a_sec1_pem_key_is_accepted_and_signs(tmp_path: Path):
    """`openssl ecparam -genkey` writes SEC1 ("BEGIN EC PRIVATE KEY"): the same key as a .p8,
    accepted, and what it signs verifies with its public key."""
    import subprocess
    pem = subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout"], capture_output=True, check=True).stdout
    assert pem.startswith(b"-----BEGIN EC PRIVATE KEY-----")
    from cryptography.hazmat.primitives import serialization
    public = serialization.load_pem_private_key(pem, None).public_key()
    token = appstore.APIToken(pem, "KEYID", "issuer", "com.example").token()
    assert decode(token, public, "appstoreconnect-v1")["bid"] == "com.example"
    # A valid scalar with the wrong public point is refused (it would sign for another key).
    other = subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-outform", "DER"],
                           capture_output=True, check=True).stdout
    mine = subprocess.run(["openssl", "ec", "-inform", "PEM", "-outform", "DER"], input=pem, capture_output=True, check=True).stdout
    mixed = mine[: mine.index(b"\xa1")] + other[other.index(b"\xa1"):]
    mixed_pem = b"-----BEGIN EC PRIVATE KEY-----\n" + base64.encodebytes(mixed) + b"-----END EC PRIVATE KEY-----\n"
    with pytest.raises(appstore.KeyError_):
        appstore.SigningKey(mixed_pem, "KEYID", "com.example", "issuer")


@pytest.mark.parametrize("field", ["product_identifier", "subscription_offer_id", "application_username"])
def test_an_offer_field_holding_the_separator_is_refused(key: bytes, field: str):
    values = {"product_identifier": "com.example.p", "subscription_offer_id": "offer", "application_username": "user"}
    values[field] += "\u2063more"
    creator = appstore.PromotionalOfferSignatureCreator(key, "KEYID", "com.example")
    with pytest.raises(ValueError, match="U\\+2063"):
        creator.create_signature(values["product_identifier"], values["subscription_offer_id"], values["application_username"],
                                 uuid.uuid4(), int(time.time() * 1000))
