"""``appstoreserverlibrary.models.ExtendRenewalDateResponse`` at Apple's path."""
from ...api_models import ExtendRenewalDateResponse

__all__ = ["ExtendRenewalDateResponse"]
