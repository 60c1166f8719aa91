"""``appstoreserverlibrary.models.AutoRenewStatus`` at Apple's path."""
from ...apple_enums import AutoRenewStatus

__all__ = ["AutoRenewStatus"]
