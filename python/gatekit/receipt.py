"""App Store receipts: validation against Apple's pinned root, typed results, entitlements.

    receipt = gatekit.receipt.validate(base64_text, bundle_id="com.example.app")
    if receipt.is_entitled("com.example.app.pro"):
        ...
    body = receipt.to_dict()          # the verifyReceipt-compatible dict (to_json(): its text)

Failures raise :class:`ReceiptError` subclasses whose ``code`` is the GATEKIT_ERECEIPT_* value
and whose ``apple_status`` is verifyReceipt's status (21002, 21003, 21007, 21008).
"""
from __future__ import annotations

import ctypes
import json
import os
import re
import uuid
from dataclasses import dataclass, field
from functools import cached_property
from datetime import datetime
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from . import _bindings, _native
from ._managed import Managed
from ._result import JSONResult
from ._structs import (PRODUCTION_ONLY, RECEIPT_OPTIONS_VERSION, Anchor, REQUIRE_SHA256, SANDBOX_ONLY, ReceiptOptions,
                       receipt_options as _options)
from . import _time
from ._time import Instant
from .errors import EINVAL, GateKitError, InvalidArgumentError, check, file_path, register
from ._named_enum import NamedIntEnum

__all__ = ["ERECEIPT_ALGORITHM", "ERECEIPT_APP_VERSION", "ERECEIPT_BAD_CERT", "ERECEIPT_BUNDLE_ID",
    "ERECEIPT_CERT_SIGNATURE", "ERECEIPT_CERT_TIME", "ERECEIPT_CHAIN", "ERECEIPT_CHAIN_LENGTH",
    "ERECEIPT_DEVICE_HASH", "ERECEIPT_ENVIRONMENT", "ERECEIPT_INTERMEDIATE_OID",
    "ERECEIPT_LEAF_OID", "ERECEIPT_MALFORMED", "ERECEIPT_NO_CREATION_DATE", "ERECEIPT_NO_SIGNER",
    "ERECEIPT_PAYLOAD", "ERECEIPT_PRODUCTION", "ERECEIPT_SANDBOX", "ERECEIPT_SIGNATURE",
    "ERECEIPT_SIGNED_ATTRS", "ERECEIPT_TEST_ANCHOR", "ERECEIPT_UNTRUSTED", "ERECEIPT_WEAK_DIGEST",
    "ERECEIPT_XCODE", "InAppPurchase", "MalformedReceiptError", "OPTIONS_VERSION", "ReceiptProductType",
    "PRODUCTION_ONLY", "RECEIPT_AGE_RATING", "RECEIPT_APP_ITEM_ID", "RECEIPT_APP_VERSION",
    "RECEIPT_BUNDLE_ID", "RECEIPT_CREATION_DATE", "RECEIPT_DOWNLOAD_ID", "RECEIPT_ENVIRONMENT",
    "RECEIPT_EXPIRATION_DATE", "RECEIPT_HASH", "RECEIPT_OPAQUE", "RECEIPT_ORIGINAL_APP_VERSION",
    "RECEIPT_ORIGINAL_PURCHASE_DATE", "RECEIPT_VERSION_EXTERNAL_ID", "REQUIRE_SHA256", "Receipt",
    "ReceiptError", "SANDBOX_ONLY", "UntrustedReceiptError", "WrongEnvironmentError",
    "apple_status", "inspect", "validate", "validate_file"]


_R = ctypes.POINTER(_bindings.gatekit_receipt)
_Purchase = _bindings.gatekit_purchase
_Options = ReceiptOptions
_LL = ctypes.POINTER(ctypes.c_longlong)
_identity = _bindings.receipt_identity
OPTIONS_VERSION = RECEIPT_OPTIONS_VERSION
_validate = _bindings.receipt_validate
_intro_eligible = _bindings.receipt_intro_eligible
_validate_file = _bindings.receipt_validate_file
_free = _bindings.receipt_free
_to_json = _bindings.receipt_to_json
_is_entitled = _bindings.receipt_is_entitled
_active_products = _bindings.receipt_active_products
_string = _bindings.receipt_string
_integer = _bindings.receipt_integer
_date_ms = _bindings.receipt_date_ms
_bytes = _bindings.receipt_bytes
_is_test_signed = _bindings.receipt_is_test_signed
_is_sandbox = _bindings.receipt_is_sandbox
_purchase_count = _bindings.receipt_purchase_count
_purchase_string = _bindings.receipt_purchase_string
_purchase_integer = _bindings.receipt_purchase_integer
_purchase_date_ms = _bindings.receipt_purchase_date_ms
PURCHASE_VERSION = _bindings.GATEKIT_PURCHASE_VERSION
_purchase = _bindings.receipt_purchase
_inspect = _bindings.receipt_inspect
_apple_status = _bindings.receipt_apple_status


