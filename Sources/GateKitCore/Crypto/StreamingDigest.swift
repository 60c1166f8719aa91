import COpenSSL
import GateKitSupport

/// A digest fed in pieces (a file read in chunks, an export written in chunks) through
/// OpenSSL's EVP interface.
public final class StreamingDigest {
    private let context: OpaquePointer
    private let algorithm: DigestAlgorithm

    public init(_ algorithm: DigestAlgorithm) throws(GateKitError) {
        guard let context = EVP_MD_CTX_new() else { throw GateKitError(.ENOMEM, "EVP_MD_CTX_new failed") }
        guard EVP_DigestInit_ex(context, algorithm.evp, nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw GateKitError.internalError("EVP_DigestInit_ex failed")
        }
        self.context = context
        self.algorithm = algorithm
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) throws(GateKitError) {
        guard bytes.count > 0 else { return }
        guard EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1 else { throw GateKitError.internalError("EVP_DigestUpdate failed") }
    }

    public func update(_ bytes: [UInt8]) throws(GateKitError) {
        try bytes.withUnsafeBytes { buffer in Result { () throws(GateKitError) in try update(buffer) } }.get()
    }

    /// The digest of everything fed so far; the object is spent.
    public func finish() throws(GateKitError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: algorithm.length)
        var size: UInt32 = 0
        let ok = out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &size) }
        guard ok == 1, Int(size) == algorithm.length else { throw GateKitError.internalError("EVP_DigestFinal_ex failed") }
        return out
    }
}
