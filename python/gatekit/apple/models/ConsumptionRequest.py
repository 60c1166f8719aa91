"""``appstoreserverlibrary.models.ConsumptionRequest`` at Apple's path."""
from ...api_models import ConsumptionRequest

__all__ = ["ConsumptionRequest"]
