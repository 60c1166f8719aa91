import GateKitStore
import GateKitSupport

/// The ledger's history as JSON: every ingested item (oldest first, with its decoded payload)
/// and every status change with the item that caused it.
extension Ledger {
    /// For one customer (their original transaction ids), or every item in the scope (nil).
    public func historyJSON(customer: String?, scope: LedgerScope) throws(GateKitError) -> String {
        try historyJSON(customers: customer.map { [$0] }, scope: scope)
    }

    /// For several customers together (an app account's, `LedgerAccounts`); nil: every item.
    /// `excluding`: subscriptions another app account holds, left out.
    func historyJSON(customers: [String]?, scope: LedgerScope, excluding: Set<[UInt8]> = []) throws(GateKitError) -> String {
        for customer in customers ?? [] { try Ledger.validate(customer: customer) }
        return try store.read { (db) throws(GateKitError) -> String in
            let originals = try customers.map { (list) throws(GateKitError) -> [String] in
                var all: [String] = []
                for c in list { all += try LedgerRows.originals(db, customer: LedgerCustomer(c), scope: scope) }
                return Array(Set(all.filter { !excluding.contains(Array($0.utf8)) })).sorted()
            }
            let columns = "id, kind, identity, notification_uuid, notification_type, subtype, signed_ms, ingested_ms, outcome, header_id IS NOT NULL, body, store_kind"
            var itemList: [JSONValue] = []
            func add(_ items: any DatabaseStatement) throws(GateKitError) {
                while try items.step() { itemList.append(try item(db, items)) }
                items.reset()
            }
            if let originals {
                var ids = Set<Int64>()
                let subjects = try db.statement("SELECT item_id FROM ledger_item_subjects WHERE original_transaction_id = ?1")
                for original in originals {
                    subjects.bind(1, text: original)
                    while try subjects.step() { ids.insert(subjects.int64(0)) }
                    subjects.reset()
                }
                let one = try db.statement("SELECT \(columns) FROM ledger_items WHERE id = ?1 AND environment = ?2 AND test_signed = ?3")
                for id in ids.sorted() {
                    one.bind(1, id).bind(2, text: scope.environment).bind(3, scope.testFlag)
                    try add(one)
                }
            } else {
                let all = try db.statement("SELECT \(columns) FROM ledger_items WHERE environment = ?1 AND test_signed = ?2 ORDER BY id")
                all.bind(1, text: scope.environment).bind(2, scope.testFlag)
                try add(all)
            }
            var changeRows: [(Int64, JSONValue)] = []
            let changes = try db.statement("""
                SELECT id, original_transaction_id, group_id, from_status, to_status, item_id, at_ms FROM ledger_status_changes
                WHERE environment = ?1 AND test_signed = ?2 AND (?3 IS NULL OR original_transaction_id = ?3) ORDER BY id
                """)
            for original in originals.map({ $0.map(Optional.some) }) ?? [nil] {
                changes.bind(1, text: scope.environment).bind(2, scope.testFlag).bind(3, text: original)
                while try changes.step() {
                    changeRows.append((changes.int64(0), .object([
                        ("originalTransactionId", .string(changes.text(1) ?? "")),
                        ("subscriptionGroupIdentifier", changes.text(2).map { .string($0) } ?? .null),
                        ("from", changes.isNull(3) ? .null : .number(changes.int64(3))),
                        ("to", .number(changes.int64(4))),
                        ("item", .number(changes.int64(5))),
                        ("at", .number(changes.int64(6))),
                    ])))
                }
                changes.reset()
            }
            return JSONWriter.serialize(.object([
                ("version", .number(JSONDocument.version)),
                ("environment", .string(scope.environment)),
                ("testSigned", .bool(scope.testData)),
                ("items", .array(itemList)),
                ("statusChanges", .array(changeRows.sorted { $0.0 < $1.0 }.map(\.1))),
            ]))
        }
    }

    /// One row of ledger_items (see the columns above) as its history entry.
    private func item(_ db: any DatabaseConnection, _ items: any DatabaseStatement) throws(GateKitError) -> JSONValue {
        let id = items.int64(0)
        var members: [(String, JSONValue)] = [("id", .number(id))]
        members.append(("kind", .string(IngestReport.Kind(stored: items.int64(1), storeKind: items.text(11))?.name ?? "unknown")))
        members.append(("identity", .string(items.text(2) ?? "")))
        if let uuid = items.text(3) { members.append(("notificationUUID", .string(uuid))) }
        if let type = items.text(4) { members.append(("notificationType", .string(type))) }
        if let subtype = items.text(5) { members.append(("subtype", .string(subtype))) }
        members.append(("signedDate", .number(items.int64(6))))
        members.append(("ingestedAt", .number(items.int64(7))))
        members.append(("outcome", .string(IngestReport.Outcome(rawValue: Int32(truncatingIfNeeded: items.int64(8)))?.name ?? "unknown")))
        members.append(("originalTransactionIds", .array(try subjects(db, item: id).map { .string($0) })))
        members.append(("payload", try payload(items.text(10) ?? "", isJWS: items.int64(9) != 0, item: id)))
        return .object(members)
    }

    private func subjects(_ db: any DatabaseConnection, item: Int64) throws(GateKitError) -> [String] {
        let s = try db.statement("SELECT original_transaction_id FROM ledger_item_subjects WHERE item_id = ?1 ORDER BY original_transaction_id")
        defer { s.reset() }
        s.bind(1, item)
        var out: [String] = []
        while try s.step() { out.append(s.text(0) ?? "") }
        return out
    }

    /// The item's payload as it was verified: a JWS's decoded payload, or a receipt's JSON.
    private func payload(_ body: String, isJWS: Bool, item: Int64) throws(GateKitError) -> JSONValue {
        var bytes = Array(body.utf8)
        if isJWS {
            let segment = bytes.prefix { $0 != UInt8(ascii: ".") }
            guard let decoded = Base64.decode(segment, alphabet: .url) else {
                throw GateKitError(.ECORRUPT, "ledger item \(item): its stored payload is not base64url")
            }
            bytes = decoded
        }
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw GateKitError(.ECORRUPT, "ledger item \(item): its stored payload is not JSON (\(error.message))")
        }
    }
}
