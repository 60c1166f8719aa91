"""``appstoreserverlibrary.models.AdvancedCommerceOfferReason`` at Apple's path."""
from ...apple_enums import AdvancedCommerceOfferReason

__all__ = ["AdvancedCommerceOfferReason"]
