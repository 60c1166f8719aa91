"""``appstoreserverlibrary.jws_signature_creator`` at Apple's path (Apple's
``AdvancedCommerceAPIInAppRequest`` base class is not here yet: issue 27)."""
from ..appstore import (AdvancedCommerceAPIInAppSignatureCreator, IntroductoryOfferEligibilitySignatureCreator,
                        PromotionalOfferV2SignatureCreator)

__all__ = ["AdvancedCommerceAPIInAppSignatureCreator", "IntroductoryOfferEligibilitySignatureCreator",
           "PromotionalOfferV2SignatureCreator"]
