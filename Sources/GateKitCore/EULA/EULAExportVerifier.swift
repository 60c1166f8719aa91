import GateKitCrypto
import GateKitStore
import GateKitSupport

/// Checks a consent export against the store: the file must be, record for record and byte
/// for byte, what the store exports for the same question (the header says which: document,
/// user, texts, the last decision id of its snapshot), and its SHA-256 one the store recorded
/// when it wrote the file. A decision edited, removed, added or reordered in the file, a text
/// changed, a file cut short or a header altered is found, and so is a history rewritten in
/// the store after the export was taken — the records differ either way. Verification
/// streams, as the export does.
extension EULAGate {
    /// The number of decisions the export holds when it matches the store;
    /// `.EEULA_EXPORT_ALTERED` naming the first record that differs otherwise.
    @discardableResult
    public func verifyExport(path: String) throws(GateKitError) -> Int64 {
        var records = try DelimitedRecords(path: path, kind: .jsonLines)
        guard let first = try records.next() else { throw altered("the file is empty") }
        let format: EULAExport.Format = first == EULAExport.csvHeader ? .csv : .jsonLines
        // Every byte read is digested: the store recorded the digest of each export it wrote.
        let digest = try StreamingDigest(.sha256)
        try digest.update(first)
        if format == .csv {
            records = try DelimitedRecords(path: path, kind: .csv)
            _ = try records.next()
        }
        func next() throws(GateKitError) -> [UInt8]? {
            guard let record = try records.next() else { return nil }
            try digest.update(record)
            return record
        }
        var number = format == .csv ? 2 : 1
        let headerRecord = format == .csv ? try next() ?? [] : first
        guard let fields = EULAGate.fields(headerRecord, format), fields["record"] == "\"export\"" || fields["record"] == "export",
              let header = EULAGate.header(fields, format) else {
            throw altered("record \(number) is not the header of a GateKit consent export (\(EULAExport.formatName))")
        }
        try EULAGate.compare(EULAExport.header(header), headerRecord, format, number)
        return try store.snapshot { (db) throws(GateKitError) -> Int64 in
            let count = try EULAGate.exportRecords(header, db) { (members) throws(GateKitError) in
                number += 1
                guard let record = try next() else {
                    throw altered("the export ends at record \(number - 1); the store has more (\(EULAGate.describe(members)))")
                }
                try EULAGate.compare(members, record, format, number)
            }
            number += 1
            guard let end = try next() else { throw altered("the export ends at record \(number - 1), without its end record") }
            try EULAGate.compare(EULAExport.end(count: count), end, format, number)
            if try records.next() != nil { throw altered("record \(number + 1) follows the end record") }
            // Every record is the store's; the file as a whole must be one the store wrote —
            // else its header was edited with it (its instant, or decisions cut off the end
            // with the snapshot's last id lowered to match), or another store wrote it.
            let logged = try db.statement("SELECT exported_ms, through_id FROM eula_exports WHERE digest = ?1")
            logged.bind(1, text: Hex.encode(try digest.finish()))
            defer { logged.reset() }
            guard try logged.step(), logged.int64(0) == header.exportedAt, logged.int64(1) == header.throughID else {
                throw altered("every record matches the store's history through decision \(header.throughID), but this store never wrote this file: its header was edited (the instant, or the last decision with decisions removed after it), or another store exported it")
            }
            return count
        }
    }

    private func altered(_ what: String) -> GateKitError { GateKitError(.EEULA_EXPORT_ALTERED, what) }

