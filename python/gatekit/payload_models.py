"""Apple's decoded payload models (appstoreserverlibrary.models.JWSTransactionDecodedPayload,
ResponseBodyV2DecodedPayload, AppTransaction, …): what ``gatekit.apple.SignedDataVerifier``
returns, built from the payload libgatekit verified, with the semantics of every GateKit model
(gatekit._model). GateKit's own verifier (gatekit.jws) returns its richer typed classes.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import List, Optional

from ._model import Model, in_range
from .advanced_commerce import AdvancedCommerceRenewalInfo, AdvancedCommerceTransactionInfo
from .apple_enums import (AutoRenewStatus, BillingPlanType, ConsumptionRequestReason, Environment, ExpirationIntent,
                          InAppOwnershipType, NotificationTypeV2, OfferDiscountType, OfferType, PriceIncreaseStatus,
                          PurchasePlatform, RenewalBillingPlanType, RevocationReason, RevocationType, Status, Subtype,
                          TransactionReason, Type)

__all__ = ["TransactionCommitmentInfo", "RenewalCommitmentInfo", "JWSTransactionDecodedPayload", "JWSRenewalInfoDecodedPayload", "AppTransaction", "Data", "Summary", "ExternalPurchaseToken", "AppData", "ResponseBodyV2DecodedPayload", "ResponseBodyV2", "DecodedRealtimeRequestBody", "RealtimeRequestBody"]

UUID = uuid.UUID


@dataclass(eq=True)
class TransactionCommitmentInfo(Model):
    billingPeriodNumber: Optional[int] = None
    commitmentExpiresDate: Optional[int] = None
    commitmentPrice: Optional[int] = None
    totalBillingPeriods: Optional[int] = None
    _checks = {"billingPeriodNumber": in_range(1, 12, "billingPeriodNumber")}


@dataclass(eq=True)
class RenewalCommitmentInfo(Model):
    commitmentAutoRenewProductId: Optional[str] = None
    commitmentAutoRenewStatus: Optional[AutoRenewStatus] = None
    rawCommitmentAutoRenewStatus: Optional[int] = None
    commitmentRenewalBillingPlanType: Optional[RenewalBillingPlanType] = None
    rawCommitmentRenewalBillingPlanType: Optional[str] = None
    commitmentRenewalDate: Optional[int] = None
    commitmentRenewalPrice: Optional[int] = None
    _enums = {"commitmentAutoRenewStatus": AutoRenewStatus, "commitmentRenewalBillingPlanType": RenewalBillingPlanType}


@dataclass(eq=True)
class JWSTransactionDecodedPayload(Model):
    originalTransactionId: Optional[str] = None
    transactionId: Optional[str] = None
    webOrderLineItemId: Optional[str] = None
    bundleId: Optional[str] = None
    productId: Optional[str] = None
    subscriptionGroupIdentifier: Optional[str] = None
    purchaseDate: Optional[int] = None
    originalPurchaseDate: Optional[int] = None
    expiresDate: Optional[int] = None
    quantity: Optional[int] = None
    type: Optional[Type] = None
    rawType: Optional[str] = None
    appAccountToken: Optional[str] = None
    inAppOwnershipType: Optional[InAppOwnershipType] = None
    rawInAppOwnershipType: Optional[str] = None
    signedDate: Optional[int] = None
    revocationReason: Optional[RevocationReason] = None
    rawRevocationReason: Optional[int] = None
    revocationDate: Optional[int] = None
    isUpgraded: Optional[bool] = None
    offerType: Optional[OfferType] = None
    rawOfferType: Optional[int] = None
    offerIdentifier: Optional[str] = None
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    storefront: Optional[str] = None
    storefrontId: Optional[str] = None
    transactionReason: Optional[TransactionReason] = None
    rawTransactionReason: Optional[str] = None
    currency: Optional[str] = None
    price: Optional[int] = None
    offerDiscountType: Optional[OfferDiscountType] = None
    rawOfferDiscountType: Optional[str] = None
    appTransactionId: Optional[str] = None
    offerPeriod: Optional[str] = None
    revocationType: Optional[RevocationType] = None
    rawRevocationType: Optional[str] = None
    revocationPercentage: Optional[int] = None
    advancedCommerceInfo: Optional[AdvancedCommerceTransactionInfo] = None
    billingPlanType: Optional[BillingPlanType] = None
    rawBillingPlanType: Optional[str] = None
    commitmentInfo: Optional[TransactionCommitmentInfo] = None
    _enums = {"type": Type, "inAppOwnershipType": InAppOwnershipType, "revocationReason": RevocationReason, "offerType": OfferType, "environment": Environment, "transactionReason": TransactionReason, "offerDiscountType": OfferDiscountType, "revocationType": RevocationType, "billingPlanType": BillingPlanType}


@dataclass(eq=True)
class JWSRenewalInfoDecodedPayload(Model):
    expirationIntent: Optional[ExpirationIntent] = None
    rawExpirationIntent: Optional[int] = None
    originalTransactionId: Optional[str] = None
    autoRenewProductId: Optional[str] = None
    productId: Optional[str] = None
    autoRenewStatus: Optional[AutoRenewStatus] = None
    rawAutoRenewStatus: Optional[int] = None
    isInBillingRetryPeriod: Optional[bool] = None
    priceIncreaseStatus: Optional[PriceIncreaseStatus] = None
    rawPriceIncreaseStatus: Optional[int] = None
    gracePeriodExpiresDate: Optional[int] = None
    offerType: Optional[OfferType] = None
    rawOfferType: Optional[int] = None
    offerIdentifier: Optional[str] = None
    signedDate: Optional[int] = None
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    recentSubscriptionStartDate: Optional[int] = None
    renewalDate: Optional[int] = None
    currency: Optional[str] = None
    renewalPrice: Optional[int] = None
    offerDiscountType: Optional[OfferDiscountType] = None
    rawOfferDiscountType: Optional[str] = None
    eligibleWinBackOfferIds: Optional[List[str]] = None
    appAccountToken: Optional[str] = None
    appTransactionId: Optional[str] = None
    offerPeriod: Optional[str] = None
    advancedCommerceInfo: Optional[AdvancedCommerceRenewalInfo] = None
    commitmentInfo: Optional[RenewalCommitmentInfo] = None
    renewalBillingPlanType: Optional[RenewalBillingPlanType] = None
    rawRenewalBillingPlanType: Optional[str] = None
    _enums = {"expirationIntent": ExpirationIntent, "autoRenewStatus": AutoRenewStatus, "priceIncreaseStatus": PriceIncreaseStatus, "offerType": OfferType, "environment": Environment, "offerDiscountType": OfferDiscountType, "renewalBillingPlanType": RenewalBillingPlanType}


@dataclass(eq=True)
class AppTransaction(Model):
    receiptType: Optional[Environment] = None
    rawReceiptType: Optional[str] = None
    appAppleId: Optional[int] = None
    bundleId: Optional[str] = None
    applicationVersion: Optional[str] = None
    versionExternalIdentifier: Optional[int] = None
    receiptCreationDate: Optional[int] = None
    originalPurchaseDate: Optional[int] = None
    originalApplicationVersion: Optional[str] = None
    deviceVerification: Optional[str] = None
    deviceVerificationNonce: Optional[str] = None
    preorderDate: Optional[int] = None
    appTransactionId: Optional[str] = None
    originalPlatform: Optional[PurchasePlatform] = None
    rawOriginalPlatform: Optional[str] = None
    _enums = {"receiptType": Environment, "originalPlatform": PurchasePlatform}


@dataclass(eq=True)
class Data(Model):
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    appAppleId: Optional[int] = None
    bundleId: Optional[str] = None
    bundleVersion: Optional[str] = None
    signedTransactionInfo: Optional[str] = None
    signedRenewalInfo: Optional[str] = None
    status: Optional[Status] = None
    rawStatus: Optional[int] = None
    consumptionRequestReason: Optional[ConsumptionRequestReason] = None
    rawConsumptionRequestReason: Optional[str] = None
    _enums = {"environment": Environment, "status": Status, "consumptionRequestReason": ConsumptionRequestReason}


@dataclass(eq=True)
class Summary(Model):
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    appAppleId: Optional[int] = None
    bundleId: Optional[str] = None
    productId: Optional[str] = None
    requestIdentifier: Optional[str] = None
    storefrontCountryCodes: Optional[List[str]] = None
    succeededCount: Optional[int] = None
    failedCount: Optional[int] = None
    _enums = {"environment": Environment}


@dataclass(eq=True)
class ExternalPurchaseToken(Model):
    externalPurchaseId: Optional[str] = None
    tokenCreationDate: Optional[int] = None
    appAppleId: Optional[int] = None
    bundleId: Optional[str] = None


@dataclass(eq=True)
class AppData(Model):
    appAppleId: Optional[int] = None
    bundleId: Optional[str] = None
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    signedAppTransactionInfo: Optional[str] = None
    _enums = {"environment": Environment}


@dataclass(eq=True)
class ResponseBodyV2DecodedPayload(Model):
    notificationType: Optional[NotificationTypeV2] = None
    rawNotificationType: Optional[str] = None
    subtype: Optional[Subtype] = None
    rawSubtype: Optional[str] = None
    notificationUUID: Optional[str] = None
    data: Optional[Data] = None
    version: Optional[str] = None
    signedDate: Optional[int] = None
    summary: Optional[Summary] = None
    externalPurchaseToken: Optional[ExternalPurchaseToken] = None
    appData: Optional[AppData] = None
    _enums = {"notificationType": NotificationTypeV2, "subtype": Subtype}


@dataclass(eq=True)
class ResponseBodyV2(Model):
    signedPayload: Optional[str] = None


@dataclass(eq=True)
class DecodedRealtimeRequestBody(Model):
    originalTransactionId: Optional[str] = None
    appAppleId: Optional[int] = None
    productId: Optional[str] = None
    userLocale: Optional[str] = None
    requestIdentifier: Optional[UUID] = None
    signedDate: Optional[int] = None
    environment: Optional[Environment] = None
    rawEnvironment: Optional[str] = None
    _enums = {"environment": Environment}
    _required = ("originalTransactionId", "appAppleId", "productId", "userLocale", "requestIdentifier", "signedDate")
    _required_raw = ("rawEnvironment",)


@dataclass(eq=True)
class RealtimeRequestBody(Model):
    signedPayload: Optional[str] = None
