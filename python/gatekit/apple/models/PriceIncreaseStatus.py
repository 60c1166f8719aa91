"""``appstoreserverlibrary.models.PriceIncreaseStatus`` at Apple's path."""
from ...apple_enums import PriceIncreaseStatus

__all__ = ["PriceIncreaseStatus"]
