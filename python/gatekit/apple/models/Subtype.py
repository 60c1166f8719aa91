"""``appstoreserverlibrary.models.Subtype`` at Apple's path."""
from ...apple_enums import Subtype

__all__ = ["Subtype"]
