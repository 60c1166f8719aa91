"""``appstoreserverlibrary.models.MassExtendRenewalDateStatusResponse`` at Apple's path."""
from ...api_models import MassExtendRenewalDateStatusResponse

__all__ = ["MassExtendRenewalDateStatusResponse"]
