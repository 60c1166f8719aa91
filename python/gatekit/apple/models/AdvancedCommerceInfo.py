"""``appstoreserverlibrary.models.AdvancedCommerceInfo`` at Apple's path."""
from ...retention_models import AdvancedCommerceInfo

__all__ = ["AdvancedCommerceInfo"]
