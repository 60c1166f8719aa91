"""``appstoreserverlibrary.models.AdvancedCommercePeriod`` at Apple's path."""
from ...apple_enums import AdvancedCommercePeriod

__all__ = ["AdvancedCommercePeriod"]
