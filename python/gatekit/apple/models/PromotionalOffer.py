"""``appstoreserverlibrary.models.PromotionalOffer`` at Apple's path."""
from ...retention_models import PromotionalOffer

__all__ = ["PromotionalOffer"]
