"""``appstoreserverlibrary.signed_data_verifier`` at Apple's path."""
from . import SignedDataVerifier, VerificationException, VerificationStatus

__all__ = ["SignedDataVerifier", "VerificationException", "VerificationStatus"]
