import GateKitSupport

/// The ledger's answers as JSON documents.
enum LedgerJSON {
    /// Shaped like the App Store Server API's StatusResponse ("Get All Subscription
    /// Statuses"): groups in order of group id, each with its subscriptions' last transactions
    /// (status, original transaction id, and the signed transaction and renewal info the status
    /// was computed from, when they were ingested as signed data), plus GateKit's members.
    static func statuses(_ subscriptions: [LedgerView.Subscription], scope: LedgerScope, signed: [String: (String?, String?)]) -> String {
        var groups: [String: [LedgerView.Subscription]] = [:]
        for s in subscriptions { groups[s.groupID ?? "", default: []].append(s) }
        let data: [JSONValue] = groups.keys.sorted().map { group in
            .object([
                ("subscriptionGroupIdentifier", group.isEmpty ? .null : .string(group)),
                ("lastTransactions", .array((groups[group] ?? []).map { s in
                    var members: [(String, JSONValue)] = [
                        ("status", .number(s.status.rawValue)),
                        ("originalTransactionId", .string(s.purchaseID)),
                    ]
                    if let t = signed[s.purchaseID]?.0 { members.append(("signedTransactionInfo", .string(t))) }
                    if let r = signed[s.purchaseID]?.1 { members.append(("signedRenewalInfo", .string(r))) }
                    members.append(("gatekit", .object([
                        ("statusName", .string(s.status.name)),
                        ("productId", .string(s.latest.productID)),
                        ("transactionId", .string(s.latest.transactionID)),
                        ("expiresDate", s.latest.expiresMs.map { .number($0) } ?? .null),
                        ("gracePeriodExpiresDate", s.renewal?.gracePeriodExpiresMs.map { .number($0) } ?? .null),
                        ("autoRenewProductId", s.renewal?.autoRenewProductID.map { .string($0) } ?? .null),
                        ("autoRenewStatus", s.renewal?.willAutoRenew.map { .number($0 ? 1 : 0) } ?? .null),
                    ])))
                    return .object(members)
                })),
            ])
        }
        return JSONWriter.serialize(.object([
            ("version", .number(JSONDocument.version)),
            ("environment", .string(scope.environment)),
            ("testSigned", .bool(scope.testData)),
            ("data", .array(data)),
        ]))
    }
}
