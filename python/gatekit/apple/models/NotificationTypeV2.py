"""``appstoreserverlibrary.models.NotificationTypeV2`` at Apple's path."""
from ...apple_enums import NotificationTypeV2

__all__ = ["NotificationTypeV2"]
