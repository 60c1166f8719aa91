"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionMigrateItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionMigrateItem

__all__ = ["AdvancedCommerceSubscriptionMigrateItem"]
