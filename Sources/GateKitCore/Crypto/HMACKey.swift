import COpenSSL
import GateKitSupport

/// An HMAC-SHA256 key through OpenSSL's EVP_MAC: keyed once, then each message authenticated on
/// a copy of the keyed context (the key schedule is not redone per message). Safe to share
/// between threads: the keyed context is only ever copied, and a copy is used by one call at a
/// time.
public final class HMACKey: @unchecked Sendable {
    private let keyed: OpaquePointer
    /// Copies done with, kept to be reset and used again (`EVP_MAC_init` without a key keeps
    /// it): a fresh copy per message cost a quarter of a 2 KB message's HMAC. This process's
    /// own (`ProcessLocal`): a forked child starts with none.
    private let spare = ProcessLocal<[OpaquePointer]> { [] }
    private static let maximumSpare = 8

    public init(sha256 key: [UInt8]) throws(GateKitError) {
        guard let mac = HMACKey.algorithm, let ctx = EVP_MAC_CTX_new(mac) else {
            throw GateKitError.internalError("OpenSSL has no HMAC (EVP_MAC_fetch)")
        }
        let ok = "digest".withCString { name in
            "SHA256".withCString { digest in
                var params = [OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0), OSSL_PARAM_construct_end()]
                return key.withUnsafeBufferPointer { k in EVP_MAC_init(ctx, k.baseAddress, k.count, &params) }
            }
        }
        guard ok == 1 else {
            EVP_MAC_CTX_free(ctx)
            throw GateKitError.internalError("EVP_MAC_init (HMAC-SHA256) failed")
        }
        keyed = ctx
    }

    deinit {
        for ctx in spare.ownState ?? [] { EVP_MAC_CTX_free(ctx) }
        EVP_MAC_CTX_free(keyed)
    }

    /// The 32-byte HMAC-SHA256 of `prefix` then `message`, as one message (the message read in
    /// place, never copied).
    public func authenticate(_ prefix: [UInt8], _ message: UnsafeRawBufferPointer) throws(GateKitError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let failure = out.withUnsafeMutableBytes { o in
            prefix.withUnsafeBytes { p -> GateKitError? in
                do throws(GateKitError) { try authenticate(p, message, into: o) } catch { return error }
                return nil
            }
        }
        if let failure { throw failure }
        return out
    }

    /// The same into `out` (32 bytes): nothing allocated on a webhook's path.
    public func authenticate(_ prefix: UnsafeRawBufferPointer, _ message: UnsafeRawBufferPointer,
                             into out: UnsafeMutableRawBufferPointer) throws(GateKitError) {
        guard out.count == 32 else { throw GateKitError.internalError("an HMAC-SHA256 is 32 bytes") }
        guard let ctx = spare.withLock({ $0.popLast() }) ?? EVP_MAC_CTX_dup(keyed) else {
            throw GateKitError(.ENOMEM, "EVP_MAC_CTX_dup failed")
        }
        var whole = false  // a context that failed midway is freed, never reused
        defer {
            let kept = whole && spare.withLock { (spare: inout [OpaquePointer]) -> Bool in
                guard spare.count < HMACKey.maximumSpare else { return false }
                spare.append(ctx)
                return true
            }
            if !kept { EVP_MAC_CTX_free(ctx) }
        }
        guard EVP_MAC_init(ctx, nil, 0, nil) == 1 else { throw GateKitError.internalError("EVP_MAC_init (the kept key) failed") }
        guard HMACKey.update(ctx, prefix) && HMACKey.update(ctx, message) else {
            throw GateKitError.internalError("EVP_MAC_update failed")
        }
        var length = 0
        let ok = EVP_MAC_final(ctx, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, out.count)
        guard ok == 1, length == 32 else { throw GateKitError.internalError("EVP_MAC_final failed") }
        whole = true
    }

    private static func update(_ ctx: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.isEmpty || EVP_MAC_update(ctx, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) == 1
    }

    /// Fetched once for the process.
    nonisolated(unsafe) private static let algorithm = EVP_MAC_fetch(nil, "HMAC", nil)
}

/// Comparison whose time does not depend on where two equal-length byte strings differ.
public enum ConstantTime {
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { x in b.withUnsafeBytes { y in equal(x, y) } }
    }

    public static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        return a.isEmpty || CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
    }
}
