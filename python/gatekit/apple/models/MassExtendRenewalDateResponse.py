"""``appstoreserverlibrary.models.MassExtendRenewalDateResponse`` at Apple's path."""
from ...api_models import MassExtendRenewalDateResponse

__all__ = ["MassExtendRenewalDateResponse"]
