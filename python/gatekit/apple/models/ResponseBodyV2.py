"""``appstoreserverlibrary.models.ResponseBodyV2`` at Apple's path."""
from ...payload_models import ResponseBodyV2

__all__ = ["ResponseBodyV2"]
