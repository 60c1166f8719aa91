"""``appstoreserverlibrary.models.AppData`` at Apple's path."""
from ...payload_models import AppData

__all__ = ["AppData"]
