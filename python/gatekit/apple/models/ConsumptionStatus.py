"""``appstoreserverlibrary.models.ConsumptionStatus`` at Apple's path."""
from ...apple_enums import ConsumptionStatus

__all__ = ["ConsumptionStatus"]
