"""``appstoreserverlibrary.models.NotificationHistoryResponseItem`` at Apple's path."""
from ...api_models import NotificationHistoryResponseItem

__all__ = ["NotificationHistoryResponseItem"]
