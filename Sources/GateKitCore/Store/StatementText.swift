/// SQL text as the key of a connection's statement cache. It hashes the text's length and its
/// first 16 and last 32 bytes (where statements of one family differ: the table, the clause
/// that ends them, a generated INSERT's row count) instead of SipHashing several hundred bytes
/// on every lookup, a dozen and more per ingested item. Equality still compares the whole
/// text, so a collision costs time, never the wrong statement.
struct StatementText: Hashable {
    let sql: String

    static func == (a: StatementText, b: StatementText) -> Bool { a.sql == b.sql }

    func hash(into hasher: inout Hasher) {
        let utf8 = sql.utf8
        hasher.combine(utf8.count)
        let sampled = utf8.withContiguousStorageIfAvailable { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.prefix(16))))
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(32))))
            return true
        }
        if sampled == nil {
            for byte in utf8.prefix(16) { hasher.combine(byte) }
            for byte in utf8.suffix(32) { hasher.combine(byte) }
        }
    }
}
