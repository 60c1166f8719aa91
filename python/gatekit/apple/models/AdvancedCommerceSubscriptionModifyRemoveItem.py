"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionModifyRemoveItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionModifyRemoveItem

__all__ = ["AdvancedCommerceSubscriptionModifyRemoveItem"]
