"""``appstoreserverlibrary.models.PromotionalOfferSignatureV1`` at Apple's path."""
from ...retention_models import PromotionalOfferSignatureV1

__all__ = ["PromotionalOfferSignatureV1"]
