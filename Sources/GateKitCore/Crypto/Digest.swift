import COpenSSL
import Glibc
import GateKitSupport

/// Message digests through OpenSSL's EVP interface.
public enum DigestAlgorithm: Sendable {
    case sha1, sha256, sha384

    /// Fetched from the default provider once: OpenSSL 3 looks an `EVP_sha256()`-style digest
    /// up again, under a lock, at every use (the warm signature check's largest lock cost).
    package var evp: OpaquePointer? {
        switch self {
        case .sha1: FetchedDigests.sha1
        case .sha256: FetchedDigests.sha256
        case .sha384: FetchedDigests.sha384
        }
    }

    public var length: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        }
    }
}

public enum Digest {
    /// One-shot digest of `bytes`.
    public static func hash(_ algorithm: DigestAlgorithm, _ bytes: UnsafeRawBufferPointer) throws(GateKitError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: algorithm.length)
        var size: UInt32 = 0
        let ok = out.withUnsafeMutableBufferPointer { o in
            EVP_Digest(bytes.baseAddress, bytes.count, o.baseAddress, &size, algorithm.evp, nil)
        }
        guard ok == 1, Int(size) == algorithm.length else { throw GateKitError.internalError("EVP_Digest failed") }
        return out
    }

    public static func hash(_ algorithm: DigestAlgorithm, _ bytes: [UInt8]) throws(GateKitError) -> [UInt8] {
        try bytes.withUnsafeBytes { buffer in Result { () throws(GateKitError) in try hash(algorithm, buffer) } }.get()
    }

    /// Streams a file through the digest in fixed-size chunks (a 50 MB EULA never sits in memory).
    /// A missing file is `.ENOTFOUND`; a directory or unreadable file is `.EIO`.
    public static func hashFile(_ algorithm: DigestAlgorithm, path: String) throws(GateKitError) -> [UInt8] {
        let fd = try RegularFile.openForReading(path).fd
        defer { close(fd) }
        let digest = try StreamingDigest(algorithm)
        let chunk = 256 * 1024  // fits in L2: the copy out of the page cache stays cheap
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer, chunk)
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw GateKitError.io("cannot read \(Quoted.path(path)): \(String(cString: strerror(errno)))")
            }
            try digest.update(UnsafeRawBufferPointer(start: buffer, count: n))
        }
        return try digest.finish()
    }
}

/// The digests, each fetched once for the process (never freed: they live as long as it does);
/// the legacy accessor when the provider cannot be asked.
private enum FetchedDigests {
    nonisolated(unsafe) static let sha1 = EVP_MD_fetch(nil, "SHA1", nil) ?? EVP_sha1()
    nonisolated(unsafe) static let sha256 = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()
    nonisolated(unsafe) static let sha384 = EVP_MD_fetch(nil, "SHA384", nil) ?? EVP_sha384()
}
