import GateKitLedger

/// The names teams give what happened to a purchase (docs/webhooks.md, "Events"), read from a
/// change of the feed: the answer its purchase's product gave before and gives after, and the
/// store's versions of the purchase around it. The same names for every store.
public enum BusinessEvent: String, CaseIterable, Sendable {
    case initialPurchase = "initial_purchase"
    case trialStarted = "trial_started"
    case nonRenewingPurchase = "non_renewing_purchase"
    case nonConsumablePurchase = "non_consumable_purchase"
    case renewal
    case trialConverted = "trial_converted"
    case trialExpired = "trial_expired"
    case expiration
    case gracePeriodStarted = "grace_period_started"
    case billingIssue = "billing_issue"
    case gracePeriodExpired = "grace_period_expired"
    case billingRecovered = "billing_recovered"
    case subscriptionPaused = "subscription_paused"
    case subscriptionResumed = "subscription_resumed"
    case productChange = "product_change"
    case refund
    case refundReversed = "refund_reversed"
    case purchasePending = "purchase_pending"
    /// Support gave an entitlement by hand (a grant: the store "grant").
    case grantGiven = "grant_given"
    /// A grant revoked before its end.
    case grantRevoked = "grant_revoked"
    /// Auto-renew turned off: access lasts to the end of the period, then stops.
    case cancellation
    /// Auto-renew turned on again before the period ended.
    case uncancellation
    /// The purchase moved to another app account (the host linked it there); access unchanged.
    case transfer
    /// Any other change of the answer (a period shortened, a purchase the catalog names anew).
    case entitlementChanged = "entitlement_changed"

    /// What the feed's rows say around one change.
    struct Facts {
        /// The product's answer before the change (nil: the first change of it).
        var before: (entitled: Bool, reason: Entitlement.Reason, untilMs: Int64?)?
        var after: (entitled: Bool, reason: Entitlement.Reason, untilMs: Int64?)
        /// Whether the subscription renews, before and after (nil: not said, or not recorded).
        var willRenewBefore: Bool? = nil
        var willRenewAfter: Bool? = nil
        /// The purchase had changes of another product before (a plan changed).
        var otherProductBefore: Bool
        /// The purchase is no sale: an entitlement support gave by hand (a grant).
        var isGrant = false
        /// The change records a transfer between app accounts, not a new answer.
        var isTransfer = false
        /// Whether the period the answer ends with, and the one before it, were free trials.
        var trialNow: Bool
        var trialBefore: Bool
    }

    static func of(_ f: Facts) -> BusinessEvent {
        let after = f.after
        if f.isTransfer { return .transfer }
        if f.isGrant {
            if after.reason == .revoked { return .grantRevoked }
            if after.entitled, !(f.before?.entitled ?? false) { return .grantGiven }
        }
        // The same answer but for auto-renew: the customer changed their mind.
        if let before = f.before, before.entitled, after.entitled, before.reason == after.reason, before.untilMs == after.untilMs,
           let was = f.willRenewBefore, let now = f.willRenewAfter, was != now {
            return now ? .uncancellation : .cancellation
        }
        switch after.reason {
        case .upgraded: return .productChange
        case .revoked: return .refund
        case .paused: return .subscriptionPaused
        case .pending: return .purchasePending
        case .gracePeriod: return f.before?.reason == .gracePeriod ? .entitlementChanged : .gracePeriodStarted
        case .billingRetry:
            switch f.before?.reason {
            case .gracePeriod?: return .gracePeriodExpired
            case .billingRetry?: return .entitlementChanged
            default: return .billingIssue
            }
        case .expired: return f.trialNow ? .trialExpired : .expiration
        default: break
        }
        guard after.entitled else { return .entitlementChanged }
        guard let before = f.before else {
            if f.otherProductBefore { return .productChange }
            switch after.reason {
            case .nonRenewing: return .nonRenewingPurchase
            case .nonConsumable: return .nonConsumablePurchase
            default: return f.trialNow ? .trialStarted : .initialPurchase
            }
        }
        switch before.reason {
        case .revoked: return .refundReversed
        case .paused: return .subscriptionResumed
        case .gracePeriod, .billingRetry: return .billingRecovered
        case .noPurchase, .notYetPurchased, .pending, .unknownName, .unknownType:
            if f.otherProductBefore { return .productChange }
            if after.reason == .nonRenewing { return .nonRenewingPurchase }
            if after.reason == .nonConsumable { return .nonConsumablePurchase }
            return f.trialNow ? .trialStarted : .initialPurchase
        default: break
        }
        // A later end than before: a new period (after a lapse too, a resubscription).
        if let until = after.untilMs, before.untilMs.map({ until > $0 }) ?? !before.entitled {
            if after.reason == .nonRenewing { return .nonRenewingPurchase }
            return f.trialBefore && !f.trialNow ? .trialConverted : .renewal
        }
        return .entitlementChanged
    }
}
