"""``appstoreserverlibrary.models.StatusResponse`` at Apple's path."""
from ...api_models import StatusResponse

__all__ = ["StatusResponse"]
