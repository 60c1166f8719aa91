"""``appstoreserverlibrary.models.TransactionInfoResponse`` at Apple's path."""
from ...api_models import TransactionInfoResponse

__all__ = ["TransactionInfoResponse"]
