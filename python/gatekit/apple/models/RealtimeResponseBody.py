"""``appstoreserverlibrary.models.RealtimeResponseBody`` at Apple's path."""
from ...retention_models import RealtimeResponseBody

__all__ = ["RealtimeResponseBody"]
