"""``appstoreserverlibrary.models.PlayTime`` at Apple's path."""
from ...apple_enums import PlayTime

__all__ = ["PlayTime"]
