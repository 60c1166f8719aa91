"""``appstoreserverlibrary.models.OfferDiscountType`` at Apple's path."""
from ...apple_enums import OfferDiscountType

__all__ = ["OfferDiscountType"]
