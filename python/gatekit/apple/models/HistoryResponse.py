"""``appstoreserverlibrary.models.HistoryResponse`` at Apple's path."""
from ...api_models import HistoryResponse

__all__ = ["HistoryResponse"]
