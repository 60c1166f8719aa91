"""``appstoreserverlibrary.models.JWSTransactionDecodedPayload`` at Apple's path."""
from ...payload_models import JWSTransactionDecodedPayload

__all__ = ["JWSTransactionDecodedPayload"]