# Receipt attribute and in-app purchase field numbers (GATEKIT_RECEIPT_*, GATEKIT_IAP_*): names and
# values as in include/gatekit.h (tests/test_package.py compares them).
RECEIPT_ENVIRONMENT = _bindings.GATEKIT_RECEIPT_ENVIRONMENT
RECEIPT_APP_ITEM_ID = _bindings.GATEKIT_RECEIPT_APP_ITEM_ID
RECEIPT_BUNDLE_ID = _bindings.GATEKIT_RECEIPT_BUNDLE_ID
RECEIPT_APP_VERSION = _bindings.GATEKIT_RECEIPT_APP_VERSION
RECEIPT_OPAQUE = _bindings.GATEKIT_RECEIPT_OPAQUE
RECEIPT_HASH = _bindings.GATEKIT_RECEIPT_HASH
RECEIPT_AGE_RATING = _bindings.GATEKIT_RECEIPT_AGE_RATING
RECEIPT_CREATION_DATE = _bindings.GATEKIT_RECEIPT_CREATION_DATE
RECEIPT_DOWNLOAD_ID = _bindings.GATEKIT_RECEIPT_DOWNLOAD_ID
RECEIPT_VERSION_EXTERNAL_ID = _bindings.GATEKIT_RECEIPT_VERSION_EXTERNAL_ID
RECEIPT_ORIGINAL_PURCHASE_DATE = _bindings.GATEKIT_RECEIPT_ORIGINAL_PURCHASE_DATE
RECEIPT_ORIGINAL_APP_VERSION = _bindings.GATEKIT_RECEIPT_ORIGINAL_APP_VERSION
RECEIPT_EXPIRATION_DATE = _bindings.GATEKIT_RECEIPT_EXPIRATION_DATE

# Error codes: GATEKIT_ERECEIPT_* without the GATEKIT_ prefix.
ERECEIPT_MALFORMED = _bindings.GATEKIT_ERECEIPT_MALFORMED
ERECEIPT_PAYLOAD = _bindings.GATEKIT_ERECEIPT_PAYLOAD
ERECEIPT_ALGORITHM = _bindings.GATEKIT_ERECEIPT_ALGORITHM
ERECEIPT_SIGNED_ATTRS = _bindings.GATEKIT_ERECEIPT_SIGNED_ATTRS
ERECEIPT_NO_SIGNER = _bindings.GATEKIT_ERECEIPT_NO_SIGNER
ERECEIPT_SIGNATURE = _bindings.GATEKIT_ERECEIPT_SIGNATURE
ERECEIPT_UNTRUSTED = _bindings.GATEKIT_ERECEIPT_UNTRUSTED
ERECEIPT_CHAIN_LENGTH = _bindings.GATEKIT_ERECEIPT_CHAIN_LENGTH
ERECEIPT_LEAF_OID = _bindings.GATEKIT_ERECEIPT_LEAF_OID
ERECEIPT_INTERMEDIATE_OID = _bindings.GATEKIT_ERECEIPT_INTERMEDIATE_OID
ERECEIPT_CERT_TIME = _bindings.GATEKIT_ERECEIPT_CERT_TIME
ERECEIPT_WEAK_DIGEST = _bindings.GATEKIT_ERECEIPT_WEAK_DIGEST
ERECEIPT_CERT_SIGNATURE = _bindings.GATEKIT_ERECEIPT_CERT_SIGNATURE
ERECEIPT_CHAIN = _bindings.GATEKIT_ERECEIPT_CHAIN
ERECEIPT_BAD_CERT = _bindings.GATEKIT_ERECEIPT_BAD_CERT
ERECEIPT_BUNDLE_ID = _bindings.GATEKIT_ERECEIPT_BUNDLE_ID
ERECEIPT_APP_VERSION = _bindings.GATEKIT_ERECEIPT_APP_VERSION
ERECEIPT_DEVICE_HASH = _bindings.GATEKIT_ERECEIPT_DEVICE_HASH
ERECEIPT_XCODE = _bindings.GATEKIT_ERECEIPT_XCODE
ERECEIPT_SANDBOX = _bindings.GATEKIT_ERECEIPT_SANDBOX
ERECEIPT_PRODUCTION = _bindings.GATEKIT_ERECEIPT_PRODUCTION
ERECEIPT_NO_CREATION_DATE = _bindings.GATEKIT_ERECEIPT_NO_CREATION_DATE
ERECEIPT_ENVIRONMENT = _bindings.GATEKIT_ERECEIPT_ENVIRONMENT
ERECEIPT_TEST_ANCHOR = _bindings.GATEKIT_ERECEIPT_TEST_ANCHOR


