"""``appstoreserverlibrary.models.AppTransactionInfoResponse`` at Apple's path."""
from ...api_models import AppTransactionInfoResponse

__all__ = ["AppTransactionInfoResponse"]
