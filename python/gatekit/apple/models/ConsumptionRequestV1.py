"""``appstoreserverlibrary.models.ConsumptionRequestV1`` at Apple's path."""
from ...api_models import ConsumptionRequestV1

__all__ = ["ConsumptionRequestV1"]
