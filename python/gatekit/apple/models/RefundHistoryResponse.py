"""``appstoreserverlibrary.models.RefundHistoryResponse`` at Apple's path."""
from ...api_models import RefundHistoryResponse

__all__ = ["RefundHistoryResponse"]
