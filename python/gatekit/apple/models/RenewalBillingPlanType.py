"""``appstoreserverlibrary.models.RenewalBillingPlanType`` at Apple's path."""
from ...apple_enums import RenewalBillingPlanType

__all__ = ["RenewalBillingPlanType"]
