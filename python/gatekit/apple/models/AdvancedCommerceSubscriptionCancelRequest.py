"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionCancelRequest`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionCancelRequest

__all__ = ["AdvancedCommerceSubscriptionCancelRequest"]
