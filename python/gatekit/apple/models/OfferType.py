"""``appstoreserverlibrary.models.OfferType`` at Apple's path."""
from ...apple_enums import OfferType

__all__ = ["OfferType"]
