"""``appstoreserverlibrary.models.RealtimeUrlResponse`` at Apple's path."""
from ...api_models import RealtimeUrlResponse

__all__ = ["RealtimeUrlResponse"]
