"""``appstoreserverlibrary.models.AdvancedCommerceRenewalItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceRenewalItem

__all__ = ["AdvancedCommerceRenewalItem"]
