"""``appstoreserverlibrary.models.LifetimeDollarsPurchased`` at Apple's path."""
from ...apple_enums import LifetimeDollarsPurchased

__all__ = ["LifetimeDollarsPurchased"]