class ReceiptError(GateKitError):
    """A receipt was refused. ``apple_status``: verifyReceipt's status for the same failure."""

    @property
    def apple_status(self) -> int:
        return apple_status(self.code)


class MalformedReceiptError(ReceiptError, ValueError):
    """Not a receipt, or damaged (Apple 21002)."""


class UntrustedReceiptError(ReceiptError):
    """Not authentic, or not for this app/device (Apple 21003)."""


class WrongEnvironmentError(ReceiptError):
    """Sandbox receipt where production is required (21007) or the reverse (21008)."""


for _code in range(ERECEIPT_MALFORMED, ERECEIPT_TEST_ANCHOR - 1, -1):
    _status = _apple_status(_code)
    register(_code, MalformedReceiptError if _status == 21002 else
             WrongEnvironmentError if _status in (21007, 21008) else
             UntrustedReceiptError if _status == 21003 else ReceiptError)


def apple_status(code: int) -> int:
    """verifyReceipt's status for a GateKit code (0, 21002, 21003, 21007, 21008, 21009)."""
    return int(_apple_status(int(code)))


class ReceiptProductType(NamedIntEnum):
    """An in-app purchase's product type (field 1707, as the receipt numbers it)."""
    NON_CONSUMABLE = 0
    CONSUMABLE = 1
    NON_RENEWING_SUBSCRIPTION = 2
    AUTO_RENEWABLE_SUBSCRIPTION = 3


def _flag(value: Optional[bool]) -> Optional[str]:
    return None if value is None else ("true" if value else "false")


def _from_flag(value: Optional[str]) -> Optional[bool]:
    return None if value is None else value == "true"


def _text_ms(moment: Optional[datetime], name: str) -> Optional[str]:
    return None if moment is None else str(_time.milliseconds(moment, name))


def _from_text_ms(value: Optional[str]) -> Optional[datetime]:
    return None if value is None else _time.from_milliseconds(int(value))


