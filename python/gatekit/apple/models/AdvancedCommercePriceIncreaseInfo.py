"""``appstoreserverlibrary.models.AdvancedCommercePriceIncreaseInfo`` at Apple's path."""
from ...advanced_commerce import AdvancedCommercePriceIncreaseInfo

__all__ = ["AdvancedCommercePriceIncreaseInfo"]
