"""``appstoreserverlibrary.models.TransactionReason`` at Apple's path."""
from ...apple_enums import TransactionReason

__all__ = ["TransactionReason"]
