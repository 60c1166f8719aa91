"""``appstoreserverlibrary.models.AdvancedCommerceOfferPeriod`` at Apple's path."""
from ...apple_enums import AdvancedCommerceOfferPeriod

__all__ = ["AdvancedCommerceOfferPeriod"]