@dataclass(frozen=True)
class InAppPurchase(JSONResult):
    """One in-app purchase record (attribute 17); None: absent in the receipt. Instants are
    aware UTC datetimes. ``to_dict()`` holds the members verifyReceipt's ``in_app`` entry
    (receipt_to_json()) has for these fields, with its values (numbers as decimal text, flags
    as "true"/"false"), plus ``product_type`` (the C struct's member) when present."""
    quantity: Optional[int]
    product_id: Optional[str]
    transaction_id: Optional[str]
    original_transaction_id: Optional[str]
    purchase_date: Optional[datetime]
    original_purchase_date: Optional[datetime]
    product_type: Optional[ReceiptProductType]   # None: absent, or a number this package does not know
    expires_date: Optional[datetime]
    web_order_line_item_id: Optional[int]
    cancellation_date: Optional[datetime]
    is_trial_period: Optional[bool]
    is_in_intro_offer_period: Optional[bool]
    promotional_offer_id: Optional[str]

    @property
    def is_cancelled(self) -> bool:
        return self.cancellation_date is not None

    def to_dict(self) -> Dict[str, Any]:
        members = {
            "quantity": None if self.quantity is None else str(self.quantity),
            "product_id": self.product_id, "transaction_id": self.transaction_id,
            "original_transaction_id": self.original_transaction_id,
            "purchase_date_ms": _text_ms(self.purchase_date, "purchase_date"),
            "original_purchase_date_ms": _text_ms(self.original_purchase_date, "original_purchase_date"),
            "expires_date_ms": _text_ms(self.expires_date, "expires_date"),
            "cancellation_date_ms": _text_ms(self.cancellation_date, "cancellation_date"),
            "web_order_line_item_id": None if self.web_order_line_item_id is None else str(self.web_order_line_item_id),
            "is_trial_period": _flag(self.is_trial_period),
            "is_in_intro_offer_period": _flag(self.is_in_intro_offer_period),
            "promotional_offer_id": self.promotional_offer_id,
            "product_type": None if self.product_type is None else int(self.product_type),
        }
        return {k: v for k, v in members.items() if v is not None}

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "InAppPurchase":
        def number(name: str) -> Optional[int]:
            return None if raw.get(name) is None else int(raw[name])
        return cls(quantity=number("quantity"), product_id=raw.get("product_id"), transaction_id=raw.get("transaction_id"),
                   original_transaction_id=raw.get("original_transaction_id"),
                   purchase_date=_from_text_ms(raw.get("purchase_date_ms")),
                   original_purchase_date=_from_text_ms(raw.get("original_purchase_date_ms")),
                   product_type=_product_type(number("product_type")), expires_date=_from_text_ms(raw.get("expires_date_ms")),
                   web_order_line_item_id=number("web_order_line_item_id"),
                   cancellation_date=_from_text_ms(raw.get("cancellation_date_ms")),
                   is_trial_period=_from_flag(raw.get("is_trial_period")),
                   is_in_intro_offer_period=_from_flag(raw.get("is_in_intro_offer_period")),
                   promotional_offer_id=raw.get("promotional_offer_id"))


def _product_type(value: Optional[int]) -> Optional[ReceiptProductType]:
    return ReceiptProductType(value) if value is not None and value in ReceiptProductType._value2member_map_ else None


def _opt_int(getter: Any, *args: Any) -> Optional[int]:
    value = ctypes.c_longlong()
    return value.value if check(getter(ctypes.byref(value), *args)) == 1 else None


def _opt_str(raw: Optional[bytes]) -> Optional[str]:
    return None if raw is None else raw.decode("utf-8")


def _opt_bool(value: Optional[int]) -> Optional[bool]:
    return None if value is None else bool(value)


