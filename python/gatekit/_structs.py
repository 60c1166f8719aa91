"""What more than one module of the package shares with the library: the options structs, and
the conversions of signed data and request models into C arguments. A module imports these from
here, never another module's private names (python/tests/test_package.py checks)."""
from __future__ import annotations

import base64
import binascii
import ctypes
import dataclasses
import enum
import os
import uuid
from datetime import datetime
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _bindings, _native, _time
from ._time import Instant
from .apple_enums import raw_name
from .errors import check

__all__ = ["Anchor", "JWSOptions", "PRODUCTION_ONLY", "RECEIPT_OPTIONS_VERSION", "REQUIRE_SHA256", "ReceiptOptions",
           "SANDBOX_ONLY", "Signed", "anchor_der", "plain_json", "receipt_options", "signed_text"]

#: Signed data as the library takes it: the compact JWS text.
Signed = Union[str, bytes]


#: gatekit_jws_options (include/gatekit/jws.h).
JWSOptions = _bindings.gatekit_jws_options
#: gatekit_receipt_options (include/gatekit/receipt.h).
ReceiptOptions = _bindings.gatekit_receipt_options

RECEIPT_OPTIONS_VERSION = _bindings.GATEKIT_RECEIPT_OPTIONS_VERSION
REQUIRE_SHA256 = _bindings.GATEKIT_RECEIPT_REQUIRE_SHA256
PRODUCTION_ONLY = _bindings.GATEKIT_RECEIPT_PRODUCTION_ONLY
SANDBOX_ONLY = _bindings.GATEKIT_RECEIPT_SANDBOX_ONLY
_receipt_options_init = _bindings.receipt_options_init


#: A certificate trusted in test mode, as Apple's users pass one: DER or PEM bytes, PEM text,
#: or the path of a file holding either.
Anchor = Union[bytes, bytearray, str, "os.PathLike[str]"]


def anchor_der(anchor: Optional[Anchor], name: str = "test_anchor") -> Optional[bytes]:
    """The certificate's DER bytes (None stays None): a path is read, PEM is decoded."""
    if anchor is None:
        return None
    if isinstance(anchor, os.PathLike) or (isinstance(anchor, str) and "-----BEGIN" not in anchor):
        try:
            with open(anchor, "rb") as f:
                data = f.read(1 << 20)
        except OSError as e:
            raise ValueError(f"{name}: {anchor!s} cannot be read ({e.strerror}); pass the certificate's DER or PEM bytes, or its file's path") from None
    elif isinstance(anchor, str):
        data = anchor.encode("ascii", "replace")
    elif isinstance(anchor, (bytes, bytearray)):
        data = bytes(anchor)
    else:
        raise TypeError(f"{name} must be a certificate's DER or PEM bytes, or its file's path, not {type(anchor).__name__}")
    if data.lstrip().startswith(b"-----BEGIN"):
        body = data.split(b"-----BEGIN CERTIFICATE-----", 1)[-1].split(b"-----END CERTIFICATE-----", 1)[0]
        try:
            data = base64.b64decode(b"".join(body.split()), validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"{name} is PEM without a readable CERTIFICATE block") from None
    return data  # DER, checked by the library


def signed_text(signed: Signed) -> bytes:
    """Signed data as the C string the library reads (surrounding white space removed)."""
    if isinstance(signed, dict):
        member = next((k for k in ("signedPayload", "signedTransactionInfo", "signedRenewalInfo") if k in signed), None)
        raise TypeError(f"signed data is the compact JWS text, not a dict: pass body[{member!r}]" if member
                        else "signed data is the compact JWS text (str or bytes), not a dict")
    encoded = _native.to_c_string(signed.strip() if isinstance(signed, (str, bytes)) else signed, "signed data")
    if encoded is None:
        raise TypeError("signed data must be str or bytes, not None")
    return encoded


def device_bytes(device_id: Union[bytes, str, uuid.UUID, None]) -> Optional[bytes]:
    """16 UUID bytes or a 6-byte MAC; accepts bytes, a UUID, "AA:BB:…" or plain hex."""
    if device_id is None:
        return None
    if isinstance(device_id, uuid.UUID):
        return device_id.bytes
    if isinstance(device_id, (bytes, bytearray)):
        return bytes(device_id)
    text = device_id.strip()
    if len(text) == 36 and text.count("-") == 4:
        return uuid.UUID(text).bytes
    return bytes.fromhex(text.replace(":", "").replace("-", ""))


def receipt_options(bundle_id: str, app_version: Optional[str], device_id: Any, verify_time: Instant,
             require_sha256: bool, production_only: bool, sandbox_only: bool,
             test_anchor: Optional[Anchor]) -> Tuple[ReceiptOptions, List[Any]]:
    """The options struct, and the buffers it points into (keep them alive while it is used)."""
    options = ReceiptOptions()
    check(_receipt_options_init(ctypes.byref(options), RECEIPT_OPTIONS_VERSION))
    keep: List[Any] = []
    bundle = _native.to_c_string(bundle_id, "bundle_id")
    version = _native.to_c_string(app_version, "app_version")
    keep += [bundle, version]
    options.bundle_id = bundle
    options.app_version = version
    device = device_bytes(device_id)
    if device is not None:
        keep.append(device)
        options.device_id = device
        options.device_id_len = len(device)
    if verify_time is not None:
        options.verify_time = _time.seconds(verify_time, "verify_time")
    options.flags = (REQUIRE_SHA256 if require_sha256 else 0) | (PRODUCTION_ONLY if production_only else 0) | \
        (SANDBOX_ONLY if sandbox_only else 0)
    anchor = anchor_der(test_anchor)
    if anchor is not None:
        keep.append(anchor)
        options.test_anchor_der = anchor
        options.test_anchor_len = len(anchor)
    return options, keep


def plain_json(value: Any) -> Any:
    """A request model (or a payload) as JSON values: dataclasses, attrs classes and objects by
    their fields, enums by their value, aware datetimes as Unix milliseconds (Apple's dates),
    None members left out (as Apple's converter does)."""
    if isinstance(value, datetime):
        return _time.milliseconds(value, "a date")
    if isinstance(value, enum.Enum):
        return plain_json(value.value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        return {k: plain_json(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    if hasattr(value, "to_json") and not isinstance(value, type):  # gatekit's models know Apple's JSON
        return plain_json(value.to_json())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _members(value, [f.name for f in dataclasses.fields(value)])
    if hasattr(value, "__attrs_attrs__"):
        return _members(value, [a.name for a in value.__attrs_attrs__])
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {k: plain_json(v) for k, v in vars(value).items() if v is not None and not k.startswith("_")}
    return value


def _members(model: Any, names: List[str]) -> Dict[str, Any]:
    """A model's members by name. Apple's models pair an enumeration member ``x`` with its raw
    value ``rawX``: the JSON member ``x`` takes the raw value when set (it keeps values newer
    than the enum), else the member itself."""
    out: Dict[str, Any] = {}
    for name in names:
        if name.startswith("raw") and name[3:4].isupper() and (name[3].lower() + name[4:]) in names:
            continue
        sent = getattr(model, raw_name(name)) if raw_name(name) in names else None
        value = sent if sent is not None else getattr(model, name)
        if value is not None:
            out[name] = plain_json(value)
    return out
