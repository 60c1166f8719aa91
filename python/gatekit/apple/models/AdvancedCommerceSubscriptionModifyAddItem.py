"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionModifyAddItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionModifyAddItem

__all__ = ["AdvancedCommerceSubscriptionModifyAddItem"]
