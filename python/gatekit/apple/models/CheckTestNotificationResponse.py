"""``appstoreserverlibrary.models.CheckTestNotificationResponse`` at Apple's path."""
from ...api_models import CheckTestNotificationResponse

__all__ = ["CheckTestNotificationResponse"]
