import COpenSSL
import GateKitSupport

/// Bytes from OpenSSL's CSPRNG (key ids and nonces).
public enum RandomBytes {
    public static func make(_ count: Int) throws(GateKitError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count <= Int(Int32.max), bytes.withUnsafeMutableBufferPointer({ RAND_bytes($0.baseAddress, Int32(count)) }) == 1 else {
            throw .internalError("RAND_bytes failed")
        }
        return bytes
    }
}
