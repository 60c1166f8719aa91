"""``appstoreserverlibrary.models.AdvancedCommercePriceIncreaseInfoStatus`` at Apple's path."""
from ...apple_enums import AdvancedCommercePriceIncreaseInfoStatus

__all__ = ["AdvancedCommercePriceIncreaseInfoStatus"]
