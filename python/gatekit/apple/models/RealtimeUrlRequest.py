"""``appstoreserverlibrary.models.RealtimeUrlRequest`` at Apple's path."""
from ...api_models import RealtimeUrlRequest

__all__ = ["RealtimeUrlRequest"]
