"""``appstoreserverlibrary.models.ExternalPurchaseToken`` at Apple's path."""
from ...payload_models import ExternalPurchaseToken

__all__ = ["ExternalPurchaseToken"]