class Receipt(Managed):
    """A validated receipt. Fields are read from the library on first access (most servers
    read a handful); ``purchases`` are InAppPurchase dataclasses in receipt order. Freed when
    collected, or at once with ``close()`` / ``with``."""

    def __init__(self, pointer: Any) -> None:
        self._handle = pointer

    def _release(self, handle: Any) -> None:
        _free(handle)

    def _string(self, attribute: int) -> Optional[str]:
        return _opt_str(_string(self.handle, attribute))

    def _integer(self, attribute: int) -> Optional[int]:
        return _opt_int(_integer, self.handle, attribute)

    def _date(self, attribute: int) -> Optional[int]:
        return _opt_int(_date_ms, self.handle, attribute)

    def _bytes(self, attribute: int) -> Optional[bytes]:
        out = ctypes.c_void_p()
        size = ctypes.c_size_t()
        if check(_bytes(ctypes.byref(out), ctypes.byref(size), self.handle, attribute)) != 1:
            return None
        return ctypes.string_at(out.value, size.value) if out.value else b""

    @cached_property
    def environment(self) -> Optional[str]:
        """Production, ProductionSandbox, Xcode, ... (attribute 0)."""
        return self._string(RECEIPT_ENVIRONMENT)

    @cached_property
    def bundle_id(self) -> Optional[str]:
        return self._string(RECEIPT_BUNDLE_ID)

    @cached_property
    def app_version(self) -> Optional[str]:
        return self._string(RECEIPT_APP_VERSION)

    @cached_property
    def original_app_version(self) -> Optional[str]:
        return self._string(RECEIPT_ORIGINAL_APP_VERSION)

    @cached_property
    def age_rating(self) -> Optional[str]:
        return self._string(RECEIPT_AGE_RATING)

    @cached_property
    def app_item_id(self) -> Optional[int]:
        return self._integer(RECEIPT_APP_ITEM_ID)

    @cached_property
    def download_id(self) -> Optional[int]:
        return self._integer(RECEIPT_DOWNLOAD_ID)

    @cached_property
    def version_external_identifier(self) -> Optional[int]:
        return self._integer(RECEIPT_VERSION_EXTERNAL_ID)

    @cached_property
    def creation_date(self) -> Optional[datetime]:
        return _time.from_milliseconds(self._date(RECEIPT_CREATION_DATE))

    @cached_property
    def original_purchase_date(self) -> Optional[datetime]:
        return _time.from_milliseconds(self._date(RECEIPT_ORIGINAL_PURCHASE_DATE))

    @cached_property
    def expiration_date(self) -> Optional[datetime]:
        return _time.from_milliseconds(self._date(RECEIPT_EXPIRATION_DATE))

    @cached_property
    def opaque_value(self) -> Optional[bytes]:
        return self._bytes(RECEIPT_OPAQUE)

    @cached_property
    def sha1_hash(self) -> Optional[bytes]:
        return self._bytes(RECEIPT_HASH)

    @cached_property
    def identity(self) -> str:
        """The replay identity: SHA-256 of the signed payload, 64 hex digits. Every
        re-encoding of one genuine receipt has the same identity: dedupe on it."""
        raw = _identity(self.handle)
        if raw is None:
            raise MemoryError("receipt_identity returned NULL")
        return str(raw.decode("ascii"))

    @property
    def is_test_signed(self) -> bool:
        """Accepted under a caller test anchor (Xcode): never a real App Store purchase."""
        return check(_is_test_signed(self.handle)) == 1

    @cached_property
    def purchases(self) -> Tuple[InAppPurchase, ...]:
        """In-app purchases in receipt order."""
        return _purchases(self.handle)

    @property
    def is_sandbox(self) -> bool:
        """A sandbox environment (Sandbox, ProductionSandbox, ProductionVPPSandbox): the library's rule."""
        return check(_is_sandbox(self.handle)) == 1

    def __repr__(self) -> str:
        return (f"Receipt(environment={self.environment!r}, bundle_id={self.bundle_id!r}, "
                f"app_version={self.app_version!r}, creation_date={self.creation_date!r}, "
                f"purchases={len(self.purchases)}, is_test_signed={self.is_test_signed})")

    def is_entitled(self, product_id: str, at: Instant = None) -> bool:
        """True when a non-cancelled purchase of product_id covers the aware datetime ``at`` (None: now)."""
        return check(_is_entitled(self.handle, _native.to_c_string(product_id, "product_id"), _at_ms(at))) == 1

    def active_products(self, at: Instant = None) -> List[str]:
        """Product ids entitled at ``at``, each once, in receipt order."""
        out = ctypes.c_void_p()
        check(_active_products(ctypes.byref(out), self.handle, _at_ms(at)))
        products: List[str] = json.loads(_native.take_string(out))["products"]
        return products

    def intro_eligible(self, group_product_ids: Iterable[str]) -> bool:
        """From this receipt alone (receipts carry no group ids): may the introductory offer of
        the subscription group made of these product ids be shown? False once any purchase is
        of one of them."""
        ids = [_native.to_c_string(p, "product id") for p in group_product_ids]
        array = (ctypes.c_char_p * max(len(ids), 1))(*ids)
        return check(_intro_eligible(self.handle, array, len(ids))) == 1

    def to_dict(self) -> Dict[str, Any]:
        """verifyReceipt's response body for this receipt (status 0), as receipt_to_json() writes it."""
        body: Dict[str, Any] = json.loads(self.to_json())
        return body

    def to_json(self) -> str:
        """The same as JSON text."""
        out = ctypes.c_void_p()
        check(_to_json(ctypes.byref(out), self.handle))
        return _native.take_string(out)


#: A character base64 text never holds (white space aside): such a str is a path or a mistake.
_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/=\s]")


def _at_ms(at: Instant) -> int:
    return _time.milliseconds(at, "at")






def _build(pointer: Any) -> Receipt:
    return Receipt(pointer)

