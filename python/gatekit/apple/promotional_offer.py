"""``appstoreserverlibrary.promotional_offer`` at Apple's path."""
from ..appstore import PromotionalOfferSignatureCreator

__all__ = ["PromotionalOfferSignatureCreator"]
