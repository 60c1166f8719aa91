import GateKitCrypto
import GateKitSupport

/// A EULA's version: the SHA-256 of its exact bytes, as 64 lowercase hex digits.
public enum DocumentHash {
    public static let hexLength = 64

    public static func of(bytes: UnsafeRawBufferPointer) throws(GateKitError) -> String {
        Hex.encode(try Digest.hash(.sha256, bytes))
    }

    public static func of(file path: String) throws(GateKitError) -> String {
        Hex.encode(try Digest.hashFile(.sha256, path: path))
    }

    /// A hash as it is stored and compared: 64 hex digits in either case (what `sha256sum` or
    /// a Windows tool prints), lowercased, so one text still has exactly one spelling.
    public static func normalized(_ hash: String, name: String = "hash") throws(GateKitError) -> String {
        let lower = String(decoding: hash.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") ? $0 + 32 : $0 }, as: UTF8.self)
        guard Hex.isLowercase(lower, length: hexLength) else {
            throw .invalid("\(name) must be 64 hex digits (a SHA-256), got \(Quoted.text(hash))")
        }
        return lower
    }
}
