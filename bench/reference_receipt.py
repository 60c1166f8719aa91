"""The hand-written receipt validator the benchmarks compare GateKit with: cryptography +
asn1crypto, the same checks (chain to the pinned Apple root at the creation date, OIDs,
signature, every field parsed). No GateKit import: bench/launch/python_host.py times it in a
fresh process."""
from __future__ import annotations

from datetime import datetime, timezone

APPLE_ROOT_SHA256 = "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024"

try:
    from asn1crypto import cms, core
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    HAVE_HAND = True
except ImportError as error:  # pragma: no cover - reported in the output
    HAVE_HAND = False
    HAND_MISSING = str(error)

if HAVE_HAND:
    class ReceiptAttribute(core.Sequence):
        _fields = [("type", core.Integer), ("version", core.Integer), ("value", core.OctetString)]

    class ReceiptPayload(core.SetOf):
        _child_spec = ReceiptAttribute

    LEAF_OID = x509.ObjectIdentifier("1.2.840.113635.100.6.11.1")
    INTERMEDIATE_OID = x509.ObjectIdentifier("1.2.840.113635.100.6.2.1")

    def _text(value: bytes) -> str:
        return core.load(value).native if value else ""

    def _date(value: bytes):
        text = _text(value)
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc) if text else None

    def hand_validate(der: bytes, bundle_id: str, root: "x509.Certificate") -> dict:
        signed = cms.ContentInfo.load(der)["content"]
        payload = signed["encap_content_info"]["content"].native
        signer = signed["signer_infos"][0]
        if signer["signed_attrs"].native:
            raise ValueError("signed attributes")
        certs = [x509.load_der_x509_certificate(c.chosen.dump()) for c in signed["certificates"]]
        serial = signer["sid"].chosen["serial_number"].native
        leaf = next(c for c in certs if c.serial_number == serial)
        receipt: dict = {"in_app": []}
        for attribute in ReceiptPayload.load(payload):
            kind, value = attribute["type"].native, attribute["value"].native
            if kind == 2:
                receipt["bundle_id"] = _text(value)
            elif kind in (0, 3, 19):
                receipt[kind] = _text(value)
            elif kind in (12, 18, 21):
                receipt[kind] = _date(value)
            elif kind in (1, 15, 16):
                receipt[kind] = core.load(value).native
            elif kind in (4, 5):
                receipt[kind] = value
            elif kind == 17:
                purchase = {}
                for field in ReceiptPayload.load(value):
                    t, v = field["type"].native, field["value"].native
                    if t in (1702, 1703, 1705, 1721):
                        purchase[t] = _text(v)
                    elif t in (1704, 1706, 1708, 1712):
                        purchase[t] = _date(v)
                    elif t in (1701, 1707, 1711, 1713, 1719):
                        purchase[t] = core.load(v).native
                receipt["in_app"].append(purchase)
        at = receipt[12]
        intermediate = next(c for c in certs if c.subject == leaf.issuer)
        # verify_directly_issued_by refuses SHA-1 (pre-2023 receipts): check signatures by hand
        for cert, issuer in ((leaf, intermediate), (intermediate, root)):
            if cert.issuer != issuer.subject:
                raise ValueError("broken chain")
            issuer.public_key().verify(cert.signature, cert.tbs_certificate_bytes, padding.PKCS1v15(),
                                       cert.signature_hash_algorithm)
        for cert in (leaf, intermediate, root):
            if not cert.not_valid_before_utc <= at <= cert.not_valid_after_utc:
                raise ValueError("certificate not valid at the creation date")
        leaf.extensions.get_extension_for_oid(LEAF_OID)
        intermediate.extensions.get_extension_for_oid(INTERMEDIATE_OID)
        digest = hashes.SHA1() if signer["digest_algorithm"]["algorithm"].native == "sha1" else hashes.SHA256()
        leaf.public_key().verify(signer["signature"].native, payload, padding.PKCS1v15(), digest)
        if receipt["bundle_id"] != bundle_id:
            raise ValueError("bundle id")
        return receipt
