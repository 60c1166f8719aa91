import COpenSSL
import GateKitSupport

/// PEM text from OpenSSL's PEM_write_bio_* functions, through a memory BIO.
package enum PEMWriter {
    /// `write` writes into the BIO it is given and answers OpenSSL's 1 on success.
    package static func text(_ what: String, _ write: (OpaquePointer) -> Int32) throws(GateKitError) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw GateKitError(.ENOMEM, "BIO_new failed") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else {
            ERR_clear_error()
            throw .internalError("\(what) failed")
        }
        let pending = Int(BIO_ctrl_pending(bio))
        guard pending <= Int(Int32.max) else { throw .internalError("\(what) wrote \(pending) bytes") }
        var out = [UInt8](repeating: 0, count: pending)
        let read = out.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
        guard read == pending else { throw .internalError("BIO_read returned \(read) of \(pending) bytes") }
        return out
    }
}
