"""``appstoreserverlibrary.models.AdvancedCommerceOneTimeChargeItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceOneTimeChargeItem

__all__ = ["AdvancedCommerceOneTimeChargeItem"]
