"""What Apple's App Store Server Library signs, under Apple's class and method names:
promotional offer signatures (V1 and V2), introductory-offer eligibility and Advanced Commerce
signed requests, the App Store Server API bearer token, and ReceiptUtility. A migration from
``appstoreserverlibrary`` is a change of imports (docs/appstore.md maps every class)."""
from __future__ import annotations

import ctypes
import json
import uuid
from typing import Any, Optional, Union

from . import _bindings, _native
from ._managed import Managed
from ._structs import plain_json as _plain
from .errors import GateKitError, check, register

__all__ = ["APIToken", "AdvancedCommerceAPIInAppSignatureCreator", "IntroductoryOfferEligibilitySignatureCreator",
           "KeyError_", "PromotionalOfferSignatureCreator", "PromotionalOfferV2SignatureCreator", "ReceiptUtility",
           "SigningKey"]

EAPPSTORE_KEY = _bindings.GATEKIT_EAPPSTORE_KEY
EAPPSTORE_KEY_TYPE = _bindings.GATEKIT_EAPPSTORE_KEY_TYPE


class KeyError_(GateKitError, ValueError):
    """The signing key is not an unencrypted PKCS#8 PEM EC P-256 private key (a .p8 file)."""


register(EAPPSTORE_KEY, KeyError_)
register(EAPPSTORE_KEY_TYPE, KeyError_)


_K = ctypes.POINTER(_bindings.gatekit_appstore_key)
_out = _bindings.c_char_p_p
_load = _bindings.appstore_key_load
_free = _bindings.appstore_key_free
_offer_v1 = _bindings.appstore_promotional_offer_signature
_offer_v2 = _bindings.appstore_promotional_offer_v2_signature
_intro = _bindings.appstore_intro_eligibility_signature
_commerce = _bindings.appstore_advanced_commerce_signature
_token = _bindings.appstore_api_token
_receipt_id = _bindings.receipt_transaction_id
_legacy_id = _bindings.receipt_legacy_transaction_id


def _s(value: Optional[str], name: str) -> Optional[bytes]:
    return _native.to_c_string(value, name)


class SigningKey(Managed):
    """An App Store Connect private key (.p8 bytes) with its ids. Thread-safe, immutable."""

    def __init__(self, signing_key: bytes, key_id: str, bundle_id: str, issuer_id: Optional[str] = None) -> None:
        pem = bytes(signing_key)
        handle = _K()
        check(_load(ctypes.byref(handle), pem, len(pem), _s(key_id, "key_id"), _s(issuer_id, "issuer_id"),
                    _s(bundle_id, "bundle_id")))
        self._handle = handle
        self.key_id, self.issuer_id, self.bundle_id = key_id, issuer_id, bundle_id

    def _release(self, handle: Any) -> None:
        _free(handle)


def _signed(key: SigningKey, function: Any, *args: Any) -> str:
    """What a signing function of the library makes with the key (a string it allocates)."""
    out = ctypes.c_void_p()
    check(function(ctypes.byref(out), key.handle, *args))
    return _native.take_string(out)


class PromotionalOfferSignatureCreator:
    """Apple's ``PromotionalOfferSignatureCreator`` (StoreKit's original API)."""

    def __init__(self, signing_key: bytes, key_id: str, bundle_id: str) -> None:
        self._key = SigningKey(signing_key, key_id, bundle_id)

    def create_signature(self, product_identifier: str, subscription_offer_id: str, application_username: str,
                         nonce: Union[uuid.UUID, str], timestamp: int) -> str:
        """The base64 DER ECDSA signature; ``timestamp`` in Unix milliseconds."""
        return _signed(self._key, _offer_v1, _s(product_identifier, "product_identifier"),
                               _s(subscription_offer_id, "subscription_offer_id"),
                               _s(application_username, "application_username"), _s(str(nonce), "nonce"), int(timestamp))


class _JWSSignatureCreator:
    def __init__(self, signing_key: bytes, key_id: str, issuer_id: str, bundle_id: str) -> None:
        self._key = SigningKey(signing_key, key_id, bundle_id, issuer_id)


class PromotionalOfferV2SignatureCreator(_JWSSignatureCreator):
    """Apple's ``PromotionalOfferV2SignatureCreator``."""

    def create_signature(self, product_id: str, offer_identifier: str, transaction_id: Optional[str]) -> str:
        if product_id is None or offer_identifier is None:
            raise ValueError("product_id and offer_identifier cannot be null")
        return _signed(self._key, _offer_v2, _s(product_id, "product_id"), _s(offer_identifier, "offer_identifier"),
                               _s(transaction_id, "transaction_id"))


class IntroductoryOfferEligibilitySignatureCreator(_JWSSignatureCreator):
    """Apple's ``IntroductoryOfferEligibilitySignatureCreator``."""

    def create_signature(self, product_id: str, allow_introductory_offer: bool, transaction_id: str) -> str:
        if product_id is None or allow_introductory_offer is None or transaction_id is None:
            raise ValueError("product_id, allow_introductory_offer and transaction_id cannot be null")
        return _signed(self._key, _intro, _s(product_id, "product_id"), 1 if allow_introductory_offer else 0,
                               _s(transaction_id, "transaction_id"))




class AdvancedCommerceAPIInAppSignatureCreator(_JWSSignatureCreator):
    """Apple's ``AdvancedCommerceAPIInAppSignatureCreator``: the request is a dict, or a model
    object (dataclass, attrs class — Apple's own models are attrs classes)."""

    def create_signature(self, advanced_commerce_in_app_request: Any) -> str:
        if advanced_commerce_in_app_request is None:
            raise ValueError("advanced_commerce_in_app_request cannot be null")
        request = json.dumps(_plain(advanced_commerce_in_app_request))
        return _signed(self._key, _commerce, _s(request, "request"))


class APIToken:
    """The App Store Server API bearer token (ES256 JWT), reused until near expiry."""

    def __init__(self, signing_key: bytes, key_id: str, issuer_id: str, bundle_id: str, lifetime: int = 300) -> None:
        self._key = SigningKey(signing_key, key_id, bundle_id, issuer_id)
        self.lifetime = lifetime

    def token(self) -> str:
        return _signed(self._key, _token, int(self.lifetime))


class ReceiptUtility:
    """Apple's ``ReceiptUtility``: transaction ids read WITHOUT validation — for calling the App
    Store Server API only, never for an entitlement decision."""

    def extract_transaction_id_from_app_receipt(self, app_receipt: Union[str, bytes]) -> Optional[str]:
        """The first in-app purchase's transaction id; None when there is none. Malformed input
        raises ValueError (MalformedReceiptError), as Apple's does."""
        raw = app_receipt.encode("ascii") if isinstance(app_receipt, str) else bytes(app_receipt)
        out = ctypes.c_void_p()
        found = check(_receipt_id(ctypes.byref(out), raw, len(raw)))
        return _native.take_string(out) if found else None

    def extract_transaction_id_from_transaction_receipt(self, transaction_receipt: str) -> Optional[str]:
        """The transaction-id of a legacy transaction receipt; None when it names none."""
        out = ctypes.c_void_p()
        found = check(_legacy_id(ctypes.byref(out), _s(transaction_receipt, "transaction_receipt")))
        return _native.take_string(out) if found else None
