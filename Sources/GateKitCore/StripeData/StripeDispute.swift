import GateKitSupport

/// A Dispute as Stripe's API renders it (`GET /v1/disputes/{id}`): a chargeback (or an
/// inquiry, `warning_*`) on a charge, its status and when it was opened.
package struct StripeDispute: Sendable, Equatable {
    package let id: String
    package let livemode: Bool
    /// When the dispute was opened.
    package let createdMs: Int64
    package let chargeID: String?
    package let paymentIntentID: String?
    /// Stripe's status, kept as it named it: "warning_needs_response", "warning_under_review",
    /// "warning_closed", "needs_response", "under_review", "won", "lost", "prevented", or newer.
    package let status: String

    package init(json: [UInt8]) throws(GateKitError) {
        let read = try StripeReader(object: json, kind: "dispute")
        guard try read.string("object") == "dispute" else {
            throw GateKitError(.ESTRIPE_OBJECT, "the object is not a Stripe Dispute (its \"object\" is not \"dispute\")")
        }
        id = try read.required(read.id("id"), "id")
        livemode = try read.required(read.bool("livemode"), "livemode")
        createdMs = try read.required(read.time("created"), "created")
        chargeID = try read.reference("charge")
        paymentIntentID = try read.reference("payment_intent")
        status = try read.required(read.string("status"), "status")
    }

    /// Closed in the merchant's favour, or never a chargeback: the money stays (won, an
    /// inquiry closed, a dispute prevented).
    package var endedForTheMerchant: Bool { ["won", "warning_closed", "prevented"].contains(status) }

    package var lost: Bool { status == "lost" }
}
