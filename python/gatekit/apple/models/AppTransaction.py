"""``appstoreserverlibrary.models.AppTransaction`` at Apple's path."""
from ...payload_models import AppTransaction

__all__ = ["AppTransaction"]
