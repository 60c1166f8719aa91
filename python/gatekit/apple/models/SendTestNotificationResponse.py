"""``appstoreserverlibrary.models.SendTestNotificationResponse`` at Apple's path."""
from ...api_models import SendTestNotificationResponse

__all__ = ["SendTestNotificationResponse"]
