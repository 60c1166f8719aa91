"""``appstoreserverlibrary.models.InAppOwnershipType`` at Apple's path."""
from ...apple_enums import InAppOwnershipType

__all__ = ["InAppOwnershipType"]
