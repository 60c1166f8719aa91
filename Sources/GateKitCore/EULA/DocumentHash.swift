/// A EULA's version: the SHA-256 of its exact bytes, as 64 lowercase hex digits.
public enum DocumentHash {
    public static let hexLength = 64

    public static func of(bytes: UnsafeRawBufferPointer) throws(GateKitError) -> String {
        Hex.encode(try Digest.hash(.sha256, bytes))
    }

    public static func of(file path: String) throws(GateKitError) -> String {
        Hex.encode(try Digest.hashFile(.sha256, path: path))
    }

    /// Hashes cross the API as lowercase hex only, so one text has exactly one spelling.
    public static func validate(_ hash: String, name: String = "hash") throws(GateKitError) {
        guard Hex.isLowercase(hash, length: hexLength) else {
            throw .invalid("\(name) must be 64 lowercase hex digits (a SHA-256), got \(Quoted.text(hash))")
        }
    }
}
