"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionMigrateRenewalItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionMigrateRenewalItem

__all__ = ["AdvancedCommerceSubscriptionMigrateRenewalItem"]
