import GateKitCrypto
import GateKitSupport

/// Where a store lives on PostgreSQL, and how its writers lock. Each app id gets its own
/// namespace (a PostgreSQL "schema"), so several apps share one database without seeing each
/// other's rows, and the store's SQL runs unchanged under `search_path`. The tables are the
/// domains' migrations (`StoreSchema`), rendered in PostgreSQL's types.
enum PostgresNamespace {
    /// `gatekit_meta` rows that mark a namespace as a GateKit store.
    static let formatKey = "format"
    static let formatValue = "gatekit-store"
    static let versionKey = "schema_version"
    static let appIDKey = "app_id"

    /// Slot 1024 is the whole store's; subjects hash onto slots 0-1023 (two subjects sharing
    /// a slot only wait for each other, never deadlock: slots are taken in order).
    static let wholeStoreSlot: Int64 = 1024
    static func lockSlot(_ subject: String) -> Int64 {
        var hash: UInt32 = 2_166_136_261  // FNV-1a: stable across processes and versions
        for b in subject.utf8 { hash = (hash ^ UInt32(b)) &* 16_777_619 }
        return Int64(hash % 1024)
    }

    /// The namespace holding an app's store: `gatekit/<app id>`, quoted (app ids are letters,
    /// digits, '.', '-', '_'), shortened with a digest past PostgreSQL's 63-byte identifiers.
    static func namespace(appID: String) throws(GateKitError) -> String {
        let full = "gatekit/" + appID
        guard full.utf8.count > 63 else { return full }
        let digest = Hex.encode(try Digest.hash(.sha256, Array(appID.utf8)).prefix(8))
        return "gatekit/" + String(appID.prefix(38)) + "~" + digest
    }

    /// An identifier as a quoted SQL identifier.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
