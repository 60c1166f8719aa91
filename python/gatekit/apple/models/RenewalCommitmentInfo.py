"""``appstoreserverlibrary.models.RenewalCommitmentInfo`` at Apple's path."""
from ...payload_models import RenewalCommitmentInfo

__all__ = ["RenewalCommitmentInfo"]
