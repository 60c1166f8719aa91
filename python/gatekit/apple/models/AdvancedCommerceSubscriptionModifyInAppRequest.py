"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionModifyInAppRequest`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionModifyInAppRequest

__all__ = ["AdvancedCommerceSubscriptionModifyInAppRequest"]
