"""``appstoreserverlibrary.models.SubscriptionGroupIdentifierItem`` at Apple's path."""
from ...api_models import SubscriptionGroupIdentifierItem

__all__ = ["SubscriptionGroupIdentifierItem"]
