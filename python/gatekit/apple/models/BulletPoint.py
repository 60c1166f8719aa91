"""``appstoreserverlibrary.models.BulletPoint`` at Apple's path."""
from ...api_models import BulletPoint

__all__ = ["BulletPoint"]
