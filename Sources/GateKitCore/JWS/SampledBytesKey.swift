/// A dictionary key of a few kilobytes (a JWS header, a certificate) that hashes its length
/// and a sparse sample of its bytes — a full SipHash of 2 KB would cost more than the work a
/// lookup saves. Equality still compares every byte, so a collision costs time, never a
/// wrong answer.
struct SampledBytesKey: Hashable {
    let bytes: [UInt8]

    func hash(into h: inout Hasher) {
        h.combine(bytes.count)
        var sample = [UInt8]()
        sample.reserveCapacity(64)
        bytes.withUnsafeBufferPointer { b in
            var i = b.count &- 1
            while i >= 0 && sample.count < 64 {
                sample.append(b[i])
                i &-= 37
            }
        }
        sample.withUnsafeBytes { h.combine(bytes: $0) }
    }
}
