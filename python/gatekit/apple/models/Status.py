"""``appstoreserverlibrary.models.Status`` at Apple's path."""
from ...apple_enums import Status

__all__ = ["Status"]
