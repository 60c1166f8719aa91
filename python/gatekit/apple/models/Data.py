"""``appstoreserverlibrary.models.Data`` at Apple's path."""
from ...payload_models import Data

__all__ = ["Data"]
