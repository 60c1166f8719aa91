"""``appstoreserverlibrary.jws_signature_creator`` at Apple's path, with Apple's
``AdvancedCommerceAPIInAppRequest`` base class of what the Advanced Commerce creator signs."""
from ..advanced_commerce import AdvancedCommerceAPIInAppRequest
from ..appstore import (AdvancedCommerceAPIInAppSignatureCreator, IntroductoryOfferEligibilitySignatureCreator,
                        PromotionalOfferV2SignatureCreator)

__all__ = ["AdvancedCommerceAPIInAppRequest", "AdvancedCommerceAPIInAppSignatureCreator",
           "IntroductoryOfferEligibilitySignatureCreator", "PromotionalOfferV2SignatureCreator"]
