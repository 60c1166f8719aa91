"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionMigrateRequest`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionMigrateRequest

__all__ = ["AdvancedCommerceSubscriptionMigrateRequest"]
