"""``appstoreserverlibrary.models.OrderLookupStatus`` at Apple's path."""
from ...api_models import OrderLookupStatus

__all__ = ["OrderLookupStatus"]
