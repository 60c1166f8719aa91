"""``appstoreserverlibrary.models.RevocationReason`` at Apple's path."""
from ...apple_enums import RevocationReason

__all__ = ["RevocationReason"]
