"""``appstoreserverlibrary.models.RealtimeRequestBody`` at Apple's path."""
from ...payload_models import RealtimeRequestBody

__all__ = ["RealtimeRequestBody"]
