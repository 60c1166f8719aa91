"""``appstoreserverlibrary.models.TransactionCommitmentInfo`` at Apple's path."""
from ...payload_models import TransactionCommitmentInfo

__all__ = ["TransactionCommitmentInfo"]
