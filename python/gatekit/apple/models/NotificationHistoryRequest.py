"""``appstoreserverlibrary.models.NotificationHistoryRequest`` at Apple's path (with the
enumerations Apple's module also names)."""
from ...api_models import NotificationHistoryRequest
from ...apple_enums import NotificationTypeV2, Subtype

__all__ = ["NotificationHistoryRequest", "NotificationTypeV2", "Subtype"]
