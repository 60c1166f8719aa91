"""``appstoreserverlibrary.models.AdvancedCommerceDescriptors`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceDescriptors

__all__ = ["AdvancedCommerceDescriptors"]
