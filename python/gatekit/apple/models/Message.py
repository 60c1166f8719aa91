"""``appstoreserverlibrary.models.Message`` at Apple's path."""
from ...retention_models import Message

__all__ = ["Message"]
