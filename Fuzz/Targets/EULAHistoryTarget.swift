/// The EULA history JSON: decisions built from arbitrary bytes (document ids, user names that
/// need not be UTF-8, any instant) serialize to JSON that parses back to the same fields.
@Sendable func fuzzEULAHistory(_ bytes: UnsafeRawBufferPointer) {
    var reader = FuzzReader(bytes)
    var decisions: [EULADecision] = []
    while !reader.isEmpty && decisions.count < 16 {
        let document = String(decoding: reader.bytes(max: 40), as: UTF8.self)
        let hasUser = reader.byte() & 1 == 1
        let user = hasUser ? reader.bytes(max: 40) : nil
        let kind: EULADecision.Kind = reader.byte() & 1 == 0 ? .accepted : .declined
        // Instants in years 0000-9999, the range the library writes.
        let span: Int64 = 253_402_300_800_000 + 62_167_219_200_000
        let at = Int64(bitPattern: reader.uint64() % UInt64(span)) - 62_167_219_200_000
        let hash = Hex.encode(reader.bytes(exactly: 32))
        decisions.append(EULADecision(documentID: document, hash: hash, user: user, kind: kind, atMilliseconds: at))
    }
    let json = EULAGate.historyJSON(decisions)
    guard let parsed = try? JSONParser.parse(Array(json.utf8)), parsed["version"] == .number(1),
          case let .array(items)? = parsed["decisions"], items.count == decisions.count else {
        fuzzFail("history JSON does not parse as {\"version\":1,\"decisions\":[\(decisions.count) items]}: \(json.prefix(300))")
    }
    for (d, item) in zip(decisions, items) {
        guard item["document_id"]?.stringValue == d.documentID, item["hash"]?.stringValue == d.hash,
              item["decision"]?.stringValue == d.kind.name else { fuzzFail("history fields differ: \(json.prefix(300))") }
        guard let at = item["at"]?.stringValue, Timestamp.parseRFC3339(Array(at.utf8)) == d.atMilliseconds else {
            fuzzFail("history instant \(d.atMilliseconds) does not round-trip: \(json.prefix(300))")
        }
        let user: [UInt8]?
        if let hex = item["user_hex"]?.stringValue {
            user = Hex.decode(hex)
        } else if item["user"] == .null {
            user = nil
        } else {
            user = item["user"]?.stringValue.map { Array($0.utf8) }
        }
        guard user == d.user else { fuzzFail("history user does not round-trip: \(json.prefix(300))") }
    }
}

/// Carves structured values out of fuzz bytes; running out yields zeros.
struct FuzzReader {
    private let data: UnsafeRawBufferPointer
    private var i = 0
    init(_ data: UnsafeRawBufferPointer) { self.data = data }
    var isEmpty: Bool { i >= data.count }
    mutating func byte() -> UInt8 {
        guard i < data.count else { return 0 }
        defer { i += 1 }
        return data[i]
    }
    mutating func bytes(max: Int) -> [UInt8] {
        let n = Int(byte()) % (max + 1)
        return bytes(exactly: n)
    }
    mutating func bytes(exactly n: Int) -> [UInt8] {
        let take = Swift.min(n, data.count - i)
        defer { i += take }
        return Array(data[i..<(i + take)]) + [UInt8](repeating: 0, count: n - take)
    }
    mutating func uint64() -> UInt64 {
        bytes(exactly: 8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
