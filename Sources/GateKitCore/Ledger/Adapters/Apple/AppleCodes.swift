/// Apple's numeric codes (the App Store Server API's `offerType`, `revocationReason`,
/// `expirationIntent`) named in the ledger's model.
enum AppleCodes {
    static func offer(_ code: Int64) -> Offer {
        switch code {
        case 1: .introductory
        case 2: .promotional
        case 3: .offerCode
        case 4: .winBack
        default: .other
        }
    }

    static func revocationReason(_ code: Int64) -> RevocationReason {
        code == 1 ? .appIssue : .other
    }

    static func expirationCause(_ code: Int64) -> ExpirationCause {
        switch code {
        case 1: .customerCancelled
        case 2: .billingError
        case 3: .declinedPriceIncrease
        case 4: .productUnavailable
        default: .other
        }
    }
}
