"""``appstoreserverlibrary.models.ResponseBodyV2DecodedPayload`` at Apple's path."""
from ...payload_models import ResponseBodyV2DecodedPayload

__all__ = ["ResponseBodyV2DecodedPayload"]
