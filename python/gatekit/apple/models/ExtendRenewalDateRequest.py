"""``appstoreserverlibrary.models.ExtendRenewalDateRequest`` at Apple's path."""
from ...api_models import ExtendRenewalDateRequest

__all__ = ["ExtendRenewalDateRequest"]
