"""``appstoreserverlibrary.models.DecodedRealtimeRequestBody`` at Apple's path."""
from ...payload_models import DecodedRealtimeRequestBody

__all__ = ["DecodedRealtimeRequestBody"]
