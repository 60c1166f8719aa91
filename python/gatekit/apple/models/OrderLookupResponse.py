"""``appstoreserverlibrary.models.OrderLookupResponse`` at Apple's path."""
from ...api_models import OrderLookupResponse

__all__ = ["OrderLookupResponse"]
