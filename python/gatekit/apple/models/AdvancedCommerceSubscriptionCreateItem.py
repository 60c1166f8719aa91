"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionCreateItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionCreateItem

__all__ = ["AdvancedCommerceSubscriptionCreateItem"]
