"""``appstoreserverlibrary.models.DeliveryStatus`` at Apple's path."""
from ...apple_enums import DeliveryStatus

__all__ = ["DeliveryStatus"]