def _purchases(p: Any) -> Tuple[InAppPurchase, ...]:
    out = _Purchase()
    purchases = []
    for i in range(check(_purchase_count(p))):
        out.version = PURCHASE_VERSION
        check(_purchase(ctypes.byref(out), p, i))
        has = out.present

        def num(field: int, value: int) -> Optional[int]:
            return value if has >> (field - 1701) & 1 else None

        purchases.append(InAppPurchase(
            quantity=num(1701, out.quantity),
            product_id=_opt_str(out.product_id),
            transaction_id=_opt_str(out.transaction_id),
            original_transaction_id=_opt_str(out.original_transaction_id),
            purchase_date=_time.from_milliseconds(num(1704, out.purchase_date_ms)),
            original_purchase_date=_time.from_milliseconds(num(1706, out.original_purchase_date_ms)),
            product_type=_product_type(num(1707, out.product_type)),
            expires_date=_time.from_milliseconds(num(1708, out.expires_date_ms)),
            web_order_line_item_id=num(1711, out.web_order_line_item_id),
            cancellation_date=_time.from_milliseconds(num(1712, out.cancellation_date_ms)),
            is_trial_period=_opt_bool(num(1713, out.is_trial_period)),
            is_in_intro_offer_period=_opt_bool(num(1719, out.is_in_intro_offer_period)),
            promotional_offer_id=_opt_str(out.promotional_offer_id),
        ))
    return tuple(purchases)

def validate(data: Union[bytes, bytearray, str], bundle_id: str, *, app_version: Optional[str] = None,
             device_id: Union[bytes, str, uuid.UUID, None] = None, verify_time: Instant = None,
             require_sha256: bool = False, production_only: bool = False, sandbox_only: bool = False,
             test_anchor: Optional[Anchor] = None) -> Receipt:
    """Validates a receipt given as DER bytes or base64 text (str or bytes).

    verify_time: when certificates must be valid (default: the receipt's creation date).
    test_anchor: the certificate trusted for Xcode (StoreKit testing) receipts only (DER or PEM bytes, or its path)."""
    if isinstance(data, str) and (os.path.exists(data) or _NOT_BASE64.search(data)):
        raise InvalidArgumentError(EINVAL, f"validate() takes a receipt's bytes or its base64 text, and {data[:60]!r} is "
                                           "neither; for a file, use validate_file(path, bundle_id, ...)")
    raw = data.encode("ascii") if isinstance(data, str) else bytes(data)
    options, keep = _options(bundle_id, app_version, device_id, verify_time, require_sha256, production_only,
                             sandbox_only, test_anchor)
    out = _R()
    check(_validate(ctypes.byref(out), raw, len(raw), ctypes.byref(options)))
    del keep
    return _build(out)


def validate_file(path: Union[str, "os.PathLike[str]"], bundle_id: str, *, app_version: Optional[str] = None,
                  device_id: Union[bytes, str, uuid.UUID, None] = None, verify_time: Instant = None,
                  require_sha256: bool = False, production_only: bool = False, sandbox_only: bool = False,
                  test_anchor: Optional[Anchor] = None) -> Receipt:
    """validate() on a file's contents (DER or base64 text); the same keyword arguments."""
    options, keep = _options(bundle_id, app_version, device_id, verify_time, require_sha256, production_only,
                             sandbox_only, test_anchor)
    out = _R()
    check(_validate_file(ctypes.byref(out), file_path(path, "path"), ctypes.byref(options)))
    del keep
    return _build(out)


def inspect(data: Union[bytes, bytearray, str]) -> Dict[str, Any]:
    """Parses without deciding anything (no trust verdict): for diagnostics only."""
    raw = data.encode("ascii") if isinstance(data, str) else bytes(data)
    out = ctypes.c_void_p()
    check(_inspect(ctypes.byref(out), raw, len(raw)))
    described: Dict[str, Any] = json.loads(_native.take_string(out))
    return described


def __getattr__(name: str) -> Any:
    # 0.1 named it ProductType, which gatekit.api_models (Apple's library) names another enumeration.
    if name == "ProductType":
        import warnings
        warnings.warn("gatekit.receipt.ProductType is now gatekit.receipt.ReceiptProductType", DeprecationWarning, stacklevel=2)
        return ReceiptProductType
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
