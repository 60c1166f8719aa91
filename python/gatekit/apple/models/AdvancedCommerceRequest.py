"""``appstoreserverlibrary.models.AdvancedCommerceRequest`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceRequest

__all__ = ["AdvancedCommerceRequest"]
