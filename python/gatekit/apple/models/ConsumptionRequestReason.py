"""``appstoreserverlibrary.models.ConsumptionRequestReason`` at Apple's path."""
from ...apple_enums import ConsumptionRequestReason

__all__ = ["ConsumptionRequestReason"]
