"""``appstoreserverlibrary.models.PurchasePlatform`` at Apple's path."""
from ...apple_enums import PurchasePlatform

__all__ = ["PurchasePlatform"]
