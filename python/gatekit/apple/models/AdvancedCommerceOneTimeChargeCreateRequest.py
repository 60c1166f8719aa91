"""``appstoreserverlibrary.models.AdvancedCommerceOneTimeChargeCreateRequest`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceOneTimeChargeCreateRequest

__all__ = ["AdvancedCommerceOneTimeChargeCreateRequest"]
