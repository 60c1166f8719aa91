/// Google's names for the numbers of real-time developer notifications
/// (developer.android.com/google/play/billing/rtdn-reference). A number not here is new:
/// reported with no name, never mapped to a near one.
package enum PlayNames {
    package static let subscriptionNotification: [Int64: String] = [
        1: "SUBSCRIPTION_RECOVERED", 2: "SUBSCRIPTION_RENEWED", 3: "SUBSCRIPTION_CANCELED", 4: "SUBSCRIPTION_PURCHASED",
        5: "SUBSCRIPTION_ON_HOLD", 6: "SUBSCRIPTION_IN_GRACE_PERIOD", 7: "SUBSCRIPTION_RESTARTED",
        8: "SUBSCRIPTION_PRICE_CHANGE_CONFIRMED", 9: "SUBSCRIPTION_DEFERRED", 10: "SUBSCRIPTION_PAUSED",
        11: "SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED", 12: "SUBSCRIPTION_REVOKED", 13: "SUBSCRIPTION_EXPIRED",
        17: "SUBSCRIPTION_ITEMS_CHANGED", 18: "SUBSCRIPTION_CANCELLATION_SCHEDULED", 19: "SUBSCRIPTION_PRICE_CHANGE_UPDATED",
        20: "SUBSCRIPTION_PENDING_PURCHASE_CANCELED", 22: "SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED",
    ]
    package static let oneTimeProductNotification: [Int64: String] = [1: "ONE_TIME_PRODUCT_PURCHASED", 2: "ONE_TIME_PRODUCT_CANCELED"]
    package static let voidedProductType: [Int64: String] = [1: "PRODUCT_TYPE_SUBSCRIPTION", 2: "PRODUCT_TYPE_ONE_TIME"]
    /// SUBSCRIPTION_REVOKED: a push that has the voided purchases list read for its token.
    package static let subscriptionRevoked: Int64 = 12
    /// A voided purchase's productType for a subscription.
    package static let voidedSubscription: Int64 = 1

    /// An Android application id: 1 to 255 letters, digits, _ and . (what Play names an app by).
    package static func isPackageName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && name.utf8.allSatisfy {
            $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
        }
    }
}
