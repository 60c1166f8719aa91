"""``appstoreserverlibrary.models.AccountTenure`` at Apple's path."""
from ...apple_enums import AccountTenure

__all__ = ["AccountTenure"]
