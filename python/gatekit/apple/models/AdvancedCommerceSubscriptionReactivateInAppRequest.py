"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionReactivateInAppRequest`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionReactivateInAppRequest

__all__ = ["AdvancedCommerceSubscriptionReactivateInAppRequest"]
