"""``appstoreserverlibrary.models.MassExtendRenewalDateRequest`` at Apple's path."""
from ...api_models import MassExtendRenewalDateRequest

__all__ = ["MassExtendRenewalDateRequest"]
