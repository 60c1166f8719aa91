"""``appstoreserverlibrary.models.NotificationHistoryResponse`` at Apple's path."""
from ...api_models import NotificationHistoryResponse

__all__ = ["NotificationHistoryResponse"]
