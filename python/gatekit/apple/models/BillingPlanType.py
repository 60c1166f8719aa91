"""``appstoreserverlibrary.models.BillingPlanType`` at Apple's path."""
from ...apple_enums import BillingPlanType

__all__ = ["BillingPlanType"]
