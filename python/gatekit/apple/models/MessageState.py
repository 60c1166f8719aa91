"""``appstoreserverlibrary.models.MessageState`` at Apple's path."""
from ...apple_enums import MessageState

__all__ = ["MessageState"]
