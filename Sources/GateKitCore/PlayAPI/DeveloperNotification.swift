import GateKitPlayData
import GateKitSupport

/// A Pub/Sub push of a real-time developer notification, decoded strictly: the envelope
/// (`message.data` base64, `messageId`, `subscription`) and the `DeveloperNotification` in its
/// data (developer.android.com/google/play/billing/rtdn-reference). Exactly one payload object
/// is present; one GateKit does not know is kind `unknown`, kept as sent, never guessed at.
package struct DeveloperNotification: Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        case subscription, oneTimeProduct, voidedPurchase, pendingRefundReview, test, unknown

        /// The DeveloperNotification member that carries this kind.
        var member: String? {
            switch self {
            case .subscription: "subscriptionNotification"
            case .oneTimeProduct: "oneTimeProductNotification"
            case .voidedPurchase: "voidedPurchaseNotification"
            case .pendingRefundReview: "pendingRefundReviewNotification"
            case .test: "testNotification"
            case .unknown: nil
            }
        }
    }

    package let messageID: String
    package let subscription: String
    package let publishTime: String?
    package let version: String
    package let packageName: String
    package let eventTimeMillis: Int64
    package let kind: Kind
    /// The kind's object as sent (for `unknown`, the members GateKit does not know).
    package let payload: JSONValue
    /// The whole DeveloperNotification: the message's data decoded, valid JSON as sent.
    package let document: [UInt8]

    /// A push body is a few KB; 1 MiB bounds the work.
    package static let maximumBodyLength = 1 << 20
    package static let maximumMessageIDLength = 256
    /// 9999-12-31T23:59:59.999Z: every host's date types reach it (Python's datetime ends there).
    package static let latestEventTime: Int64 = 253_402_300_799_999

    package init(body: [UInt8]) throws(GateKitError) {
        func bad(_ why: String) -> GateKitError { GateKitError(.EPUSH_MESSAGE, why) }
        guard body.count <= DeveloperNotification.maximumBodyLength else {
            throw GateKitError(.ETOOLARGE, "the push body is \(body.count) bytes; at most \(DeveloperNotification.maximumBodyLength) are read")
        }
        // Both documents are read member by member (JSONTape): no tree of the envelope, and only
        // the payload of the notification becomes one.
        let envelope: JSONTape
        do { envelope = try JSONTape(body) } catch { throw bad("the push body is not JSON: \(error.message)") }
        guard envelope.isObject(), let message = envelope.member("message"), envelope.isObject(message) else {
            throw bad("the push body has no \"message\" object (a Pub/Sub push envelope, wrapped)")
        }
        guard let messageID = envelope.string(member: "messageId", of: message) ?? envelope.string(member: "message_id", of: message), !messageID.isEmpty else {
            throw bad("the message has no messageId")
        }
        // Pub/Sub's ids are a few digits; a bounded, printable one keeps duplicate windows small.
        guard messageID.utf8.count <= DeveloperNotification.maximumMessageIDLength, messageID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw bad("the messageId is not 1 to \(DeveloperNotification.maximumMessageIDLength) printable ASCII bytes (Pub/Sub's are digits)")
        }
        guard let subscription = envelope.string(member: "subscription"), !subscription.isEmpty else {
            throw bad("the push body has no subscription")
        }
        guard let data = envelope.member("data", of: message).flatMap({ envelope.stringBytes($0) }) else { throw bad("the message has no data") }
        guard let decoded = Base64.decode(data, alphabet: .standard) else { throw bad("the message's data is not base64") }
        let notification: JSONTape
        do { notification = try JSONTape(decoded) } catch { throw bad("the message's data is not JSON: \(error.message)") }
        guard notification.isObject() else { throw bad("the message's data is not a DeveloperNotification object") }
        guard let packageName = notification.string(member: "packageName"), !packageName.isEmpty else {
            throw bad("the DeveloperNotification has no packageName")
        }
        guard let version = notification.string(member: "version") else { throw bad("the DeveloperNotification has no version") }
        // The reference's examples write eventTimeMillis as a string; a number is taken too.
        let event = notification.member("eventTimeMillis")
        guard let eventTime = event.flatMap({ notification.string($0) }).flatMap({ Int64($0) }) ?? event.flatMap({ notification.int64($0) }),
              (0...DeveloperNotification.latestEventTime).contains(eventTime) else {
            throw bad("the DeveloperNotification's eventTimeMillis is not milliseconds since 1970 before the year 10000")
        }
        let present = Kind.allCases.filter { kind in kind.member.map { notification.member($0) != nil } ?? false }
        guard present.count <= 1 else {
            throw bad("the DeveloperNotification carries \(present.map { $0.member ?? "" }.joined(separator: " and ")): they are mutually exclusive")
        }
        let kind = present.first ?? .unknown
        let payload: JSONValue
        if let member = kind.member {
            payload = notification.member(member).map { notification.value($0) } ?? .null
            guard case .object = payload else { throw bad("\(member) is not an object") }
            try DeveloperNotification.checkTypes(kind, payload)
        } else {
            // Google's format carries exactly one notification object: a kind GateKit does not
            // know still brings one, and a notification with none is not Google's.
            let known: Set<String> = ["version", "packageName", "eventTimeMillis"]
            guard case let .object(members) = notification.value(JSONTape.root) else { throw bad("the message's data is not a DeveloperNotification object") }
            let others = members.filter { !known.contains($0.0) }
            guard others.contains(where: { if case .object = $0.1 { true } else { false } }) else {
                throw bad("the DeveloperNotification carries no notification object (subscriptionNotification, oneTimeProductNotification, …)")
            }
            payload = .object(others)
        }
        self.messageID = messageID
        self.subscription = subscription
        publishTime = envelope.string(member: "publishTime", of: message) ?? envelope.string(member: "publish_time", of: message)
        self.version = version
        self.packageName = packageName
        eventTimeMillis = eventTime
        self.kind = kind
        self.payload = payload
        document = decoded
    }

    /// The members each kind must carry, with their JSON types.
    private static func checkTypes(_ kind: Kind, _ payload: JSONValue) throws(GateKitError) {
        let member = kind.member ?? ""
        func string(_ name: String) throws(GateKitError) {
            guard let value = payload[name]?.stringValue, !value.isEmpty else { throw GateKitError(.EPUSH_MESSAGE, "\(member).\(name) is missing or not a string") }
        }
        func integer(_ name: String) throws(GateKitError) {
            guard payload[name]?.int64Value != nil else { throw GateKitError(.EPUSH_MESSAGE, "\(member).\(name) is missing or not an integer") }
        }
        switch kind {
        case .subscription: try integer("notificationType"); try string("purchaseToken")
        case .oneTimeProduct: try integer("notificationType"); try string("purchaseToken"); try string("sku")
        case .voidedPurchase: try string("purchaseToken"); try integer("productType"); try integer("refundType")
        case .pendingRefundReview, .test, .unknown: break
        }
    }

    /// Google's name of the payload's type, nil when GateKit does not know the number
    /// (Google: "You should be able to handle unrecognized notification types").
    package var typeName: String? {
        switch kind {
        case .subscription: payload["notificationType"]?.int64Value.flatMap { PlayNames.subscriptionNotification[$0] }
        case .oneTimeProduct: payload["notificationType"]?.int64Value.flatMap { PlayNames.oneTimeProductNotification[$0] }
        case .voidedPurchase: payload["productType"]?.int64Value.flatMap { PlayNames.voidedProductType[$0] }
        case .pendingRefundReview, .test, .unknown: nil
        }
    }

    /// The verifier's answer (include/gatekit/play.h describes it): the envelope's members, the
    /// DeveloperNotification as sent, and GateKit's reading of it under "gatekit".
    package func json(duplicate: Bool, issuer: String, testSigned: Bool) -> [UInt8] {
        var w = JSONWriter(reservingCapacity: 256 + document.count)
        w.raw("{\"version\":")
        w.integer(Int64(JSONDocument.version))
        w.raw(",\"messageId\":")
        w.string(messageID)
        w.raw(",\"subscription\":")
        w.string(subscription)
        w.raw(",\"publishTime\":")
        if let publishTime { w.string(publishTime) } else { w.raw("null") }
        w.raw(",\"developerNotification\":")
        w.raw(bytes: document)  // validated by the parse, kept as Google sent it
        // GateKit's reading, written member by member (no tree to build for six members; no
        // interpolated text, which allocates).
        w.raw(",\"gatekit\":{\"kind\":")
        w.string(kind.rawValue)
        w.raw(",\"notificationTypeName\":")
        if let typeName { w.string(typeName) } else { w.raw("null") }
        w.raw(",\"eventTimeMillis\":")
        w.integer(eventTimeMillis)
        w.raw(",\"duplicate\":")
        w.bool(duplicate)
        w.raw(",\"issuer\":")
        w.string(issuer)
        w.raw(",\"testSigned\":")
        w.bool(testSigned)
        w.raw("}}")
        return w.bytes
    }
}
