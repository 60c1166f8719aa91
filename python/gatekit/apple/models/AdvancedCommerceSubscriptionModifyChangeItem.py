"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionModifyChangeItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionModifyChangeItem

__all__ = ["AdvancedCommerceSubscriptionModifyChangeItem"]
