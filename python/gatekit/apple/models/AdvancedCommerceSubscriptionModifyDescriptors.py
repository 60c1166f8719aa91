"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionModifyDescriptors`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionModifyDescriptors

__all__ = ["AdvancedCommerceSubscriptionModifyDescriptors"]
