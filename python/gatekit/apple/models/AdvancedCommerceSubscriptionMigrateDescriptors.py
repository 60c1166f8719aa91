"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionMigrateDescriptors`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionMigrateDescriptors

__all__ = ["AdvancedCommerceSubscriptionMigrateDescriptors"]
