"""Apple's App Store Server Library, by Apple's names and with Apple's constructors, made by
libgatekit: migrating is a change of imports.

    from appstoreserverlibrary.api_client import AppStoreServerAPIClient, APIException
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
    # becomes
    from gatekit.apple import AppStoreServerAPIClient, APIException, SignedDataVerifier, VerificationException

What differs, on purpose: ``SignedDataVerifier`` trusts Apple Root CA - G3 pinned in the library
(Apple's roots among ``root_certificates`` are recognised by fingerprint; any other certificate
is a *test* root, and what it signs is marked test-signed and never passes as Production);
verification is offline, so ``enable_online_checks=True`` is an error rather than a silent
downgrade; path arguments are percent-encoded; signed answers can be verified by the client
(its ``verifier=`` keyword).
"""
from __future__ import annotations

import hashlib
from typing import List, Optional, Union

from .. import jws
from . import api_client
from .api_client import *  # noqa: F401,F403  (the clients, their errors, Apple's request and response models)
from .api_client import Environment
from ..appstore import (AdvancedCommerceAPIInAppSignatureCreator, IntroductoryOfferEligibilitySignatureCreator,
                       PromotionalOfferSignatureCreator, PromotionalOfferV2SignatureCreator, ReceiptUtility)
from ..jws import SignedDataError, VerificationStatus
from ..payload_models import (AppTransaction, DecodedRealtimeRequestBody, JWSRenewalInfoDecodedPayload,
                              JWSTransactionDecodedPayload, ResponseBodyV2DecodedPayload)

__all__ = ["AdvancedCommerceAPIInAppSignatureCreator", "IntroductoryOfferEligibilitySignatureCreator",
           "PromotionalOfferSignatureCreator", "PromotionalOfferV2SignatureCreator", "ReceiptUtility", "SignedDataVerifier",
           "VerificationException", "VerificationStatus"]
__all__ += api_client.__all__

#: Apple's ``VerificationException``: every verification failure (``.status`` is Apple's status).
VerificationException = SignedDataError

#: SHA-256 of Apple's root certificates (Apple Root CA, - G2, - G3), as Apple publishes them.
APPLE_ROOTS = {
    "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024": "Apple Root CA",
    "c2b9b042dd57830e7d117dac55ac8ae19407d38e41d88f3215bc3a890444a050": "Apple Root CA - G2",
    "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179": "Apple Root CA - G3",
}


class SignedDataVerifier(jws.SignedDataVerifier):
    """Apple's ``SignedDataVerifier(root_certificates, enable_online_checks, environment,
    bundle_id, app_apple_id=None)``; ``verify_and_decode_*`` as Apple's (module docstring)."""

    def __init__(self, root_certificates: List[bytes], enable_online_checks: bool, environment: Union[Environment, str],
                 bundle_id: str, app_apple_id: Optional[int] = None) -> None:
        if enable_online_checks:
            raise ValueError("enable_online_checks=True: GateKit verifies signed data offline (no OCSP); pass False")
        roots = [bytes(r) for r in root_certificates]
        if not roots:
            raise ValueError("root_certificates is empty: nothing could ever verify")
        names = {APPLE_ROOTS.get(hashlib.sha256(r).hexdigest()) for r in roots}
        others = [r for r in roots if hashlib.sha256(r).hexdigest() not in APPLE_ROOTS]
        if len(others) > 1:
            raise ValueError(f"{len(others)} certificates that are not Apple's roots: GateKit trusts one test root at a time")
        if not others and "Apple Root CA - G3" not in names:
            raise ValueError("App Store signed data chains to Apple Root CA - G3, which root_certificates lacks")
        env = Environment(environment)
        if env in (Environment.XCODE, Environment.LOCAL_TESTING):
            # Apple's verifier reads these environments' data without checking its signature
            # (the App Store never signs it); so does this one, marking the result test-signed.
            super().__init__(bundle_id, env.value, app_apple_id, None, unsigned_local=True)
        else:
            super().__init__(bundle_id, env.value, app_apple_id, others[0] if others else None)

    # Apple's methods return Apple's models, built from the payload libgatekit verified.
    def verify_and_decode_signed_transaction(self, signed_transaction: str) -> JWSTransactionDecodedPayload:  # type: ignore[override]
        return JWSTransactionDecodedPayload.from_json(self.verify_json("transaction", signed_transaction))

    def verify_and_decode_renewal_info(self, signed_renewal_info: str) -> JWSRenewalInfoDecodedPayload:  # type: ignore[override]
        return JWSRenewalInfoDecodedPayload.from_json(self.verify_json("renewal-info", signed_renewal_info))

    def verify_and_decode_notification(self, signed_payload: str) -> ResponseBodyV2DecodedPayload:  # type: ignore[override]
        return ResponseBodyV2DecodedPayload.from_json(self.verify_json("notification", signed_payload))

    def verify_and_decode_app_transaction(self, signed_app_transaction: str) -> AppTransaction:  # type: ignore[override]
        return AppTransaction.from_json(self.verify_json("app-transaction", signed_app_transaction))

    def verify_and_decode_realtime_request(self, signed_payload: str) -> DecodedRealtimeRequestBody:  # type: ignore[override]
        return DecodedRealtimeRequestBody.from_json(self.verify_json("realtime-request", signed_payload))
