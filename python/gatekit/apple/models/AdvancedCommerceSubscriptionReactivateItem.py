"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionReactivateItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionReactivateItem

__all__ = ["AdvancedCommerceSubscriptionReactivateItem"]
