"""``appstoreserverlibrary.models.JWSRenewalInfoDecodedPayload`` at Apple's path."""
from ...payload_models import JWSRenewalInfoDecodedPayload

__all__ = ["JWSRenewalInfoDecodedPayload"]
