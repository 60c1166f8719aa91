"""``appstoreserverlibrary.models.AdvancedCommerceEffective`` at Apple's path."""
from ...apple_enums import AdvancedCommerceEffective

__all__ = ["AdvancedCommerceEffective"]