    /// The record must be exactly what the store exports; if not, the first field that differs.
    private static func compare(_ expected: [(String, JSONValue)], _ record: [UInt8], _ format: EULAExport.Format, _ number: Int) throws(GateKitError) {
        let rendered = EULAExport.render(expected, format)
        guard rendered != record else { return }
        let want = fields(rendered, format) ?? [:]
        guard let have = fields(record, format) else {
            throw GateKitError(.EEULA_EXPORT_ALTERED, "record \(number) is not a record GateKit wrote; the store has \(describe(expected)) there")
        }
        if have["record"] != want["record"] || have["id"] != want["id"] {
            throw GateKitError(.EEULA_EXPORT_ALTERED, "record \(number) is \(describe(have)) where the store has \(describe(expected)): a record was removed, added or moved")
        }
        let names = expected.map(\.0) + have.keys.filter { key in !expected.contains { $0.0 == key } }.sorted()
        for name in names where have[name] != want[name] {
            throw GateKitError(.EEULA_EXPORT_ALTERED, "record \(number) (\(describe(expected))): \(name) is \(have[name] ?? "absent") in the export, \(want[name] ?? "absent") in the store")
        }
        throw GateKitError(.EEULA_EXPORT_ALTERED, "record \(number) (\(describe(expected))) is not spelled as GateKit wrote it")
    }

    private static func describe(_ members: [(String, JSONValue)]) -> String {
        let kind = members.first { $0.0 == "record" }?.1.stringValue ?? "record"
        let id = members.first { $0.0 == "id" }.map { JSONWriter.serialize($0.1) }
        switch kind {
        case "decision": return "decision \(id ?? "?")"
        case "text": return "the text \(members.first { $0.0 == "hash" }?.1.stringValue ?? "")"
        case "end": return "the end record"
        default: return kind
        }
    }

    private static func describe(_ fields: [String: String]) -> String {
        let kind = fields["record"].map { $0.trimmingCharacters(quote: true) } ?? "record"
        switch kind {
        case "decision": return "decision \(fields["id"] ?? "?")"
        case "text": return "a text"
        case "end": return "the end record"
        default: return Quoted.text(kind)
        }
    }

    /// A record's fields by name: JSON members serialized, or CSV fields by column.
    private static func fields(_ record: [UInt8], _ format: EULAExport.Format) -> [String: String]? {
        switch format {
        case .jsonLines:
            guard case let .object(members)? = try? JSONParser.parse(record.last == 10 ? Array(record.dropLast()) : record) else { return nil }
            var out: [String: String] = [:]
            for (name, value) in members where out[name] == nil { out[name] = JSONWriter.serialize(value) }
            return out
        case .csv:
            let values = DelimitedRecords.csvFields(record)
            guard values.count == EULAExport.columns.count else { return nil }
            var out: [String: String] = [:]
            for (name, value) in zip(EULAExport.columns, values) where !value.isEmpty { out[name] = DelimitedRecords.csvValue(value) }
            return out
        }
    }

    /// The header's question from its fields (either format).
    private static func header(_ f: [String: String], _ format: EULAExport.Format) -> EULAExport.Header? {
        func text(_ name: String) -> String? {
            guard let raw = f[name] else { return nil }
            guard format == .jsonLines else { return raw }
            if case let .string(s)? = try? JSONParser.parse(Array(raw.utf8)) { return s }
            return raw == "null" ? nil : raw
        }
        guard let format = [1, 2].first(where: { text("version") == EULAExport.formatName($0) }), let throughText = text("id"), let throughID = Int64(throughText), throughID >= 0,
              let at = text("at"), let exportedAt = Timestamp.parseRFC3339(Array(at.utf8)) else { return nil }
        let user: EULAGate.UserFilter
        typealias H = EULAExport.Header
        switch text("decision") {
        case H.everyone?, H.earlier.everyone?: user = .everyone
        case H.oneUser?, H.earlier.oneUser?:
            if let hex = text("user_hex") {
                guard let bytes = Hex.decode(hex) else { return nil }
                user = .named(bytes)
            } else if let name = text("user") {
                user = .named(Array(name.utf8))
            } else {
                user = .defaultUser
            }
        default: return nil
        }
        return EULAExport.Header(documentID: text("document_id"), user: user, includeTexts: [H.textsIncluded, H.earlier.textsIncluded].contains(text("text")),
                                 throughID: throughID, exportedAt: exportedAt, format: format)
    }
}

private extension String {
    func trimmingCharacters(quote: Bool) -> String {
        guard quote, hasPrefix("\""), hasSuffix("\""), count >= 2 else { return self }
        return String(dropFirst().dropLast())
    }
}
