"""``appstoreserverlibrary.models.DeliveryStatusV1`` at Apple's path."""
from ...apple_enums import DeliveryStatusV1

__all__ = ["DeliveryStatusV1"]
