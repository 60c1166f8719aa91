"""``appstoreserverlibrary.models.LastTransactionsItem`` at Apple's path."""
from ...api_models import LastTransactionsItem

__all__ = ["LastTransactionsItem"]
