"""``appstoreserverlibrary.models.AdvancedCommerceOffer`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceOffer

__all__ = ["AdvancedCommerceOffer"]
